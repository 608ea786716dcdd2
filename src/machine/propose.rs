//! The admission gate every proposed attempt passes — attempts, ban, provider wait, deadline and
//! budget, in that order — and then: send now, sleep first, or refuse.

use super::{Action, Operation, Phase, Proposal};
use crate::budget::room::Admit;
use crate::budget::{Ask, Budget, Grant, Limit};
use crate::draw::Draws;
use crate::gate::{self, Fit};
use crate::reason::Reason;
use crate::record::{AttemptRecord, Decision};

impl Operation {
    /// A record for the next attempt, before the gate has decided.
    pub(super) fn proposed_record(&self, now: u64, proposal: Proposal) -> AttemptRecord {
        let decided_at_ms = self.elapsed(now);
        AttemptRecord {
            attempt: self.sent.saturating_add(1),
            decision: Decision::Refused,
            operation: self.start.kind,
            key: self.start.key.clone(),
            scope: Some(self.start.scope.clone()),
            method: self.start.method.clone(),
            url: self.start.url.clone(),
            decided_at_ms,
            start_ms: decided_at_ms,
            end_ms: None,
            outcome: None,
            status: None,
            window_ms: proposal.step.map(|s| s.window_ms),
            sampled_delay_ms: proposal.step.map(|s| s.delay_ms),
            provider_wait_ms: proposal.provider.map_or(0, |p| p.wait_ms),
            retry_after: proposal.provider.map(|p| p.form),
            budget_wait_ms: 0,
            // Refused before the gate, it would still have waited for the provider.
            planned_wait_ms: proposal.step.map_or(0, |s| s.delay_ms).max(proposal.provider.map_or(0, |p| p.wait_ms)),
            remaining_ms: self.deadline_at.saturating_sub(now),
            evidence: None,
            reason: None,
            error: None,
            pending: None,
            store_error: None,
            limit: None,
            hedge: false,
            winner: None,
            held_by: None,
            dropped: None,
            stale_age_ms: None,
        }
    }

    /// Runs the admission gate on a proposal: send now, sleep first, or refuse.
    pub(super) fn propose(&mut self, now: u64, proposal: Proposal, draws: &mut Draws, budget: &mut Budget) -> Action {
        let mut record = self.proposed_record(now, proposal);
        let initial = proposal.step.is_none();
        let policy = &self.start.policy;
        let timeout = policy.admission_ms();
        let scope = self.start.scope.clone();
        if self.sent >= policy.max_attempts() {
            return self.refuse(now, record, Reason::Attempts);
        }
        let reconcile = self.start.priority == crate::budget::Priority::Reconcile;
        let open = budget.breaker_open_ms(&scope, now);
        if open > 0 && !reconcile {
            record.planned_wait_ms = record.planned_wait_ms.max(open);
            record.held_by = budget.breaker_held_by(&scope, now.saturating_add(open));
            return self.refuse(now, record, Reason::CircuitOpen);
        }
        let banned = budget.ban_remaining(&scope, now);
        let stream = self.start.kind.is_stream();
        if banned > 0 && !stream {
            record.provider_wait_ms = record.provider_wait_ms.max(banned);
            record.planned_wait_ms = record.planned_wait_ms.max(banned);
            record.held_by = budget.held_by(&scope, now, true);
            return self.refuse(now, record, Reason::Banned);
        }
        // A stream waits a ban out like a hold, if it ends before the outage's deadline.
        let held = budget.hold_remaining(&scope, now);
        let own = record.provider_wait_ms;
        let provider = own.max(held).max(banned);
        record.provider_wait_ms = provider;
        let draw = record.sampled_delay_ms.unwrap_or(0);
        let spread = if provider > 0 && provider >= draw {
            let room = gate::room(now.saturating_add(provider), timeout, self.deadline_at);
            draws.rng().between(0, policy.retry_after_spread_ms().min(room))
        } else {
            0
        };
        let local = provider.saturating_add(spread).max(draw);
        // Nothing makes the initial attempt wait: it goes while any time is left.
        let at_once = initial && local == 0;
        let fit = match at_once {
            true if gate::admits_initial(now, self.deadline_at) => Fit::Fits,
            true => Fit::TooLate(Reason::Deadline),
            false => gate::before_sleep(now, provider, local, timeout, self.deadline_at),
        };
        if let Fit::TooLate(reason) = fit {
            record.planned_wait_ms = local;
            let reason = if banned > 0 { Reason::Banned } else { reason };
            // The scope's hold or ban, not this call's own response, set the wait: say which response did.
            let scope_wait = if banned > 0 { banned } else { held };
            if matches!(reason, Reason::Banned | Reason::ProviderWait) && scope_wait > 0 && scope_wait >= own {
                record.held_by = budget.held_by(&scope, now, banned > 0);
            }
            return self.refuse(now, record, reason);
        }
        let mut ask = self.ask(now.saturating_add(local));
        if at_once {
            ask.latest = ask.latest.max(now);
        }
        let grant = match budget.admit(&ask) {
            Ok(grant) => grant,
            Err(limit) => {
                record.planned_wait_ms = local;
                record.limit = Some(limit);
                // The wait the bucket would have imposed: the refusal says how far it runs past the deadline.
                if limit == Limit::Tokens {
                    let at = budget.tokens_at(&ask).map(|at| at.saturating_sub(now.saturating_add(local)));
                    record.budget_wait_ms = at.unwrap_or(0);
                }
                return self.refuse(now, record, Reason::Budget);
            }
        };
        let wait = grant.start_at.saturating_sub(now);
        record.budget_wait_ms = grant.start_at.saturating_sub(now.saturating_add(local));
        record.planned_wait_ms = wait;
        if wait == 0 {
            return self.send(now, record, grant, budget);
        }
        self.phase = Phase::Sleeping { until: grant.start_at, grant, record };
        Action::Sleep { until: grant.start_at }
    }

