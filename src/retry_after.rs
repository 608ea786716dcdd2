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
    /// No `Retry-After`: the IETF `RateLimit-Reset` (delta seconds) set the wait.
    RateLimitReset,
    /// No `Retry-After`: `X-RateLimit-Reset` set the wait (epoch seconds, or a delta: told by size).
    XRateLimitReset,
    /// No `Retry-After`: `X-RateLimit-Retry-After` set the wait.
    XRateLimitRetryAfter,
    /// No `Retry-After`: `X-Rate-Limit-Reset` set the wait.
    XRateLimitResetDashed,
}

/// The reset headers honoured as provider waits when a response has no `Retry-After`, in the
/// order they are looked for; each sets the wait with its own form.
pub const RESET_HEADERS: [(&str, RetryAfterForm); 4] = [
    ("ratelimit-reset", RetryAfterForm::RateLimitReset),
    ("x-ratelimit-reset", RetryAfterForm::XRateLimitReset),
    ("x-ratelimit-retry-after", RetryAfterForm::XRateLimitRetryAfter),
    ("x-rate-limit-reset", RetryAfterForm::XRateLimitResetDashed),
];

/// The names of [`RESET_HEADERS`], in their order: what the glue looks for (their index crosses the boundary).
pub const RESET_HEADER_NAMES: [&str; 4] =
    ["ratelimit-reset", "x-ratelimit-reset", "x-ratelimit-retry-after", "x-rate-limit-reset"];

/// A value this large (seconds) is an instant, not a delta: 2001-09-09 in Unix seconds.
const EPOCH_SECONDS: u64 = 1_000_000_000;

/// Reads a reset header's value (`form` names the header): delta seconds, or Unix seconds when it
/// is that large, measured against the response's `Date` (else the wall clock). A fraction is
/// rounded up; anything else is no wait (`None`).
pub fn parse_reset(
    value: &str,
    form: RetryAfterForm,
    date_header: Option<&str>,
    wall_now_ms: u64,
) -> Option<ProviderWait> {
    let value = trim_ows(value);
    let (whole, fraction) = crate::text::split_once_byte(value, b'.').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || whole.len() > 15 {
        return None;
    }
    let seconds = whole.bytes().fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0'));
    let part_ms =
        fraction.bytes().take(3).enumerate().fold(0u64, |acc, (i, b)| acc + u64::from(b - b'0') * [100, 10, 1][i]);
    let rounds_up = fraction.bytes().skip(3).any(|b| b != b'0');
    let ms = seconds * 1000 + part_ms + u64::from(rounds_up);
    if seconds < EPOCH_SECONDS {
        return Some(bounded(ms, form).with_form_kept(form));
    }
    let reference_ms = date_header.and_then(|date| http_date_ms(date, wall_now_ms)).unwrap_or(wall_now_ms);
    Some(bounded(ms.saturating_sub(reference_ms), form).with_form_kept(form))
}

impl ProviderWait {
    /// A clamped wait keeps `Clamped`; any other keeps the header's form.
    fn with_form_kept(self, form: RetryAfterForm) -> ProviderWait {
        match self.form {
            RetryAfterForm::Clamped => self,
            _ => ProviderWait { form, ..self },
        }
    }
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
/// wall clock (Unix ms) at receipt, used when `Date` is missing or invalid (and to read the
/// two-digit year of an RFC 850 date).
pub fn parse(value: &str, date_header: Option<&str>, wall_now_ms: u64) -> ProviderWait {
    let value = trim_ows(value);
    if let Some(ms) = delta_seconds_ms(value) {
        return bounded(ms, RetryAfterForm::Seconds);
    }
    let Some(at_ms) = http_date_ms(value, wall_now_ms) else {
        return ProviderWait { wait_ms: 0, form: RetryAfterForm::Unparseable };
    };
    let reference_ms = date_header.and_then(|date| http_date_ms(date, wall_now_ms)).unwrap_or(wall_now_ms);
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
    crate::text::trim_ascii_with(value, |b| b == b' ' || b == b'\t')
}

/// An HTTP-date in any of its three forms, as Unix ms; an RFC 850 two-digit year is read
/// against the wall clock `wall_now_ms` (Unix ms).
pub fn http_date_ms(value: &str, wall_now_ms: u64) -> Option<u64> {
    crate::http_date::unix_seconds(trim_ows(value), wall_now_ms).map(|seconds| seconds * 1000)
}
