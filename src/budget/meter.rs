//! What actually went on the wire: a plain token bucket charged at the moment of sending.
//!
//! The planning bucket ([`super::bucket`]) spaces operations out by reservation, but a
//! reservation is only a plan: when a busy event loop or a throttled tab fires many
//! timers late, planned sends would bunch up. The meter holds the line at send time, so
//! over any interval `d` the weight actually sent stays within `capacity + rate × d`.

/// A scope's send-time token bucket, charged when an attempt actually goes on the wire, so that
/// timers firing late cannot bunch sends beyond the provider's limit.
#[derive(Clone, Debug)]
pub struct Meter {
    /// Micro-tokens: a millisecond at a rate in milli-tokens per second adds exactly this unit.
    capacity_micro: u128,
    rate_milli: u64,
    level_micro: u128,
    updated_at: u64,
}

impl Meter {
    /// A full meter of `capacity` tokens refilling at `rate_milli` milli-tokens per second (at least 1).
    pub fn new(capacity: u64, rate_milli: u64) -> Self {
        let capacity_micro = u128::from(capacity) * 1_000_000;
        Meter { capacity_micro, rate_milli: rate_milli.max(1), level_micro: capacity_micro, updated_at: 0 }
    }

    fn refill(&mut self, now: u64) {
        if now > self.updated_at {
            let added = u128::from(now - self.updated_at) * u128::from(self.rate_milli);
            self.level_micro = (self.level_micro + added).min(self.capacity_micro);
            self.updated_at = now;
        }
    }

    /// Its level (µ-tokens) and when it was last brought up to date (monotonic ms).
    pub fn state(&self) -> (u128, u64) {
        (self.level_micro, self.updated_at)
    }

    /// Takes up a level (µ-tokens, capped at capacity) and its update time (monotonic ms), e.g. from shared state.
    pub fn set_state(&mut self, level_micro: u128, updated_at: u64) {
        self.level_micro = level_micro.min(self.capacity_micro);
        self.updated_at = updated_at;
    }

    /// Charges `weight` tokens at `now` (monotonic ms); `Err` is how many ms until they are there.
    pub fn take(&mut self, weight: u32, now: u64) -> Result<(), u64> {
        self.refill(now);
        let need = u128::from(weight) * 1_000_000;
        match self.level_micro.checked_sub(need) {
            Some(left) => {
                self.level_micro = left;
                Ok(())
            }
            None => {
                let wait = super::wide::div_ceil(need - self.level_micro, self.rate_milli);
                Err(u64::try_from(wait).unwrap_or(u64::MAX))
            }
        }
    }

    /// The provider counts `used` tokens spent: at most `capacity − used` are left.
    pub fn observe_used(&mut self, used: u64, now: u64) {
        self.refill(now);
        let left = self.capacity_micro.saturating_sub(u128::from(used) * 1_000_000);
        self.level_micro = self.level_micro.min(left);
    }
}
