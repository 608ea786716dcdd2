//! The shared budget: what every operation in a scope must ask before it sends.
//!
//! Why a budget and not just `maxAttempts`? Independent random delays cannot enforce a
//! common quota: fifty widgets each allowed three attempts can still spend a
//! provider's per-minute weight in a second. A `Budget`, shared by every client that
//! holds it, keeps per **scope** (by default the URL origin; a call may name an
//! account or an API key instead):
//!
//! * a weighted token bucket spent by every request, initial and retry alike
//!   ([`bucket`]), with a reserve that keeps the last part of it for higher
//!   [`Priority`]s;
//! * a retry quota so retries can't snowball while first attempts still flow ([`quota`]);
//! * the provider's holds (a throttle's `Retry-After` covers the whole scope) and bans
//!   (a 418 suspends it until expiry).
//!
//! Nothing here reads a clock: `now` (monotonic ms) is always given.

pub mod authority;
pub mod breaker;
pub mod breaker_shared;
pub mod bucket;
mod carried;
pub mod config;
pub mod contact;
mod holds;
pub mod latency;
pub mod lease;
pub mod meter;
pub mod quota;
pub mod room;
mod room_budget;
pub mod shared;
pub mod sharing;
mod snapshot;
mod wide;

use serde::{Deserialize, Serialize};

/// The most tokens one attempt (a call's or a stream's `weight`) may spend.
pub const MAX_WEIGHT: u32 = 1_000_000;

use crate::classify::OperationKind;
use crate::sorted_map::SortedMap;
use bucket::Bucket;
pub use config::{BudgetConfig, Limits};
pub use holds::Cause;
use lease::Lease;
use meter::Meter;
use quota::Quota;
pub use snapshot::ScopeSnapshot;

/// Who goes first when capacity is short: reconciliation never starves behind refreshes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Priority {
    /// Optional dashboard refreshes: the first to be refused.
    Refresh,
    /// Reads and idempotent writes (the default): may dip into the upper third of the reserve.
    #[default]
    Read,
    /// Orders: may dip into the upper two thirds of the reserve.
    Order,
    /// Status queries that investigate an unknown outcome; also exempt from the retry quota.
    Reconcile,
}

impl Priority {
    /// Orders go before reads; everything else is a read unless the caller says otherwise.
    pub fn for_kind(kind: OperationKind) -> Priority {
        if kind.is_order() {
            Priority::Order
        } else {
            Priority::Read
        }
    }
}

/// Which part of a budget refused an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    /// The scope's token bucket has no room for the weight before the latest start.
    Tokens,
    /// The retry quota is spent: retries pause until successes pay it back.
    RetryQuota,
    /// Not the budget: the caller's `policy.shouldRetry` declined a retry the core had admitted.
    ShouldRetry,
    /// The scope's `maxInFlight` requests were on the wire until the latest start.
    InFlight,
}

/// What an operation asks of the budget before an attempt.
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    /// The scope whose bucket, quota, holds and bans apply (by default the URL origin).
    pub scope: &'a str,
    /// Tokens the attempt spends.
    pub weight: u32,
    /// How far into the bucket's reserve the attempt may dip (`reconcile` also skips the retry quota).
    pub priority: Priority,
    /// Whether this attempt repeats an earlier one (it then spends the retry quota).
    pub retry: bool,
    /// Whether the failure it repeats was a timeout (a dearer retry).
    pub after_timeout: bool,
    /// The earliest instant the attempt may start (after provider minimum and draw).
    pub earliest: u64,
    /// The latest instant it may start and still finish before the deadline.
    pub latest: u64,
}

/// Capacity granted to one attempt: to [`Budget::release`] if never sent, [`Budget::dispatch`]
/// when it goes, [`Budget::settle`] when it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    id: u64,
    /// When the attempt may start, monotonic ms (later than asked if it waits for tokens).
    pub start_at: u64,
    weight: u32,
    quota_cost: u32,
    /// Spent from the scope's lease rather than its bucket.
    leased: bool,
    /// The lease ended before the attempt starts: its tokens are taken when it goes, from the
    /// lease the realm holds then (a retry that sleeps past a lease does not spend one).
    deferred: bool,
    priority: Priority,
}

