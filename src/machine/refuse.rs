//! Refused proposals and stops: the records that say why nothing more was sent.

use super::{Action, Operation, Phase};
use crate::reason::{Reason, Stop};
use crate::record::{AttemptRecord, Decision};

impl Operation {
    /// Refuses a proposal before its wait: it would have started after its planned wait.
    pub(super) fn refuse(&mut self, now: u64, record: AttemptRecord, reason: Reason) -> Action {
        let would_start = record.decided_at_ms.saturating_add(record.planned_wait_ms);
        self.push_refused(record, reason, would_start);
        self.stop(now, reason)
    }

    /// Refuses a proposal on waking (or on restore): the decision is taken again, now.
    /// `would_start` is the monotonic instant it could have started.
    pub(crate) fn refuse_on_wake(
        &mut self,
        now: u64,
        mut record: AttemptRecord,
        reason: Reason,
        would_start: u64,
    ) -> Action {
        record.decided_at_ms = self.elapsed(now);
        record.remaining_ms = self.deadline_at.saturating_sub(now);
        let would_start = self.elapsed(would_start);
        self.push_refused(record, reason, would_start);
        self.stop(now, reason)
    }

    /// Writes the record of a proposal that was refused; it would have started at `would_start`.
    pub(super) fn push_refused(&mut self, mut record: AttemptRecord, reason: Reason, would_start: u64) {
        record.decision = Decision::Refused;
        record.start_ms = would_start;
        record.end_ms = Some(record.start_ms.saturating_add(self.start.policy.attempt_timeout_ms()));
        record.reason = Some(reason);
        self.records.push(record);
    }

    pub(super) fn halt(&mut self, now: u64, reason: Reason) -> Stop {
        let stop = Stop { reason, at_ms: self.elapsed(now) };
        self.phase = Phase::Stopped(stop);
        stop
    }

    pub(super) fn stop(&mut self, now: u64, reason: Reason) -> Action {
        Action::Stop(self.halt(now, reason))
    }
}

impl Operation {
    /// Whether a stop for `reason` may serve a kept response instead (`staleIfErrorMs`): only a
    /// read, and only when the provider could not give a current answer — never for a response
    /// that says repeating cannot help, a caller's abort, or an order.
    pub fn may_serve_stale(&self, reason: Reason) -> bool {
        self.start.kind == crate::classify::OperationKind::Read
            && matches!(
                reason,
                Reason::Deadline
                    | Reason::Attempts
                    | Reason::Budget
                    | Reason::Banned
                    | Reason::CircuitOpen
                    | Reason::RateLimited
                    | Reason::ProviderWait
            )
    }

    /// The record that says the failed read served its kept response, `age_ms` old, at `now`; its
    /// `reason` is why the fresh read failed.
    pub fn note_stale(&mut self, now: u64, reason: Reason, age_ms: u64) {
        let mut record = self.proposed_record(now, super::Proposal::default());
        record.decision = Decision::Stale;
        record.start_ms = record.decided_at_ms;
        record.reason = Some(reason);
        record.stale_age_ms = Some(age_ms);
        self.records.push(record);
    }
}