    /// What this operation asks of the budget for its next attempt, starting no earlier than `earliest`.
    pub(crate) fn ask(&self, earliest: u64) -> Ask<'_> {
        Ask {
            scope: &self.start.scope,
            weight: self.start.weight,
            priority: self.start.priority,
            // A stream's reconnects are paced by tokens, not the retry quota, which would end them.
            retry: self.sent > 0 && !self.start.kind.is_stream(),
            after_timeout: self.after_timeout,
            earliest,
            latest: gate::latest_start(self.start.policy.admission_ms(), self.deadline_at),
        }
    }

    pub(super) fn send(&mut self, now: u64, mut record: AttemptRecord, grant: Grant, budget: &mut Budget) -> Action {
        let reconcile = self.start.priority == crate::budget::Priority::Reconcile;
        // A stream's socket stays open for hours: the cap is on requests, not connections.
        if !self.start.kind.is_stream() {
            let latest = gate::latest_start(self.start.policy.admission_ms(), self.deadline_at);
            match budget.room(&self.start.scope, &grant, now, latest) {
                Admit::Go => {}
                Admit::Wait { until } => {
                    record.planned_wait_ms = self.elapsed(until).saturating_sub(record.decided_at_ms);
                    self.phase = Phase::Sleeping { until, grant, record };
                    return Action::Sleep { until };
                }
                Admit::Full => {
                    budget.release(&self.start.scope, grant);
                    record.limit = Some(Limit::InFlight);
                    return self.refuse_on_wake(now, record, Reason::Budget, now);
                }
            }
        }
        if let Err(ms) = budget.breaker_admit(&self.start.scope, now, reconcile, self.attempt_timeout(now)) {
            // Opened (or its probe went) while this one waited: refused, its wait until the probe.
            budget.release(&self.start.scope, grant);
            record.planned_wait_ms = self.elapsed(now.saturating_add(ms)).saturating_sub(record.decided_at_ms);
            return self.refuse_on_wake(now, record, Reason::CircuitOpen, now.saturating_add(ms));
        }
        if let Err(wait) = budget.dispatch(&self.start.scope, grant, now) {
            // Timers fired late and other sends went first: wait for the tokens actually there.
            let resume = now.saturating_add(wait);
            if !gate::fits(resume, self.start.policy.admission_ms(), self.deadline_at) {
                budget.release(&self.start.scope, grant);
                record.limit = Some(Limit::Tokens);
                return self.refuse_on_wake(now, record, Reason::Budget, resume);
            }
            record.budget_wait_ms = record.budget_wait_ms.saturating_add(wait);
            record.planned_wait_ms = self.elapsed(resume).saturating_sub(record.decided_at_ms);
            self.phase = Phase::Sleeping { until: resume, grant, record };
            return Action::Sleep { until: resume };
        }
        budget.board(&self.start.scope, &grant, now.saturating_add(self.attempt_timeout(now)));
        record.decision = Decision::Sent;
        record.start_ms = self.elapsed(now);
        self.after_provider_wait = record.provider_wait_ms > 0;
        self.sent = self.sent.saturating_add(1);
        let attempt = record.attempt;
        self.phase = Phase::InFlight { record, grant };
        Action::Send { attempt, timeout_ms: self.attempt_timeout(now) }
    }

    /// The timeout of an attempt sent at `now`, cut to the time left before the deadline.
    pub(super) fn attempt_timeout(&self, now: u64) -> u64 {
        gate::attempt_timeout(now, self.start.policy.attempt_timeout_ms(), self.deadline_at)
    }
}