impl Grant {
    /// A grant that holds nothing (for attempts restored from another process).
    pub fn empty(start_at: u64) -> Grant {
        Grant { id: 0, start_at, weight: 0, quota_cost: 0, leased: false, deferred: false, priority: Priority::Read }
    }
}

#[derive(Clone, Debug, Default)]
struct ScopeState {
    hold_until: u64,
    ban_until: u64,
    /// The responses that set the longest hold and ban this realm saw (boxed: most scopes have none).
    hold_cause: Option<Box<Cause>>,
    ban_cause: Option<Box<Cause>>,
    /// The last failure its breaker counted.
    breaker_cause: Option<Box<Cause>>,
    bucket: Option<Bucket>,
    meter: Option<Meter>,
    quota: Option<Quota>,
    /// Grants whose attempt has not started yet, by id: when they may start.
    queued: SortedMap<u64, u64>,
    /// Tokens leased from a coordinator, spent instead of the bucket's while there is one.
    lease: Option<Lease>,
    /// The scope's breaker, if it has one; boxed: inline, ~250 bytes more per scope grew the wasm memory.
    breaker: Option<Box<breaker::Breaker>>,
    /// Its response times, for a hedge's `"p95"` (boxed for the same reason).
    latency: Option<Box<latency::Latency>>,
    /// Tokens taken from its own bucket (a fleet's realm: its share) that no coordinator has heard of.
    spent_alone: u64,
    /// Its requests on the wire and its queue for room, if it caps them (`maxInFlight`).
    room: Option<Box<room::Room>>,
    /// Coalesced reads on the wire in some realm of a shared budget: request identity, the
    /// flight's token, when its attempt ends at the latest (monotonic ms).
    flights: Vec<(u64, u64, u64)>,
}

impl ScopeState {
    /// The tokens of a deferred grant, at its start: from the lease held now (visited for on
    /// waking), or the realm's own bucket once the coordinator is unreachable and the lease gone.
    /// `Err(ms)`: not there yet, try again that much later.
    fn take_deferred(&mut self, grant: &Grant, now: u64) -> Result<(), u64> {
        let start = match (self.lease.as_mut().filter(|_| lease::LEASES), &mut self.bucket) {
            (Some(lease), _) => lease.start(grant.weight, now).ok_or(lease::LEASE_RETRY_MS)?,
            (None, Some(bucket)) => {
                bucket.advance(now);
                bucket.earliest_start(grant.weight, grant.priority, now).ok_or(lease::LEASE_RETRY_MS)?
            }
            (None, None) => now,
        };
        if start > now {
            return Err(start - now);
        }
        match (self.lease.as_mut().filter(|_| lease::LEASES), &mut self.bucket) {
            (Some(lease), _) => lease.tokens = lease.tokens.saturating_sub(u64::from(grant.weight)),
            (None, Some(bucket)) => {
                bucket.take(grant.weight, now);
                self.spent_alone = self.spent_alone.saturating_add(u64::from(grant.weight));
            }
            (None, None) => {}
        }
        Ok(())
    }
}

/// Per-scope limits, holds and bans, shared by every operation that holds the budget, and how it
/// is kept beyond this realm ([`sharing`]).
#[derive(Clone, Debug)]
pub struct Budget {
    config: BudgetConfig,
    scopes: SortedMap<String, ScopeState>,
    next_grant: u64,
    pub(crate) sharing: sharing::Sharing,
    /// Of a fleet's budget, how many processes this realm's own bucket is a share of: what it spends
    /// while it cannot reach the fleet ([`contact`]). 1: the whole bucket.
    pub(crate) share_of: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(BudgetConfig::default())
    }
}

