//! Hedged reads: a late attempt of a read gets a second request, and the first usable answer
//! wins ([`crate::hedging`]). Each hedge passes what a retry passes — the attempts, the breaker,
//! the scope's bans and holds, the deadline, its tokens and the retry quota — and leaves its
//! own record (`hedge: true`); every record of the race names the `winner`. A build without
//! hedges (`HEDGES` false) never starts a race, and its checks let the compiler drop this code.
//!
//! ```text
//! Send ─(no answer after hedge_delay)─▶ hedge(now) ─▶ Send (a second request) | refused (a record)
//! on_flight_outcome(attempt): a retryable failure while another flies ─▶ wait for it (None)
//!                             anything else wins ─▶ the others abandoned; Send | Sleep | Stop
//! ```

use super::{Action, Operation, Outcome, Phase, Proposal};
use crate::budget::{Budget, Grant, Limit};
use crate::classify::Observed;
use crate::draw::Draws;
use crate::gate;
use crate::hedging::{HedgeAfter, HEDGES};
use crate::reason::Reason;
use crate::record::{AttemptRecord, Decision, Pending};
use crate::sorted_map::remove_at;

/// A request in flight beside the one of the phase.
#[derive(Clone, Debug)]
pub(crate) struct Flight {
    pub(crate) record: AttemptRecord,
    pub(crate) grant: Grant,
}

impl Operation {
    /// How long after its last request an operation in flight waits for an answer before it
    /// hedges, ms; `None`: it does not hedge (off, an order or a stream, no hedge left, or no
    /// `"p95"` known yet for the scope).
    pub fn hedge_delay(&self, budget: &mut Budget) -> Option<u64> {
        let policy = &self.start.policy;
        let kind = self.start.kind;
        let flying = matches!(self.phase, Phase::InFlight { .. });
        if !HEDGES || !flying || kind.is_order() || kind.is_stream() || self.hedges_proposed >= policy.max_hedges() {
            return None;
        }
        match policy.hedge_after() {
            HedgeAfter::Fixed(ms) => Some(ms),
            HedgeAfter::P95 => budget.latency_p95(&self.start.scope),
        }
    }

    /// Hedges the attempt in flight at `now`: `Some(Send)` for the new request, or `None` if it
    /// was refused (its record says why; the requests in flight go on) or there is no hedge to make.
    pub fn hedge(&mut self, now: u64, budget: &mut Budget) -> Option<Action> {
        self.hedge_delay(budget)?;
        self.hedges_proposed = self.hedges_proposed.saturating_add(1);
        let mut record = self.proposed_record(now, Proposal::default());
        record.hedge = true;
        let scope = self.start.scope.clone();
        let policy = &self.start.policy;
        // An open breaker refuses below, where it also refuses a half-open one whose probe is out.
        let refused = if self.sent >= policy.max_attempts() {
            Some(Reason::Attempts)
        } else if budget.ban_remaining(&scope, now) > 0 {
            Some(Reason::Banned)
        } else if budget.hold_remaining(&scope, now) > 0 {
            Some(Reason::ProviderWait)
        } else if !gate::fits(now, policy.admission_ms(), self.deadline_at) {
            Some(Reason::Deadline)
        } else {
            None
        };
        if let Some(reason) = refused {
            return self.refuse_hedge(record, reason, None);
        }
        // A hedge repeats the request: tokens now, and the retry quota, as a retry would spend them.
        let mut ask = self.ask(now);
        (ask.retry, ask.after_timeout, ask.latest) = (true, false, now);
        let grant = match budget.admit(&ask) {
            Ok(grant) => grant,
            Err(limit) => return self.refuse_hedge(record, Reason::Budget, Some(limit)),
        };
        // A hedge counts like any request, and never waits for room: it is late already.
        if budget.room(&scope, &grant, now, now) != crate::budget::room::Admit::Go {
            budget.release(&scope, grant);
            return self.refuse_hedge(record, Reason::Budget, Some(Limit::InFlight));
        }
        if budget.breaker_admit(&scope, now, false, self.attempt_timeout(now)).is_err() {
            budget.release(&scope, grant);
            return self.refuse_hedge(record, Reason::CircuitOpen, None);
        }
        if budget.dispatch(&scope, grant, now).is_err() {
            budget.release(&scope, grant);
            budget.breaker_release(&scope);
            return self.refuse_hedge(record, Reason::Budget, Some(Limit::Tokens));
        }
        budget.board(&scope, &grant, now.saturating_add(self.attempt_timeout(now)));
        if let (true, Phase::InFlight { record: first, .. }) = (self.race.is_empty(), &self.phase) {
            self.race.push(first.attempt);
        }
        record.decision = Decision::Sent;
        self.sent = self.sent.saturating_add(1);
        let attempt = record.attempt;
        self.race.push(attempt);
        self.hedges.push(Flight { record, grant });
        Some(Action::Send { attempt, timeout_ms: self.attempt_timeout(now) })
    }

