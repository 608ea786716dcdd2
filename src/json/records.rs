//! The JSON forms of attempt records, stops, replay reports and budget snapshots.

use super::{Fields, FromLoose, Object, ToJson};
use crate::budget::quota::QuotaSnapshot;
use crate::budget::ScopeSnapshot;
use crate::input::{InvalidOption, Loose};
use crate::reason::Stop;
use crate::record::AttemptRecord;
use crate::replay::ReplayReport;

impl ToJson for AttemptRecord {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
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
            .end();
    }
}

impl FromLoose for AttemptRecord {
    fn from_loose(value: &Loose) -> Result<Self, InvalidOption> {
        let f = Fields::of(value)?;
        Ok(AttemptRecord {
            attempt: f.read("attempt")?,
            decision: f.read("decision")?,
            operation: f.read("operation")?,
            key: f.read("key")?,
            scope: f.read("scope")?,
            method: f.read("method")?,
            url: f.read("url")?,
            decided_at_ms: f.read("decidedAtMs")?,
            start_ms: f.read("startMs")?,
            end_ms: f.read("endMs")?,
            outcome: f.read("outcome")?,
            status: f.read("status")?,
            window_ms: f.read("windowMs")?,
            sampled_delay_ms: f.read("sampledDelayMs")?,
            provider_wait_ms: f.read("providerWaitMs")?,
            retry_after: f.read("retryAfter")?,
            budget_wait_ms: f.read("budgetWaitMs")?,
            planned_wait_ms: f.read("plannedWaitMs")?,
            remaining_ms: f.read("remainingMs")?,
            evidence: f.read("evidence")?,
            reason: f.read("reason")?,
            error: f.read("error")?,
            pending: f.read("pending")?,
            store_error: f.read("storeError")?,
            limit: f.read("limit")?,
        })
    }
}

impl ToJson for Stop {
    fn write_json(&self, out: &mut String) {
        Object::new(out).field("reason", &self.reason).field("atMs", &self.at_ms).end();
    }
}

impl FromLoose for Stop {
    fn from_loose(value: &Loose) -> Result<Self, InvalidOption> {
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
            .end();
    }
}
