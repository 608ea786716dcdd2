//! The JSON forms of attempt records, stops, replay reports and budget snapshots.

use super::read::from_loose_by_read;
use super::{Fields, FromLoose, Object, ToJson};
use crate::budget::quota::QuotaSnapshot;
use crate::budget::ScopeSnapshot;
use crate::input::{Invalid, Loose};
use crate::reason::Stop;
use crate::record::{AttemptRecord, HeldBy};
use crate::replay::ReplayReport;

impl ToJson for AttemptRecord {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        object
            .field("attempt", &self.attempt)
            .field("decision", &self.decision)
            .field("operation", &self.operation)
            .field("key", &self.key)
            .field("scope", &self.scope)
            .field("method", &self.method)
            .field("url", &self.url)
            .field("decidedAtMs", &self.decided_at_ms)
            .field("startMs", &self.start_ms)
            .field("endMs", &self.end_ms)
            .field("outcome", &self.outcome)
            .field("status", &self.status)
            .field("windowMs", &self.window_ms)
            .field("sampledDelayMs", &self.sampled_delay_ms)
            .field("providerWaitMs", &self.provider_wait_ms)
            .field("retryAfter", &self.retry_after)
            .field("budgetWaitMs", &self.budget_wait_ms)
            .field("plannedWaitMs", &self.planned_wait_ms)
            .field("remainingMs", &self.remaining_ms)
            .field("evidence", &self.evidence)
            .field("reason", &self.reason)
            .field("error", &self.error)
            .field("pending", &self.pending)
            .field("storeError", &self.store_error)
            .field("limit", &self.limit)
            .field("hedge", &self.hedge)
            .field("winner", &self.winner)
            .field("heldBy", &self.held_by)
            .field("dropped", &self.dropped);
        if let Some(age) = self.stale_age_ms {
            object.field("staleAgeMs", &age);
        }
        object.end();
    }
}

impl FromLoose for AttemptRecord {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let mut f = Fields::of(value)?;
        let record = AttemptRecord {
            attempt: f.take("attempt"),
            decision: f.take("decision"),
            operation: f.take("operation"),
            key: f.take("key"),
            scope: f.take("scope"),
            method: f.take("method"),
            url: f.take("url"),
            decided_at_ms: f.take("decidedAtMs"),
            start_ms: f.take("startMs"),
            end_ms: f.take("endMs"),
            outcome: f.take("outcome"),
            status: f.take("status"),
            window_ms: f.take("windowMs"),
            sampled_delay_ms: f.take("sampledDelayMs"),
            provider_wait_ms: f.take("providerWaitMs"),
            retry_after: f.take("retryAfter"),
            budget_wait_ms: f.take("budgetWaitMs"),
            planned_wait_ms: f.take("plannedWaitMs"),
            remaining_ms: f.take("remainingMs"),
            evidence: f.take("evidence"),
            reason: f.take("reason"),
            error: f.take("error"),
            pending: f.take("pending"),
            store_error: f.take("storeError"),
            limit: f.take("limit"),
            hedge: f.take("hedge"),
            winner: f.take("winner"),
            held_by: f.take("heldBy"),
            dropped: f.take("dropped"),
            stale_age_ms: f.take("staleAgeMs"),
        };
        f.finish(record)
    }
}

impl ToJson for Box<HeldBy> {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("method", &self.method)
            .field("url", &self.url)
            .field("status", &self.status)
            .field("atWallMs", &self.at_wall_ms)
            .field("untilWallMs", &self.until_wall_ms)
            .end();
    }
}

impl FromLoose for Box<HeldBy> {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let mut f = Fields::of(value)?;
        let held_by = HeldBy {
            method: f.take("method"),
            url: f.take("url"),
            status: f.take("status"),
            at_wall_ms: f.take("atWallMs"),
            until_wall_ms: f.take("untilWallMs"),
        };
        f.finish(Box::new(held_by))
    }
}

impl ToJson for Stop {
    fn write_json(&self, out: &mut String) {
        Object::new(out).field("reason", &self.reason).field("atMs", &self.at_ms).end();
    }
}

impl FromLoose for Stop {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let f = Fields::of(value)?;
        Ok(Stop { reason: f.read("reason")?, at_ms: f.read("atMs")? })
    }
}

impl ToJson for ReplayReport {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("wireRequests", &self.wire_requests)
            .field("records", &self.records)
            .field("stop", &self.stop)
            .end();
    }
}

impl ToJson for QuotaSnapshot {
    fn write_json(&self, out: &mut String) {
        Object::new(out).field("available", &self.available).field("capacity", &self.capacity).end();
    }
}

impl ToJson for ScopeSnapshot {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("scope", &self.scope)
            .field("tokens", &self.tokens)
            .field("capacity", &self.capacity)
            .field("retryQuota", &self.retry_quota)
            .field("heldUntil", &self.held_until)
            .field("holdRemainingMs", &self.hold_remaining_ms)
            .field("bannedUntil", &self.banned_until)
            .field("banRemainingMs", &self.ban_remaining_ms)
            .field("queued", &self.queued)
            .field("maxInFlight", &self.max_in_flight)
            .field("inFlight", &self.in_flight)
            .field("waitingForRoom", &self.waiting_for_room)
            .field("breaker", &self.breaker)
            .field("breakerOpenUntil", &self.breaker_open_until)
            .field("sharing", &self.sharing)
            .field("shareOf", &self.share_of)
            .end();
    }
}