    fn refuse_hedge(&mut self, mut record: AttemptRecord, reason: Reason, limit: Option<Limit>) -> Option<Action> {
        record.limit = limit;
        let at = record.decided_at_ms;
        self.push_refused(record, reason, at);
        None
    }

    /// Feeds the outcome of request `attempt`, one of those in flight. `None`: it failed in a
    /// way worth a retry while another request of the race still flies: wait for that one.
    pub fn on_flight_outcome(
        &mut self,
        now: u64,
        wall_now: u64,
        attempt: u32,
        outcome: &Outcome,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Option<Action> {
        if !self.select_flight(attempt) {
            return Some(self.pending_action());
        }
        if !HEDGES || self.race.is_empty() {
            return Some(self.on_outcome(now, wall_now, outcome, draws, budget));
        }
        let Some((verdict, provider)) = self.conclude(now, wall_now, outcome, draws, budget) else {
            return Some(self.pending_action());
        };
        // `remove_at`, not `Vec::remove`: its panic would bring formatting code into the wasm.
        let next = if verdict.proposes_retry() { remove_at(&mut self.hedges, 0) } else { None };
        if let Some(next) = next {
            // Its hold or ban is on the scope already; the next answer decides.
            self.phase = Phase::InFlight { record: next.record, grant: next.grant };
            return None;
        }
        self.abandon_hedges(now, budget);
        let race = std::mem::take(&mut self.race);
        for r in self.records.iter_mut().filter(|r| r.is_sent() && race.contains(&r.attempt)) {
            r.winner = Some(attempt);
        }
        Some(self.decide(now, verdict, provider, draws, budget))
    }

    /// The number of the request the next outcome is for, if one is in flight.
    pub fn in_flight(&self) -> Option<u32> {
        match &self.phase {
            Phase::InFlight { record, .. } => Some(record.attempt),
            _ => None,
        }
    }

    /// Puts request `attempt` in the phase, the one the next outcome is for; false if it is not in flight.
    pub fn select_flight(&mut self, attempt: u32) -> bool {
        let Phase::InFlight { record, .. } = &self.phase else {
            return false;
        };
        if record.attempt == attempt {
            return true;
        }
        if !HEDGES {
            return false;
        }
        let at = self.hedges.iter().position(|f| f.record.attempt == attempt);
        let Some(chosen) = at.and_then(|at| remove_at(&mut self.hedges, at)) else {
            return false;
        };
        let Phase::InFlight { record, grant } =
            std::mem::replace(&mut self.phase, Phase::InFlight { record: chosen.record, grant: chosen.grant })
        else {
            return false;
        };
        self.hedges.push(Flight { record, grant });
        true
    }

    /// The requests still in flight beside the phase's are aborted: their records say so, their
    /// tokens and retry quota stay spent, and a probe slot they held comes back.
    pub(super) fn abandon_hedges(&mut self, now: u64, budget: &mut Budget) {
        if !HEDGES {
            return;
        }
        let end = self.elapsed(now);
        for Flight { mut record, grant } in std::mem::take(&mut self.hedges) {
            record.end_ms = Some(end);
            record.outcome = Some(Observed::Aborted);
            record.reason = Some(Reason::Aborted);
            record.pending = Some(Pending::Response);
            self.records.push(record);
            budget.breaker_release(&self.start.scope);
            budget.settle(&self.start.scope, grant, false);
        }
    }
}
