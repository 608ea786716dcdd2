//! Tokens leased from a coordinator that keeps one scope's bucket for many realms (edge isolates,
//! docs/shared-budgets.md). A realm with a lease spends from it instead of its own bucket, so the
//! coordinator is asked only when the lease runs out or its news of holds and bans goes stale.

use super::{Budget, Priority};

/// Whether this build leases at all: a browser's budget never does, and carries none of it.
pub const LEASES: bool = cfg!(feature = "leases");

/// Most tokens one lease hands out beyond what the asking operation needs: small batches keep
/// what an isolate holds unused (and what a crashed one takes with it) small.
const BATCH_MAX: u64 = 10;

/// A deferred grant whose lease has no room when it goes tries again this much later (after
/// another visit to the coordinator), within its deadline.
pub const LEASE_RETRY_MS: u64 = 200;

/// A batch of tokens a realm may start, taken from the coordinator's bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lease {
    /// Weight still to start.
    pub tokens: u64,
    /// The earliest instant (monotonic ms) they may start: when the coordinator's bucket had them.
    pub from: u64,
    /// After this instant they are void; what is left goes back to the coordinator.
    pub until: u64,
}

impl Lease {
    /// When `weight` may start at or after `earliest`, or `None` if this lease cannot carry it.
    pub fn start(&self, weight: u32, earliest: u64) -> Option<u64> {
        let start = earliest.max(self.from);
        (u64::from(weight) <= self.tokens && start <= self.until).then_some(start)
    }
}

/// What the coordinator gives out: `tokens` from instant `from` (its monotonic ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeasedOut {
    /// Tokens handed to the realm; 0 when the weight cannot start by the asked latest instant.
    pub tokens: u64,
    /// Their earliest start, coordinator's monotonic ms; with 0 tokens, when the weight could start
    /// (`u64::MAX`: never).
    pub from: u64,
}

impl Budget {
    /// The coordinator's side: takes `weight` (and, if they are there at the same instant, up to a
    /// batch more) from the scope's bucket for `priority`, starting no earlier than `earliest` (nor
    /// `now`) and no later than `latest`. Zero tokens if the weight cannot start by then; `from`
    /// then says when it could. A scope without a token limit leases without end.
    pub fn lease_out(
        &mut self,
        scope: &str,
        weight: u32,
        priority: Priority,
        now: u64,
        (earliest, latest): (u64, u64),
    ) -> LeasedOut {
        let s = self.scope_mut(scope);
        let Some(bucket) = &mut s.bucket else {
            return LeasedOut { tokens: u64::from(u32::MAX), from: earliest.max(now) };
        };
        bucket.advance(now);
        let Some(from) = bucket.earliest_start(weight, priority, earliest.max(now)) else {
            return LeasedOut { tokens: 0, from: u64::MAX };
        };
        if from > latest {
            return LeasedOut { tokens: 0, from };
        }
        bucket.take(weight, from);
        let batch = (bucket.capacity() / 10).clamp(1, BATCH_MAX);
        let mut tokens = u64::from(weight);
        while tokens < u64::from(weight) + batch && bucket.earliest_start(1, priority, from) == Some(from) {
            bucket.take(1, from);
            tokens += 1;
        }
        LeasedOut { tokens, from }
    }

    /// The coordinator's side: `tokens` of an expired lease were never started.
    pub fn lease_returned(&mut self, scope: &str, tokens: u64) {
        if let Some(bucket) = &mut self.scope_mut(scope).bucket {
            bucket.give_back(u32::try_from(tokens).unwrap_or(u32::MAX));
        }
    }

    /// The realm's side: spends from `lease` in `scope` from now on (`None`: its own bucket again).
    pub fn set_lease(&mut self, scope: &str, lease: Option<Lease>) {
        self.scope_mut(scope).lease = lease;
    }

    /// The realm's lease in `scope`, if it has one.
    pub fn lease(&self, scope: &str) -> Option<Lease> {
        self.scopes.get(scope).and_then(|s| s.lease)
    }

    /// Wall-clock ends (Unix ms, 0 if none) of the scope's hold and ban, at monotonic `now` and wall `wall_now`.
    pub fn waits_wall(&self, scope: &str, now: u64, wall_now: u64) -> (u64, u64) {
        let wall = |left: u64| if left == 0 { 0 } else { wall_now.saturating_add(left) };
        (wall(self.hold_remaining(scope, now)), wall(self.ban_remaining(scope, now)))
    }
}

impl Budget {
    /// Of a fleet's budget: this realm's own buckets become a share of `processes` (the fleet as it
    /// last counted itself), so that the realms falling back together spend one bucket. A share
    /// keeps what was spent of it (at `now`): a count that comes and goes refills nothing.
    pub fn share_among(&mut self, processes: u64, now: u64) {
        let processes = processes.max(1);
        if processes == self.share_of {
            return;
        }
        self.share_of = processes;
        let config = &self.config;
        for (scope, s) in self.scopes.iter_mut() {
            // What was spent, as a part of the old share, is spent of the new one (rounded up).
            let spent = s.bucket.as_ref().map(|b| (b.capacity().saturating_sub(b.level(now)), b.capacity().max(1)));
            s.bucket = super::own_bucket(config.limits(scope), processes);
            if let (Some(bucket), Some((spent @ 1.., of))) = (s.bucket.as_mut(), spent) {
                let part = spent.saturating_mul(bucket.capacity()).div_ceil(of).min(bucket.capacity());
                bucket.take(u32::try_from(part).unwrap_or(u32::MAX), now);
            }
        }
    }

    /// How many processes this realm's own bucket is a share of (1: the whole bucket).
    pub fn share_of(&self) -> u64 {
        self.share_of
    }

    /// Tokens this realm took from its own bucket that no coordinator has heard of yet.
    pub fn spent_alone(&self, scope: &str) -> u64 {
        self.scopes.get(scope).map_or(0, |s| s.spent_alone)
    }

    /// A visit tells a coordinator of `tokens` spent alone: they are not told again.
    pub fn spent_alone_told(&mut self, scope: &str, tokens: u64) {
        let s = self.scope_mut(scope);
        s.spent_alone = s.spent_alone.saturating_sub(tokens);
    }

    /// The visit that told of `tokens` spent alone was not answered: the next one tells them.
    pub fn spent_alone_again(&mut self, scope: &str, tokens: u64) {
        let s = self.scope_mut(scope);
        s.spent_alone = s.spent_alone.saturating_add(tokens);
    }

    /// The coordinator's side: a realm that could not reach it spent `tokens` of its own share; the
    /// scope's bucket is charged for them now, so that the fleet does not spend them twice — at most
    /// a bucket's worth, leaving it empty rather than in debt for as long as the outage lasted.
    pub fn lease_spent(&mut self, scope: &str, tokens: u64, now: u64) {
        if let Some(bucket) = &mut self.scope_mut(scope).bucket {
            bucket.advance(now);
            let charged = tokens.min(bucket.level(now));
            bucket.take(u32::try_from(charged).unwrap_or(u32::MAX), now);
        }
    }
}
