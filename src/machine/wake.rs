//! A planned sleep ends (or is woken early): the gate is checked again, since time may have been lost.

use super::{Action, Operation, Phase};
use crate::budget::Budget;
use crate::gate;
use crate::reason::Reason;

impl Operation {
    /// The timer of a `Sleep` fired: checks the gate again, since time may have been lost.
    pub fn on_wake(&mut self, now: u64, budget: &mut Budget) -> Action {
        let Phase::Sleeping { until, grant, record } = &self.phase else {
            return self.pending_action();
        };
        let (until, grant, mut record) = (*until, *grant, record.clone());
        let scope = self.start.scope.clone();
        // A wait for room is woken when a slot frees: it looks again at once.
        let for_room = budget.waits_for_room(&scope, &grant);
        if now < until && !for_room {
            // Woken early (another tab published a hold or ban): a ban ends the wait now, a
            // longer hold lengthens it, anything else leaves it as it was.
            let (banned, held) = (budget.ban_remaining(&scope, now), budget.hold_remaining(&scope, now));
            if (banned == 0 || self.start.kind.is_stream()) && now.saturating_add(held.max(banned)) <= until {
                return Action::Sleep { until };
            }
        }
        let banned = budget.ban_remaining(&scope, now);
        if banned > 0 && !self.start.kind.is_stream() {
            budget.release(&scope, grant);
            return self.refuse_on_wake(now, record, Reason::Banned, now);
        }
        // A stream's reconnect waits a ban out like a hold.
        let held = budget.hold_remaining(&scope, now).max(banned);
        if held > 0 {
            // Another operation was throttled meanwhile: its boundary binds this one too.
            let resume = now.saturating_add(held);
            if !gate::fits(resume, self.start.policy.admission_ms(), self.deadline_at) {
                budget.release(&scope, grant);
                let reason = if banned > 0 { Reason::Banned } else { Reason::ProviderWait };
                return self.refuse_on_wake(now, record, reason, resume);
            }
            record.provider_wait_ms = record.provider_wait_ms.max(held);
            record.planned_wait_ms = self.elapsed(resume).saturating_sub(record.decided_at_ms);
            self.phase = Phase::Sleeping { until: resume, grant, record };
            return Action::Sleep { until: resume };
        }
        if !gate::fits(now, self.start.policy.admission_ms(), self.deadline_at) {
            budget.release(&scope, grant);
            // Its timer came late to a wait for room that never came: the cap is why.
            if for_room {
                record.limit = Some(crate::budget::Limit::InFlight);
                return self.refuse_on_wake(now, record, Reason::Budget, now);
            }
            return self.refuse_on_wake(now, record, Reason::Deadline, now);
        }
        self.send(now, record, grant, budget)
    }
}
