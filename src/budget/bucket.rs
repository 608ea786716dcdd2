//! A weighted token bucket, kept as virtual scheduling (GCRA) so that reservations for
//! future starts are exact: an operation that plans to send in 800 ms holds its tokens
//! now, and the next operation's wait accounts for them.
//!
//! Invariant: over any interval of length `d`, the weight started is at most
//! `capacity + rate × d`, whatever the number of concurrent operations.
//!
//! Grants are not asked for in the order of their starts: a retry planned 800 ms ahead may be
//! granted before a request that goes at once. Each grant is kept with its start until that start
//! is history ([`Bucket::advance`]); the schedule is the GCRA of the grants in start order, and a
//! new grant goes at the earliest instant where it conforms and every later grant still does.
//! Folding a grant into the theoretical arrival time earlier than that only ever makes the bucket
//! stricter, never looser.

use super::wide::{div, div_ceil};
use super::Priority;
use crate::sorted_map::{insert_at, remove_at};

/// Microseconds per millisecond: the bucket counts in µs so small weights at high rates don't round away.
const US: u128 = 1000;

/// Most grants kept apart with their starts; beyond it the earliest is folded into the
/// theoretical arrival time (stricter, never looser), which keeps admission cheap.
const PLANNED_MAX: usize = 64;

/// A grant whose start is not yet history: its start (µs) and weight.
#[derive(Clone, Copy, Debug)]
struct Planned {
    start_us: u128,
    weight: u32,
}

/// A scope's planning token bucket (GCRA): a grant reserves its weight for its future start, and a
/// per-priority reserve keeps the last part of the bucket for higher priorities.
#[derive(Clone, Debug)]
pub struct Bucket {
    capacity: u64,
    /// Refill rate in milli-tokens per second (> 0).
    rate_milli: u64,
    /// Share of the capacity held back from the lower priorities, per mille.
    reserve_permille: u32,
    /// The theoretical arrival time of the grants that are history: when the bucket would be full
    /// again without the planned ones, in µs.
    tat_us: u128,
    /// Grants whose start is not yet history, in start order (equal starts in the order taken).
    planned: Vec<Planned>,
    /// The latest instant (µs) known to be history: what [`Bucket::advance`] was given.
    seen_us: u128,
}

impl Bucket {
    /// A full bucket of `capacity` tokens refilling at `rate_milli` milli-tokens per second (at least 1);
    /// `reserve_permille` (at most 1000) is the share held back from the lower priorities.
    pub fn new(capacity: u64, rate_milli: u64, reserve_permille: u32) -> Self {
        Bucket {
            capacity,
            rate_milli: rate_milli.max(1),
            reserve_permille: reserve_permille.min(1000),
            tat_us: 0,
            planned: Vec::new(),
            seen_us: 0,
        }
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
        div_ceil(milli * 1_000_000, self.rate_milli)
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
        div(u128::from(self.capacity) * u128::from(self.reserve_permille) * share, 3000) * 1000
    }

    /// How far ahead of the theoretical arrival time a grant of `weight` may start when `room_milli`
    /// milli-tokens of the bucket are its to take, in µs: the refill of the room it leaves, rounded
    /// down (it is subtracted, and must not come out longer than it is).
    fn lead_us(&self, room_milli: u128, weight: u32) -> u128 {
        div(room_milli.saturating_sub(u128::from(weight) * 1000) * 1_000_000, self.rate_milli)
    }

    /// How long refilling `weight` whole tokens takes, in µs (rounded up).
    fn refill_weight_us(&self, weight: u32) -> u128 {
        self.refill_us(u128::from(weight) * 1000)
    }

    /// The theoretical arrival time after `tat_us` and then `grant`.
    fn after(&self, tat_us: u128, grant: &Planned) -> u128 {
        tat_us.max(grant.start_us) + self.refill_weight_us(grant.weight)
    }

    /// The earliest instant (ms) at or after `earliest` when `weight` fits above the floor of
    /// `priority`, and every grant planned after it still fits; `None` if it never can (the weight
    /// is larger than the room above the floor).
    pub fn earliest_start(&self, weight: u32, priority: Priority, earliest: u64) -> Option<u64> {
        let weight_milli = u128::from(weight) * 1000;
        let room_milli = (u128::from(self.capacity) * 1000).saturating_sub(self.floor_milli(priority));
        if weight_milli > room_milli {
            return None;
        }
        let (need_us, lead_us) = (self.refill_us(weight_milli), self.lead_us(room_milli, weight));
        let full_milli = u128::from(self.capacity) * 1000;
        let earliest_us = u128::from(earliest) * US;
        // Try each place in the planned order: after the first `k` grants, before the rest.
        let (mut tat_us, mut not_before_us) = (self.tat_us, earliest_us);
        for k in 0..=self.planned.len() {
            if let Some(before) = k.checked_sub(1).and_then(|i| self.planned.get(i)) {
                tat_us = self.after(tat_us, before);
                not_before_us = not_before_us.max(before.start_us);
            }
            let next = self.planned.get(k);
            if next.is_some_and(|next| next.start_us <= earliest_us) {
                continue;
            }
            // Whole milliseconds: the start is granted, and kept, as a whole millisecond.
            let start_ms = div_ceil(tat_us.saturating_sub(lead_us).max(not_before_us), 1000);
            let start_us = start_ms * US;
            if next.is_some_and(|next| start_us >= next.start_us) {
                continue;
            }
            // Each later grant must still find its weight in the bucket at its own start.
            let mut chain_us = tat_us.max(start_us) + need_us;
            let later_fit = self.planned[k..].iter().all(|later| {
                let fits = chain_us.saturating_sub(self.lead_us(full_milli, later.weight)) <= later.start_us;
                chain_us = self.after(chain_us, later);
                fits
            });
            if later_fit {
                return u64::try_from(start_ms).ok();
            }
        }
        None
    }

