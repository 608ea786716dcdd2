//! `Retry-After` (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
//!
//! Parsing is total: any header value gives a [`ProviderWait`], never a panic and
//! never a negative wait. A date is measured against the response's `Date` header
//! when it has a valid one (the provider's own clock), else against the wall clock.

use serde::{Deserialize, Serialize};

use crate::backoff::MAX_TIMER_MS;

/// How a provider's wait instruction was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RetryAfterForm {
    /// delta-seconds, e.g. `120`.
    Seconds,
    /// An HTTP-date (IMF-fixdate, RFC 850 or asctime form).
    Date,
    /// Present but neither form: ignored, and recorded as such.
    Unparseable,
    /// Parsed, but longer than [`MAX_TIMER_MS`]: clamped to it.
    Clamped,
    /// Not readable: a cross-origin response that does not expose the header (CORS) may carry
    /// one we cannot see. No wait is known; the retry follows our own backoff.
    Unreadable,
}

/// A provider's minimum wait, measured from receipt of the response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderWait {
    /// How long to wait, ms (0 when there is nothing to honour).
    pub wait_ms: u64,
    /// How the header was read.
    pub form: RetryAfterForm,
}

/// Reads a `Retry-After` value. `date_header` is the response's `Date`, `wall_now_ms` the
/// wall clock (Unix ms) at receipt, used when `Date` is missing or invalid.
pub fn parse(value: &str, date_header: Option<&str>, wall_now_ms: u64) -> ProviderWait {
    let value = trim_ows(value);
    if let Some(ms) = delta_seconds_ms(value) {
        return bounded(ms, RetryAfterForm::Seconds);
    }
    let Some(at_ms) = http_date_ms(value) else {
        return ProviderWait { wait_ms: 0, form: RetryAfterForm::Unparseable };
    };
    let reference_ms = date_header.and_then(http_date_ms).unwrap_or(wall_now_ms);
    // A date in the past means "no wait", never a negative one.
    bounded(at_ms.saturating_sub(reference_ms), RetryAfterForm::Date)
}

fn bounded(ms: u64, form: RetryAfterForm) -> ProviderWait {
    if ms > MAX_TIMER_MS {
        ProviderWait { wait_ms: MAX_TIMER_MS, form: RetryAfterForm::Clamped }
    } else {
        ProviderWait { wait_ms: ms, form }
    }
}

/// `delta-seconds = 1*DIGIT`, in ms; saturates instead of overflowing on absurd values.
fn delta_seconds_ms(value: &str) -> Option<u64> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds = value.bytes().fold(0u64, |acc, b| acc.saturating_mul(10).saturating_add(u64::from(b - b'0')));
    Some(seconds.saturating_mul(1000))
}

/// Without optional whitespace (RFC 9110 §5.6.3: spaces and tabs) around a field value.
fn trim_ows(value: &str) -> &str {
    value.trim_matches([' ', '\t'])
}

/// An HTTP-date in any of its three forms, as Unix ms.
pub fn http_date_ms(value: &str) -> Option<u64> {
    crate::http_date::unix_seconds(trim_ows(value)).map(|seconds| seconds * 1000)
}
