//! Where a provider's wait stops being honoured as stated and starts being clamped.
//!
//! The largest wait a timer honours is 2^31 − 1 ms: a wait of exactly that is kept as the
//! provider stated it; one millisecond more is clamped to it (and recorded as clamped).
#![cfg(not(target_arch = "wasm32"))]

use retryline::backoff::MAX_TIMER_MS;
use retryline::retry_after::{parse, ProviderWait, RetryAfterForm};

/// RFC 9110 §5.6.7's example instant, Sun, 06 Nov 1994 08:49:37 GMT, in Unix ms.
const EXAMPLE_MS: u64 = 784_111_777_000;
const EXAMPLE: &str = "Sun, 06 Nov 1994 08:49:37 GMT";

#[test]
fn a_date_exactly_the_largest_timer_away_is_honoured_as_stated() {
    let w = parse(EXAMPLE, None, EXAMPLE_MS - MAX_TIMER_MS);
    assert_eq!(w, ProviderWait { wait_ms: MAX_TIMER_MS, form: RetryAfterForm::Date });
}

#[test]
fn a_date_one_millisecond_further_is_clamped_and_says_so() {
    let w = parse(EXAMPLE, None, EXAMPLE_MS - MAX_TIMER_MS - 1);
    assert_eq!(w, ProviderWait { wait_ms: MAX_TIMER_MS, form: RetryAfterForm::Clamped });
}

#[test]
fn a_date_one_millisecond_nearer_is_honoured_to_the_millisecond() {
    let w = parse(EXAMPLE, None, EXAMPLE_MS - MAX_TIMER_MS + 1);
    assert_eq!(w, ProviderWait { wait_ms: MAX_TIMER_MS - 1, form: RetryAfterForm::Date });
}

#[test]
fn delta_seconds_are_read_digit_by_digit() {
    let cases = [("1", 1000), ("9", 9000), ("10", 10_000), ("305", 305_000), ("86400", 86_400_000)];
    for (value, ms) in cases {
        assert_eq!(parse(value, None, 0), ProviderWait { wait_ms: ms, form: RetryAfterForm::Seconds }, "{value}");
    }
}
