//! A budget as an operator reads it: each scope's tokens, quota, holds, bans and breaker.

use serde::Serialize;

use super::quota::{Quota, QuotaSnapshot};
use super::Budget;

/// One scope of a [`Budget::snapshot`]. Ends are wall-clock Unix ms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeSnapshot {
    /// The scope's name (an origin, or an account or API key the caller named).
    pub scope: String,
    /// Whole tokens available now (`null`: no token limit).
    pub tokens: Option<u64>,
    /// The bucket's capacity in tokens (`null`: no token limit).
    pub capacity: Option<u64>,
    /// What is left of the retry quota (`null`: no retry quota).
    pub retry_quota: Option<QuotaSnapshot>,
    /// When the provider's hold (a throttle's `Retry-After`) ends, wall-clock Unix ms (`null`: not held).
    pub held_until: Option<u64>,
    /// How long the hold still lasts, ms (0: not held).
    pub hold_remaining_ms: u64,
    /// When the provider's ban (a 418) ends, wall-clock Unix ms (`null`: not banned).
    pub banned_until: Option<u64>,
    /// How long the ban still lasts, ms (0: not banned).
    pub ban_remaining_ms: u64,
    /// Operations granted capacity that are still waiting to send.
    pub queued: usize,
    /// The scope's cap on requests on the wire at once (`null`: no cap).
    pub max_in_flight: Option<u64>,
    /// Its requests on the wire now (`null`: no cap, not counted).
    pub in_flight: Option<usize>,
    /// Requests waiting for room under the cap (`null`: no cap).
    pub waiting_for_room: Option<usize>,
    /// Its circuit breaker: `closed`, `open` or `half-open` (`null`: none).
    pub breaker: Option<&'static str>,
    /// When an open breaker lets its probe through, wall-clock Unix ms (`null`: not open).
    pub breaker_open_until: Option<u64>,
    /// How the budget is kept beyond this realm: `local` here (the shells say how it is shared).
    pub sharing: &'static str,
    /// Of a fleet's budget: how many processes this realm's own bucket is a share of — all it spends
    /// while it cannot reach the fleet (`null`: the whole bucket is its own).
    pub share_of: Option<u64>,
}

impl Budget {
    /// Each known scope as an operator would read it, at monotonic `now` / wall clock `wall_now`.
    pub fn snapshot(&self, now: u64, wall_now: u64) -> Vec<ScopeSnapshot> {
        self.scopes
            .iter()
            .map(|(scope, s)| {
                let held = s.hold_until.saturating_sub(now);
                let banned = s.ban_until.saturating_sub(now);
                let open_until = s.breaker.as_ref().and_then(|b| b.open_until());
                ScopeSnapshot {
                    scope: scope.clone(),
                    tokens: match s.lease.filter(|_| super::lease::LEASES) {
                        Some(lease) => Some(lease.tokens),
                        None => s.bucket.as_ref().map(|b| b.level(now)),
                    },
                    // The bucket's, whole: a fleet's realm holds a share of it.
                    capacity: s.bucket.as_ref().map(|b| b.capacity().max(self.limits(scope).capacity.unwrap_or(0))),
                    retry_quota: s.quota.as_ref().map(Quota::snapshot),
                    held_until: (held > 0).then(|| wall_now.saturating_add(held)),
                    hold_remaining_ms: held,
                    banned_until: (banned > 0).then(|| wall_now.saturating_add(banned)),
                    ban_remaining_ms: banned,
                    queued: s.queued.values().filter(|start| **start > now).count(),
                    max_in_flight: self.limits(scope).max_in_flight,
                    in_flight: s.room.as_ref().map(|room| room.on_wire_at(now)),
                    waiting_for_room: s.room.as_ref().map(|room| room.waiting_at(now)),
                    breaker: s.breaker.as_ref().map(|b| b.name(now)),
                    breaker_open_until: open_until.filter(|u| *u > now).map(|u| wall_now.saturating_add(u - now)),
                    sharing: "local",
                    share_of: (self.share_of > 1).then_some(self.share_of),
                }
            })
            .collect()
    }
}
