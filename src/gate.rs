//! The admission gate: an attempt is admitted only if it can finish before the deadline.
//!
//! `now + plannedWait + attemptTimeoutMs ≤ deadline`, checked before sleeping (so a
//! hopeless wait is never slept) and again on waking (`now + attemptTimeoutMs ≤
//! deadline`), because scheduler delay, a throttled background tab or a suspended
//! worker can eat the time that looked available.

use crate::reason::Reason;

/// Whether a proposed wait leaves room for a full attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The wait and a full attempt both fit before the deadline.
    Fits,
    /// They do not: stop with this reason (`provider-wait` or `deadline`).
    TooLate(Reason),
}

/// Whether an attempt starting at `start` can run its full timeout before `deadline`.
pub fn fits(start: u64, timeout_ms: u64, deadline: u64) -> bool {
    start.checked_add(timeout_ms).is_some_and(|end| end <= deadline)
}

/// The last instant an attempt may start.
pub fn latest_start(timeout_ms: u64, deadline: u64) -> u64 {
    deadline.saturating_sub(timeout_ms)
}

/// How much later than `start` an attempt could still start.
pub fn room(start: u64, timeout_ms: u64, deadline: u64) -> u64 {
    latest_start(timeout_ms, deadline).saturating_sub(start)
}

/// The check before sleeping. A provider's minimum (when there is one) is tested on its own
/// first: if it cannot fit, the stop is `provider-wait` (the wait is never shortened to make it
/// fit); otherwise a local wait (draw, spread) that cannot fit stops with `deadline`.
pub fn before_sleep(now: u64, provider_ms: u64, local_ms: u64, timeout_ms: u64, deadline: u64) -> Fit {
    if provider_ms > 0 && !fits(now.saturating_add(provider_ms), timeout_ms, deadline) {
        Fit::TooLate(Reason::ProviderWait)
    } else if !fits(now.saturating_add(local_ms), timeout_ms, deadline) {
        Fit::TooLate(Reason::Deadline)
    } else {
        Fit::Fits
    }
}

/// The initial attempt, when nothing makes it wait, is sent while any time is left: its timeout
/// is then cut to what remains (a call's deadline may be no longer than one attempt).
pub fn admits_initial(now: u64, deadline: u64) -> bool {
    now < deadline
}

/// The timeout of an attempt sent at `now`: never past the deadline.
pub fn attempt_timeout(now: u64, timeout_ms: u64, deadline: u64) -> u64 {
    timeout_ms.min(deadline.saturating_sub(now)).max(1)
}