impl Budget {
    /// The limits `scope` runs under (its own, or the top-level ones).
    pub fn limits(&self, scope: &str) -> &Limits {
        self.config.limits(scope)
    }

    /// A budget with these limits; each scope's bucket, meter and quota start full when the scope is first used.
    pub fn new(config: BudgetConfig) -> Self {
        Budget { config, scopes: SortedMap::new(), next_grant: 1, sharing: sharing::Sharing::Local, share_of: 1 }
    }

    /// No token limit and no retry quota: only the provider's holds and bans constrain traffic.
    pub fn unlimited() -> Self {
        Budget::new(BudgetConfig::unlimited())
    }

    fn scope_mut(&mut self, scope: &str) -> &mut ScopeState {
        let (config, share_of) = (&self.config, self.share_of);
        self.scopes.get_or_insert_with(scope, || {
            let limits = config.limits(scope);
            ScopeState {
                bucket: own_bucket(limits, share_of),
                meter: limits.capacity.map(|c| Meter::new(c, limits.refill_milli)),
                quota: config.retry_quota.map(Quota::new),
                breaker: limits.breaker.map(|c| Box::new(breaker::Breaker::new(c))),
                room: limits.max_in_flight.map(|_| Box::default()),
                ..ScopeState::default()
            }
        })
    }

    /// When the scope's own bucket would have the tokens `ask` needs (`None`: never, or no bucket):
    /// for a refusal by the budget to say how far past its latest start they are.
    pub fn tokens_at(&self, ask: &Ask) -> Option<u64> {
        self.scopes.get(ask.scope)?.bucket.as_ref()?.earliest_start(ask.weight, ask.priority, ask.earliest)
    }

    /// Grants capacity for one attempt: tokens for its weight (waiting for them if they
    /// come before `ask.latest`) and, for a retry, its share of the retry quota.
    /// `Err` names the limit that cannot make room in time: refuse with `budget`.
    pub fn admit(&mut self, ask: &Ask) -> Result<Grant, Limit> {
        let id = self.next_grant;
        let s = self.scope_mut(ask.scope);
        let leased = s.lease.is_some() && lease::LEASES;
        let deferred = leased && s.lease.is_some_and(|lease| ask.earliest > lease.until);
        let start_at = match (s.lease.as_ref().filter(|_| lease::LEASES), &s.bucket) {
            (Some(_), _) if deferred => ask.earliest,
            (Some(lease), _) => lease.start(ask.weight, ask.earliest).ok_or(Limit::Tokens)?,
            (None, Some(bucket)) => {
                bucket.earliest_start(ask.weight, ask.priority, ask.earliest).ok_or(Limit::Tokens)?
            }
            (None, None) => ask.earliest,
        };
        if start_at > ask.latest {
            return Err(Limit::Tokens);
        }
        let quota_cost = match (&mut s.quota, ask.retry && ask.priority != Priority::Reconcile) {
            (Some(quota), true) => {
                let cost = quota.cost(ask.after_timeout);
                if !quota.spend(cost) {
                    return Err(Limit::RetryQuota);
                }
                cost
            }
            _ => 0,
        };
        match (s.lease.as_mut().filter(|_| lease::LEASES), &mut s.bucket) {
            (Some(_), _) if deferred => {}
            (Some(lease), _) => lease.tokens = lease.tokens.saturating_sub(u64::from(ask.weight)),
            (None, Some(bucket)) => {
                bucket.take(ask.weight, start_at);
                s.spent_alone = s.spent_alone.saturating_add(u64::from(ask.weight));
            }
            (None, None) => {}
        }
        s.queued.insert(id, start_at);
        self.next_grant += 1;
        Ok(Grant { id, start_at, weight: ask.weight, quota_cost, leased, deferred, priority: ask.priority })
    }

