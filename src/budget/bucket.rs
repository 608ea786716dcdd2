//! A weighted token bucket, kept as virtual scheduling (GCRA) so that reservations for
//! future starts are exact: an operation that plans to send in 800 ms holds its tokens
//! now, and the next operation's wait accounts for them.
//!
//! Invariant: over any interval of length `d`, the weight started is at most
//! `capacity + rate × d`, whatever the number of concurrent operations.

use super::Priority;

/// Microseconds per millisecond: the bucket counts in µs so small weights at high rates don't round away.
const US: u128 = 1000;

/// A scope's planning token bucket (GCRA): a grant reserves its weight for its future start, and a
/// per-priority reserve keeps the last part of the bucket for higher priorities.
#[derive(Clone, Debug)]
pub struct Bucket {
    capacity: u64,
    /// Refill rate in milli-tokens per second (> 0).
    rate_milli: u64,
    /// Share of the capacity held back from the lower priorities, per mille.
    reserve_permille: u32,
    /// The theoretical arrival time: when the bucket would be full again, in µs.
    tat_us: u128,
}

impl Bucket {
    /// A full bucket of `capacity` tokens refilling at `rate_milli` milli-tokens per second (at least 1);
    /// `reserve_permille` (at most 1000) is the share held back from the lower priorities.
    pub fn new(capacity: u64, rate_milli: u64, reserve_permille: u32) -> Self {
        Bucket { capacity, rate_milli: rate_milli.max(1), reserve_permille: reserve_permille.min(1000), tat_us: 0 }
    }

    /// The most whole tokens the bucket holds.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The refill rate, in milli-tokens per second.
    pub fn refill_milli_per_second(&self) -> u64 {
        self.rate_milli
    }

    /// How long refilling `milli` milli-tokens takes, in µs (rounded up).
    fn refill_us(&self, milli: u128) -> u128 {
        (milli * 1_000_000).div_ceil(u128::from(self.rate_milli))
    }

    /// The level, in milli-tokens, below which `priority` may not take: the reserve keeps
    /// the last part of the bucket for the priorities above it.
    fn floor_milli(&self, priority: Priority) -> u128 {
        let share = match priority {
            Priority::Refresh => 3,
            Priority::Read => 2,
            Priority::Order => 1,
            Priority::Reconcile => 0,
        };
        // Whole tokens: no request weighs less than one, so a fraction of a token protects nobody
        // and would only keep a one-token bucket from ever serving a read.
        u128::from(self.capacity) * u128::from(self.reserve_permille) * share / 3 / 1000 * 1000
    }

    /// The earliest instant (ms) at or after `earliest` when `weight` fits above the floor of
    /// `priority`; `None` if it never can (the weight is larger than the room above the floor).
    pub fn earliest_start(&self, weight: u32, priority: Priority, earliest: u64) -> Option<u64> {
        let weight_milli = u128::from(weight) * 1000;
        let room_milli = (u128::from(self.capacity) * 1000).saturating_sub(self.floor_milli(priority));
        if weight_milli > room_milli {
            return None;
        }
        let conforming_us = (self.tat_us + self.refill_us(weight_milli)).saturating_sub(self.refill_us(room_milli));
        let start_us = conforming_us.max(u128::from(earliest) * US);
        u64::try_from(start_us.div_ceil(US)).ok()
    }

    /// The theoretical arrival time: when the bucket would be full again, µs of the monotonic clock.
    pub fn tat_us(&self) -> u128 {
        self.tat_us
    }

    /// Sets the theoretical arrival time (µs of the monotonic clock), e.g. when importing shared state.
    pub fn set_tat_us(&mut self, tat_us: u128) {
        self.tat_us = tat_us;
    }

    /// Spends `weight` tokens for a start at `start` (monotonic ms): later grants queue behind it.
    pub fn take(&mut self, weight: u32, start: u64) {
        self.tat_us = self.tat_us.max(u128::from(start) * US) + self.refill_us(u128::from(weight) * 1000);
    }

    /// Returns the tokens of a grant that was never used.
    pub fn give_back(&mut self, weight: u32) {
        self.tat_us = self.tat_us.saturating_sub(self.refill_us(u128::from(weight) * 1000));
    }

    /// Whole tokens available at `now` (ms), reservations for later starts already deducted.
    pub fn level(&self, now: u64) -> u64 {
        let owed_us = self.tat_us.saturating_sub(u128::from(now) * US);
        let owed_milli = (owed_us * u128::from(self.rate_milli)).div_ceil(1_000_000);
        let level_milli = (u128::from(self.capacity) * 1000).saturating_sub(owed_milli);
        u64::try_from(level_milli / 1000).unwrap_or(u64::MAX)
    }

    /// The provider reports `used` tokens spent in its window: the local level drops to
    /// `capacity − used` if it was higher (other processes may share the provider's limit).
    pub fn observe_used(&mut self, used: u64, now: u64) {
        let used_milli = u128::from(used.min(self.capacity)) * 1000;
        let tat_us = u128::from(now) * US + self.refill_us(used_milli);
        self.tat_us = self.tat_us.max(tat_us);
    }
}
