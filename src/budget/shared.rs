//! A budget's state in wall-clock time, so that it can be kept outside this realm — in IndexedDB
//! for tabs, in a Durable Object for isolates (docs/shared-budgets.md) — and taken up by another
//! realm, whose monotonic clock has another origin. The limits are not part of it: every realm
//! that shares a budget builds it from the same options.

use super::room::{Room, Waiter};
use super::{Budget, Priority, ScopeState};

/// A priority from its rank in a shared state (an unknown rank: the lowest).
fn rank_of(rank: u64) -> Priority {
    match rank {
        3 => Priority::Reconcile,
        2 => Priority::Order,
        1 => Priority::Read,
        _ => Priority::Refresh,
    }
}
use crate::sorted_map::SortedMap;

/// Everything that changes as a budget is used, in wall-clock Unix ms (µs for the bucket).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedState {
    /// The next grant id to hand out; an importing budget never goes below it, so ids stay unique across realms.
    pub next_grant: u64,
    /// Each scope the budget has used.
    pub scopes: Vec<SharedScope>,
}

/// One scope's part of a [`SharedState`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedScope {
    /// The scope's name.
    pub scope: String,
    /// When the provider's hold ends, wall-clock Unix ms (0: not held).
    pub hold_until: u64,
    /// When the provider's ban ends, wall-clock Unix ms (0: not banned).
    pub ban_until: u64,
    /// The bucket's theoretical arrival time of the next token, µs (`None`: no token limit).
    pub bucket_tat_us: Option<u64>,
    /// The used-weight meter: its level in µ-tokens and when it was last brought up to date.
    pub meter: Option<(u128, u64)>,
    /// Retry-quota units left (`None`: no retry quota).
    pub quota_available: Option<u32>,
    /// Grants admitted and not yet sent: their id and when they may start.
    pub queued: Vec<(u64, u64)>,
    /// The circuit breaker's shared part, its open end in wall-clock ms (`None`: no breaker).
    pub breaker: Option<[u64; 5]>,
    /// Of a scope with `maxInFlight`: requests on the wire (grant id, end in wall ms) and grants
    /// waiting for room (id, priority rank, latest start in wall ms). `None`: no cap.
    pub room: Option<SharedRoom>,
    /// Coalesced reads on the wire: request identity, token, end in wall ms.
    pub flights: Vec<(u64, u64, u64)>,
}

/// A scope's requests on the wire and its queue for room, in wall-clock ms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedRoom {
    /// Grant id, and when its attempt ends at the latest.
    pub on_wire: Vec<(u64, u64)>,
    /// Grant id, priority (0 refresh … 3 reconcile), latest start.
    pub waiting: Vec<(u64, u64, u64)>,
}

/// Moves instants between this realm's monotonic clock and the wall clock, read together.
#[derive(Clone, Copy)]
struct Clocks {
    now: u64,
    wall_now: u64,
}

impl Clocks {
    fn to_wall(self, mono: u64) -> u64 {
        clamp(i128::from(mono) - i128::from(self.now) + i128::from(self.wall_now))
    }

    fn to_mono(self, wall: u64) -> u64 {
        clamp(i128::from(wall) - i128::from(self.wall_now) + i128::from(self.now))
    }

    fn to_wall_us(self, mono_us: u128) -> u64 {
        let offset_us = (i128::from(self.wall_now) - i128::from(self.now)) * 1000;
        clamp(i128::try_from(mono_us).unwrap_or(i128::MAX).saturating_add(offset_us))
    }

    fn to_mono_us(self, wall_us: u64) -> u128 {
        let offset_us = (i128::from(self.now) - i128::from(self.wall_now)) * 1000;
        u128::from(clamp(i128::from(wall_us) + offset_us))
    }
}

/// An instant before either clock's origin is "long ago": 0.
fn clamp(x: i128) -> u64 {
    if x <= 0 {
        0
    } else {
        u64::try_from(x).unwrap_or(u64::MAX)
    }
}

