//! `Retry-After` parsing, table-driven, citing RFC 9110.
//!
//! §10.2.3: `Retry-After = HTTP-date / delay-seconds`, `delay-seconds = 1*DIGIT`.
//! §5.6.7: a recipient MUST accept all three HTTP-date forms — IMF-fixdate, the
//! obsolete RFC 850 form and ANSI C's asctime() form.
#![cfg(not(target_arch = "wasm32"))]

use retryline::retry_after::{http_date_ms, parse, ProviderWait, RetryAfterForm as F};

/// The example instant of RFC 9110 §5.6.7: Sun, 06 Nov 1994 08:49:37 GMT.
const EXAMPLE_MS: u64 = 784_111_777_000;

fn wait(ms: u64, form: F) -> ProviderWait {
    ProviderWait { wait_ms: ms, form }
}

#[test]
fn delay_seconds() {
    let table = [
        ("120", wait(120_000, F::Seconds)), // §10.2.3 example
        ("0", wait(0, F::Seconds)),
        ("2", wait(2000, F::Seconds)),
        ("  2  ", wait(2000, F::Seconds)), // OWS around field values is not part of the value (§5.5)
        ("007", wait(7000, F::Seconds)),
    ];
    for (value, expected) in table {
        assert_eq!(parse(value, None, EXAMPLE_MS), expected, "{value:?}");
    }
}

#[test]
fn all_three_date_forms_of_section_5_6_7() {
    let forms = [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT", // obsolete RFC 850 format
        "Sun Nov  6 08:49:37 1994",       // ANSI C's asctime() format
    ];
    for value in forms {
        assert_eq!(http_date_ms(value, EXAMPLE_MS), Some(EXAMPLE_MS), "{value:?}");
        // Measured against a wall clock 30 s earlier: a 30 s wait.
        assert_eq!(parse(value, None, EXAMPLE_MS - 30_000), wait(30_000, F::Date), "{value:?}");
    }
}

#[test]
fn a_date_is_measured_against_the_responses_date_header() {
    // The provider's clock says 08:49:07, ours is an hour off: the provider's own clock wins.
    let provider_now = "Sun, 06 Nov 1994 08:49:07 GMT";
    let ours = EXAMPLE_MS + 3_600_000;
    assert_eq!(parse("Sun, 06 Nov 1994 08:49:37 GMT", Some(provider_now), ours), wait(30_000, F::Date));
    // A Date header that is not a date falls back to the wall clock.
    assert_eq!(parse("Sun, 06 Nov 1994 08:49:37 GMT", Some("yesterday"), EXAMPLE_MS - 5000), wait(5000, F::Date));
}

#[test]
fn a_date_in_the_past_is_no_wait_never_a_negative_one() {
    assert_eq!(parse("Sun, 06 Nov 1994 08:49:37 GMT", None, EXAMPLE_MS + 86_400_000), wait(0, F::Date));
}

#[test]
fn garbage_is_recorded_as_unparseable() {
    let garbage = [
        "",
        "soon",
        "-5",
        "+5",
        "1.5",
        "2s",
        "0x10",
        "1 2",
        "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT",
        "\u{0}",
        "٣",
        "NaN",
        "Infinity",
    ];
    for value in garbage {
        assert_eq!(parse(value, None, EXAMPLE_MS), wait(0, F::Unparseable), "{value:?}");
    }
}

#[test]
fn absurdly_large_values_are_clamped_to_the_largest_timer() {
    let max = retryline::backoff::MAX_TIMER_MS;
    assert_eq!(parse("99999999999999999999999999999", None, 0), wait(max, F::Clamped));
    assert_eq!(parse("2147484", None, 0), wait(max, F::Clamped)); // 2 147 484 000 ms > 2^31 − 1
    assert_eq!(parse("2147483", None, 0), wait(2_147_483_000, F::Seconds));
    assert_eq!(parse("Fri, 31 Dec 9999 23:59:59 GMT", None, EXAMPLE_MS), wait(max, F::Clamped));
}

#[test]
fn parsing_never_panics_on_arbitrary_input() {
    use proptest::prelude::*;
    proptest!(|(value in "\\PC{0,40}", date in proptest::option::of("\\PC{0,40}"), now in any::<u64>())| {
        let w = parse(&value, date.as_deref(), now);
        prop_assert!(w.wait_ms <= retryline::backoff::MAX_TIMER_MS);
    });
}