    /// The theoretical arrival time: when the bucket would be full again, µs of the monotonic clock
    /// (every grant counted, the planned ones at their starts).
    pub fn tat_us(&self) -> u128 {
        self.planned.iter().fold(self.tat_us, |tat_us, grant| self.after(tat_us, grant))
    }

    /// Sets the theoretical arrival time (µs of the monotonic clock), e.g. when importing shared
    /// state: every grant it counts is history.
    pub fn set_tat_us(&mut self, tat_us: u128) {
        self.tat_us = tat_us;
        self.planned.clear();
    }

    /// Spends `weight` tokens for a start at `start` (monotonic ms): grants that start later queue
    /// behind it, and it behind those that start earlier.
    pub fn take(&mut self, weight: u32, start: u64) {
        let start_us = u128::from(start) * US;
        let at = self.planned.partition_point(|grant| grant.start_us <= start_us);
        insert_at(&mut self.planned, at, Planned { start_us, weight });
        if self.planned.len() > PLANNED_MAX {
            if let Some(first) = remove_at(&mut self.planned, 0) {
                self.tat_us = self.after(self.tat_us, &first);
            }
        }
    }

    /// Starts at or before `now` (monotonic ms) are history: no grant is asked for before `now`
    /// any more, so the planned ones up to it are folded into the theoretical arrival time.
    pub fn advance(&mut self, now: u64) {
        let now_us = u128::from(now) * US;
        self.seen_us = self.seen_us.max(now_us);
        // The grants are in start order: those up to `seen_us` are a prefix.
        let seen_us = self.seen_us;
        let past = self.planned.iter().take_while(|grant| grant.start_us <= seen_us);
        self.tat_us = past.fold(self.tat_us, |tat_us, grant| self.after(tat_us, grant));
        self.planned.retain(|grant| grant.start_us > seen_us);
    }

    /// Returns the tokens of a grant for `start` (monotonic ms) that was never used.
    pub fn give_back_at(&mut self, weight: u32, start: u64) {
        let start_us = u128::from(start) * US;
        let left = self.give_back_planned(weight, |grant| grant.start_us == start_us);
        self.give_back_history(left);
    }

    /// Returns the tokens of a grant that was never used and whose start is history (an expired
    /// lease's); [`Bucket::give_back_at`] when the start is known.
    pub fn give_back(&mut self, weight: u32) {
        let seen_us = self.seen_us;
        let left = self.give_back_planned(weight, |grant| grant.start_us <= seen_us);
        self.give_back_history(left);
    }

    /// Takes up to `weight` off the planned grants that `matches` picks, earliest first; what is left.
    fn give_back_planned(&mut self, mut weight: u32, matches: impl Fn(&Planned) -> bool) -> u32 {
        for grant in self.planned.iter_mut().filter(|grant| matches(grant)) {
            let taken = grant.weight.min(weight);
            grant.weight -= taken;
            weight -= taken;
            if weight == 0 {
                break;
            }
        }
        self.planned.retain(|grant| grant.weight > 0);
        weight
    }

    /// Takes `weight` off the grants already folded into the theoretical arrival time.
    fn give_back_history(&mut self, weight: u32) {
        self.tat_us = self.tat_us.saturating_sub(self.refill_weight_us(weight));
    }

    /// Whole tokens available at `now` (ms), reservations for later starts already deducted.
    pub fn level(&self, now: u64) -> u64 {
        let now_us = u128::from(now) * US;
        let (mut tat_us, mut held_milli) = (self.tat_us, 0u128);
        for grant in &self.planned {
            if grant.start_us <= now_us {
                tat_us = self.after(tat_us, grant);
            } else {
                held_milli += u128::from(grant.weight) * 1000;
            }
        }
        let owed_us = tat_us.saturating_sub(now_us);
        let owed_milli = div_ceil(owed_us * u128::from(self.rate_milli), 1_000_000);
        let level_milli = (u128::from(self.capacity) * 1000).saturating_sub(owed_milli + held_milli);
        u64::try_from(div(level_milli, 1000)).unwrap_or(u64::MAX)
    }

    /// The provider reports `used` tokens spent in its window: the local level drops to
    /// `capacity − used` if it was higher (other processes may share the provider's limit).
    pub fn observe_used(&mut self, used: u64, now: u64) {
        self.advance(now);
        let used_milli = u128::from(used.min(self.capacity)) * 1000;
        let tat_us = u128::from(now) * US + self.refill_us(used_milli);
        self.tat_us = self.tat_us.max(tat_us);
    }
}