impl Budget {
    /// This budget's state, at monotonic `now` and wall clock `wall_now`.
    pub fn export(&self, now: u64, wall_now: u64) -> SharedState {
        let clocks = Clocks { now, wall_now };
        let scopes = self
            .scopes
            .iter()
            .map(|(scope, s)| SharedScope {
                scope: scope.clone(),
                hold_until: if s.hold_until > now { clocks.to_wall(s.hold_until) } else { 0 },
                ban_until: if s.ban_until > now { clocks.to_wall(s.ban_until) } else { 0 },
                bucket_tat_us: s.bucket.as_ref().map(|b| clocks.to_wall_us(b.tat_us())),
                meter: s.meter.as_ref().map(|m| {
                    let (level, updated) = m.state();
                    (level, clocks.to_wall(updated))
                }),
                quota_available: s.quota.as_ref().map(|q| q.available()),
                queued: s.queued.iter().map(|(id, start)| (*id, clocks.to_wall(*start))).collect(),
                breaker: s.breaker.as_ref().map(|b| {
                    let mut parts = b.shared();
                    // An open end, or the end of a probe's slot: both in wall time across realms.
                    parts[1] = if parts[1] > 0 { clocks.to_wall(parts[1]) } else { 0 };
                    parts
                }),
                room: s.room.as_ref().map(|room| SharedRoom {
                    on_wire: room.on_wire.iter().map(|&(id, due)| (id, clocks.to_wall(due))).collect(),
                    waiting: room.waiting.iter().map(|w| (w.id, w.priority as u64, clocks.to_wall(w.latest))).collect(),
                }),
                flights: s.flights.iter().map(|&(key, token, due)| (key, token, clocks.to_wall(due))).collect(),
            })
            .collect();
        SharedState { next_grant: self.next_grant, scopes }
    }

    /// Takes up `state` as this budget's own, at monotonic `now` and wall clock `wall_now`;
    /// scopes it does not name start afresh. Grants that should have started by now and did not
    /// are dropped: their realm went away, and a send that never happened spends nothing more.
    pub fn import(&mut self, state: &SharedState, now: u64, wall_now: u64) {
        let clocks = Clocks { now, wall_now };
        self.next_grant = self.next_grant.max(state.next_grant);
        // What is this realm's own (a breaker's rolling window, response times, a lease) stays
        // with a scope the state still names; scopes it no longer names start afresh.
        let mut before = core::mem::take(&mut self.scopes);
        for shared in &state.scopes {
            if let Some(kept) = before.remove(shared.scope.as_str()) {
                self.scopes.insert(shared.scope.clone(), kept);
            }
            let s: &mut ScopeState = self.scope_mut(&shared.scope);
            s.hold_until = clocks.to_mono(shared.hold_until);
            s.ban_until = clocks.to_mono(shared.ban_until);
            if let (Some(bucket), Some(tat)) = (&mut s.bucket, shared.bucket_tat_us) {
                bucket.set_tat_us(clocks.to_mono_us(tat));
            }
            if let (Some(meter), Some((level, updated))) = (&mut s.meter, shared.meter) {
                meter.set_state(level, clocks.to_mono(updated));
            }
            if let (Some(quota), Some(available)) = (&mut s.quota, shared.quota_available) {
                quota.set_available(available);
            }
            if let (Some(breaker), Some(mut parts)) = (&mut s.breaker, shared.breaker) {
                parts[1] = clocks.to_mono(parts[1]);
                breaker.take_up(parts);
            }
            if let (Some(room), Some(shared)) = (&mut s.room, &shared.room) {
                let freed = room.freed;
                **room = Room {
                    on_wire: shared.on_wire.iter().map(|&(id, due)| (id, clocks.to_mono(due))).collect(),
                    waiting: shared
                        .waiting
                        .iter()
                        .map(|&(id, rank, latest)| Waiter {
                            id,
                            priority: rank_of(rank),
                            latest: clocks.to_mono(latest),
                        })
                        .collect(),
                    freed,
                };
            }
            s.flights = shared.flights.iter().map(|&(key, token, due)| (key, token, clocks.to_mono(due))).collect();
            s.queued = SortedMap::new();
            for &(id, start) in &shared.queued {
                let start = clocks.to_mono(start);
                if start >= now {
                    s.queued.insert(id, start);
                }
            }
        }
    }
}
