//! Backoff windows and the four jitter strategies, as pure functions.
//!
//! Retries are numbered from zero: `window(n) = min(maxDelayMs, baseDelayMs × 2^n)`.
//! A strategy turns a window (and, for `decorrelated`, the previous delay) plus a
//! random source into a delay. Every delay is capped at [`MAX_TIMER_MS`].

use crate::draw::Rng;
use crate::policy::{Jitter, Policy};

/// The largest delay `setTimeout` honours (2^31 − 1 ms); longer ones fire at once.
pub const MAX_TIMER_MS: u64 = 2_147_483_647;

/// The backoff window of retry `n` (zero-based), saturating at the cap.
pub fn window(base_ms: u64, cap_ms: u64, n: u32) -> u64 {
    let grown = 1u64.checked_shl(n).and_then(|factor| base_ms.checked_mul(factor)).unwrap_or(u64::MAX);
    grown.min(cap_ms).min(MAX_TIMER_MS)
}

/// One backoff step: the window it was drawn from and the delay drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The backoff window the delay was drawn from, ms (already capped at `maxDelayMs` and [`MAX_TIMER_MS`]).
    pub window_ms: u64,
    /// The delay drawn from that window, ms: how long to sleep before the retry.
    pub delay_ms: u64,
}

/// The window of retry `n` under `policy`; `previous_ms` is the last delay (for `decorrelated`).
pub fn window_for(policy: &Policy, n: u32, previous_ms: u64) -> u64 {
    let (base, cap) = (policy.base_delay_ms(), policy.max_delay_ms());
    match policy.jitter() {
        // Decorrelated jitter draws from [base, previous × 3], so that is its window.
        Jitter::Decorrelated => previous_ms.max(base).saturating_mul(3).min(cap).min(MAX_TIMER_MS),
        _ => window(base, cap, n),
    }
}

/// Draws the delay of retry `n` from its window.
pub fn sample(policy: &Policy, n: u32, previous_ms: u64, rng: &mut Rng) -> Step {
    let window_ms = window_for(policy, n, previous_ms);
    let delay_ms = match policy.jitter() {
        Jitter::Full => rng.between(0, window_ms),
        Jitter::Equal => {
            let half = window_ms / 2;
            half + rng.between(0, window_ms - half)
        }
        Jitter::Decorrelated => {
            // min(cap, Uniform[base, previous × 3]) (DESIGN §2): the draw is capped, not its range,
            // so once previous × 3 passes the cap, the cap itself is the likeliest delay.
            let base = policy.base_delay_ms();
            let top = previous_ms.max(base).saturating_mul(3).min(MAX_TIMER_MS);
            rng.between(base.min(top), top).min(window_ms)
        }
        Jitter::None => window_ms,
    };
    Step { window_ms, delay_ms: delay_ms.min(MAX_TIMER_MS) }
}