    /// Returns the capacity of an attempt that was never sent.
    pub fn release(&mut self, scope: &str, grant: Grant) {
        let s = self.scope_mut(scope);
        if let Some(room) = &mut s.room {
            room.forget(grant.id);
        }
        // Its retry-quota cost comes back whatever happened to the queue: a budget taken up from
        // another realm drops grants whose start has passed, and a retry never sent spends nothing.
        if let Some(quota) = &mut s.quota {
            quota.refund(grant.quota_cost);
        }
        if s.queued.remove(&grant.id).is_none() {
            return;
        }
        match (s.lease.as_mut().filter(|_| lease::LEASES), &mut s.bucket, grant.leased) {
            _ if grant.deferred => {}
            (Some(lease), _, true) => lease.tokens += u64::from(grant.weight),
            (_, Some(bucket), false) => {
                bucket.give_back_at(grant.weight, grant.start_at);
                s.spent_alone = s.spent_alone.saturating_sub(u64::from(grant.weight));
            }
            // A lease that ended meanwhile: its tokens went back to the coordinator with it.
            _ => {}
        }
    }

    /// The granted attempt is about to go on the wire: its weight is charged to what was
    /// actually sent. `Err(ms)` if timers fired late and that many ms must pass first.
    pub fn dispatch(&mut self, scope: &str, grant: Grant, now: u64) -> Result<(), u64> {
        let s = self.scope_mut(scope);
        if lease::LEASES && grant.deferred {
            s.take_deferred(&grant, now)?;
        }
        if let Some(meter) = &mut s.meter {
            meter.take(grant.weight, now)?;
        }
        s.queued.remove(&grant.id);
        if let Some(bucket) = &mut s.bucket {
            // Nothing is granted before `now` any more: the starts up to it are history.
            bucket.advance(now);
        }
        Ok(())
    }

    /// The granted attempt was dispatched and then never went on the wire (the shell cancelled it
    /// first): its retry-quota cost comes back, as a retry never sent must not spend the quota.
    /// Its tokens stay spent: the meter charged them at dispatch and can't know it never left.
    /// Call it once per grant, instead of [`Budget::settle`].
    pub fn take_back(&mut self, scope: &str, grant: Grant) {
        let s = self.scope_mut(scope);
        if let Some(room) = &mut s.room {
            room.leave(grant.id);
        }
        if let Some(quota) = &mut s.quota {
            quota.refund(grant.quota_cost);
        }
    }

    /// The granted attempt ended: a success pays the retry quota back.
    pub fn settle(&mut self, scope: &str, grant: Grant, success: bool) {
        let s = self.scope_mut(scope);
        if let Some(room) = &mut s.room {
            room.leave(grant.id);
        }
        let Some(quota) = &mut s.quota else { return };
        match (success, grant.quota_cost) {
            (true, 0) => quota.credit(),
            (true, cost) => quota.refund(cost),
            (false, _) => {}
        }
    }

    /// The response header carrying the provider's own count of weight used in `scope`.
    pub fn used_weight_header(&self, scope: &str) -> Option<&str> {
        self.config.limits(scope).used_weight_header.as_deref()
    }

    /// The provider says `used` tokens of `scope` are spent: the local bucket follows it down.
    pub fn observe_used_weight(&mut self, scope: &str, used: u64, now: u64) {
        let s = self.scope_mut(scope);
        if let Some(bucket) = &mut s.bucket {
            bucket.observe_used(used, now);
        }
        if let Some(meter) = &mut s.meter {
            meter.observe_used(used, now);
        }
    }
}

/// This realm's own bucket for `limits`: of a fleet's budget, its share (`share_of` processes: at
/// least one token, and a rate of at least one milli-token a second).
pub(crate) fn own_bucket(limits: &Limits, share_of: u64) -> Option<Bucket> {
    let share_of = share_of.max(1);
    let capacity = limits.capacity?;
    Some(Bucket::new((capacity / share_of).max(1), limits.refill_milli / share_of, limits.reserve_permille))
}
