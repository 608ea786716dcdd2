//! The shell gives up on a pending step, or the caller aborts.

use super::{Operation, Phase, Proposal};
use crate::budget::Budget;
use crate::classify::Observed;
use crate::reason::{Reason, Stop};
use crate::record::Pending;

impl Operation {
    /// The shell gives up before its pending step happened: a planned sleep is refused, an
    /// attempt of the last `Send` that never left is taken back (not counted as sent, and no
    /// unknown outcome), and an operation that never proposed one refuses its initial attempt.
    /// `reason` says why (aborted, deadline, store); `pending`, what was still pending.
    pub fn cancel(&mut self, now: u64, reason: Reason, pending: Option<Pending>, budget: &mut Budget) -> Stop {
        self.abandon_hedges(now, budget);
        self.race.clear();
        let mut record = match std::mem::replace(&mut self.phase, Phase::Idle) {
            Phase::Sleeping { grant, record, .. } => {
                budget.release(&self.start.scope, grant);
                record
            }
            Phase::InFlight { mut record, grant } => {
                // Its tokens were charged at dispatch and stay spent: the meter can't know it never left.
                // Its retry-quota cost comes back: a retry never sent spends no quota.
                budget.take_back(&self.start.scope, grant);
                budget.breaker_release(&self.start.scope);
                self.sent = self.sent.saturating_sub(1);
                record.planned_wait_ms = record.start_ms.saturating_sub(record.decided_at_ms);
                record
            }
            Phase::Stopped(stop) => {
                self.phase = Phase::Stopped(stop);
                return stop;
            }
            Phase::Idle => self.proposed_record(now, Proposal::default()),
        };
        record.pending = pending;
        let would_start = record.decided_at_ms.saturating_add(record.planned_wait_ms);
        self.push_refused(record, reason, would_start);
        self.halt(now, reason)
    }

    /// The caller's `policy.shouldRetry` declined the retry the core had admitted (its planned
    /// sleep or send, not yet begun): refused as `non-retryable`, the record's `limit` naming the
    /// predicate and `error` what it threw, if it threw. It can only stop: nothing is sent for it.
    pub fn veto(&mut self, now: u64, threw: Option<String>, budget: &mut Budget) -> Stop {
        let stop = self.cancel(now, Reason::NonRetryable, None, budget);
        if let Some(record) = self.records.last_mut().filter(|r| r.decision == crate::record::Decision::Refused) {
            record.limit = Some(crate::budget::Limit::ShouldRetry);
            record.error = threw;
        }
        stop
    }

    /// The caller aborted: a pending sleep is cancelled, an attempt in flight is abandoned.
    pub fn abort(&mut self, now: u64, budget: &mut Budget) -> Stop {
        self.abandon_hedges(now, budget);
        self.race.clear();
        let Phase::InFlight { record, .. } = &self.phase else {
            return self.cancel(now, Reason::Aborted, None, budget);
        };
        let mut record = record.clone();
        record.end_ms = Some(self.elapsed(now));
        record.outcome = Some(Observed::Aborted);
        record.reason = Some(Reason::Aborted);
        self.records.push(record);
        budget.breaker_release(&self.start.scope);
        // It was transmitted: an order may have executed.
        self.unresolved |= self.start.kind.is_order();
        self.halt(now, Reason::Aborted)
    }

    /// A store failure after the operation's last step: the outcome stands, and its last
    /// record says that the store could not keep it.
    pub fn note_store_failure(&mut self, detail: String) {
        if let Some(record) = self.records.last_mut() {
            record.store_error = Some(detail);
        }
    }

    /// Why its last refusal was made, when the reason alone does not say (the page went offline).
    pub fn note_refusal(&mut self, why: &str) {
        if let Some(record) = self.records.last_mut().filter(|r| r.decision == crate::record::Decision::Refused) {
            record.error = Some(why.to_owned());
        }
    }

    /// How the connection before this outage ended, on the record of its first attempt (pending,
    /// or already refused).
    pub fn note_drop(&mut self, words: &str) {
        let record = match &mut self.phase {
            Phase::Sleeping { record, .. } | Phase::InFlight { record, .. } => Some(record),
            _ => self.records.last_mut(),
        };
        if let Some(record) = record {
            record.dropped = Some(words.to_owned());
        }
    }

    /// Never settles later than `at` (monotonic): a call's own deadline can be earlier than
    /// that of the saved operation it resumes.
    pub fn limit_deadline(&mut self, at: u64) {
        self.deadline_at = self.deadline_at.min(at);
    }
}
