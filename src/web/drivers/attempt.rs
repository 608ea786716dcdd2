//! One attempt of a call on the wire, and the core's verdict on what came back.

use super::call::Call;
use super::driver::Driver;
use super::failed::redacted;
use crate::gate;
use crate::machine::{Action, Operation};
use crate::reason::Reason;
use crate::record::Pending;
use crate::web::platform::clock;
use crate::web::platform::fetch::{self, Attempt};
use crate::web::platform::response::Received;

impl Driver {
    /// Sends the attempt the core admitted, bounded by its timeout and the deadline.
    pub(super) async fn attempt(&self, call: &mut Call, timeout_ms: u64) -> Action {
        let deadline = call.op.deadline_at();
        let now = clock::now();
        if now >= deadline {
            // A slow store ate the time: the attempt never leaves.
            let pending = call.key.as_ref().map(|_| Pending::StoreSet);
            return Action::Stop(call.op.cancel(now, Reason::Deadline, pending, &mut self.budget.borrow_mut()));
        }
        let limit = gate::attempt_timeout(now, timeout_ms, deadline);
        let header = self.budget.borrow().used_weight_header(&call.scope).map(str::to_owned);
        let hedge_ms = call.op.hedge_delay(&mut self.budget.borrow_mut());
        if let Some(ms) = hedge_ms {
            return Box::pin(self.hedged(call, limit, header.as_deref(), ms)).await;
        }
        let mut attempt = fetch::send(&call.template, limit, &call.abort, header.as_deref(), call.read_body).await;
        if self.share.is_none() {
            return self.attempted(call, &mut attempt);
        }
        // Boxed: the lock's wait and the attempt it holds stay out of every unshared call's future.
        Box::pin(async move {
            self.enter_budget(&call.op).await;
            let action = self.attempted(call, &mut attempt);
            self.leave_budget(&call.op);
            action
        })
        .await
    }

    /// The core's verdict on an attempt that came back (under the budget's lock when shared).
    fn attempted(&self, call: &mut Call, attempt: &mut Attempt) -> Action {
        let Call { op, scope, last_response, .. } = call;
        self.verdict(op, scope, last_response, attempt).unwrap_or_else(|| op.pending_action())
    }

    /// The core's verdict on request `attempt` of `op`, the one in its phase; `None`: it waits for
    /// another request of a hedged race. `last` keeps the latest response (an earlier one is discarded).
    pub(super) fn verdict(
        &self,
        op: &mut Operation,
        scope: &str,
        last: &mut Option<Received>,
        attempt: &mut Attempt,
    ) -> Option<Action> {
        let (now, wall) = (clock::now(), clock::wall_now());
        if !attempt.transmitted {
            return Some(Action::Stop(op.cancel(now, Reason::Aborted, None, &mut self.budget.borrow_mut())));
        }
        if let Some(error) = attempt.outcome.error.take() {
            attempt.outcome.error = Some(redacted(&error));
        }
        if let Some(response) = attempt.response.take() {
            if let Some(earlier) = last.replace(response) {
                // A fetch that hands back one object for every attempt keeps its body.
                if !last.as_ref().is_some_and(|latest| latest.is(&earlier)) {
                    earlier.discard();
                }
            }
        }
        let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
        if let Some(used) = attempt.used_weight {
            budget.observe_used_weight(scope, used, now);
        }
        let number = op.in_flight().unwrap_or(0);
        op.on_flight_outcome(now, wall, number, &attempt.outcome, &mut draws, &mut budget)
    }
}
