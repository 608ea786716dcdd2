//! What came of the attempt in flight: its verdict, the provider's wait, and the next proposal.

use super::{Action, Operation, Outcome, Phase, Proposal};
use crate::backoff::{self, Step};
use crate::budget::{Budget, Cause};
use crate::classify::{classify, Observed};
use crate::draw::Draws;
use crate::reason::Reason;
use crate::retry_after::{self, ProviderWait, RetryAfterForm};

impl Operation {
    /// Feeds the outcome of the attempt in flight; returns what to do next.
    pub fn on_outcome(
        &mut self,
        now: u64,
        wall_now: u64,
        outcome: &Outcome,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Action {
        match self.conclude(now, wall_now, outcome, draws, budget) {
            Some((verdict, provider)) => self.decide(now, verdict, provider, draws, budget),
            None => self.pending_action(),
        }
    }

    /// Ends the attempt in flight with `outcome`: its record, the breaker's count, its grant
    /// settled, the provider's wait applied to the scope. Its verdict and that wait; `None` if
    /// no attempt was in flight.
    pub(super) fn conclude(
        &mut self,
        now: u64,
        wall_now: u64,
        outcome: &Outcome,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Option<(Reason, Option<ProviderWait>)> {
        let Phase::InFlight { record, grant } = &self.phase else {
            return None;
        };
        let (mut record, grant) = (record.clone(), *grant);
        let status = outcome.status.unwrap_or(0);
        let verdict = match outcome.evidence {
            // `not-found` proves nothing: the query is repeated, like a transient failure.
            Some(evidence) if outcome.observed == Observed::Response => {
                if evidence.resolves() {
                    Reason::Success
                } else {
                    Reason::Retryable
                }
            }
            _ => classify(self.start.kind, outcome.observed, status, self.start.policy.retry_on()),
        };
        let took = self.elapsed(now).saturating_sub(record.start_ms);
        record.end_ms = Some(self.elapsed(now));
        record.outcome = Some(outcome.observed);
        record.status = outcome.status;
        record.evidence = outcome.evidence;
        record.error = outcome.error.clone();
        record.pending = outcome.pending;
        record.reason = Some(verdict);
        self.records.push(record);
        // The breaker counts the provider's failures: timeouts, network errors and 5xx, not 4xx.
        let failed = matches!(outcome.observed, Observed::Timeout | Observed::NetworkError)
            || (outcome.observed == Observed::Response && status >= 500 && outcome.evidence.is_none());
        match outcome.observed {
            Observed::Aborted | Observed::Interrupted => budget.breaker_release(&self.start.scope),
            _ => budget.breaker_observe(&self.start.scope, now, failed, draws.rng()),
        }
        if failed {
            budget.breaker_failed(&self.start.scope, || self.cause(now, wall_now, outcome));
        }
        // A hedge's `"p95"` learns from every answer of the scope, and from the timeouts of its tail
        // (a build without hedges never reads it).
        let learns = matches!(outcome.observed, Observed::Response | Observed::Timeout) && !self.start.kind.is_stream();
        if learns && crate::hedging::HEDGES {
            budget.observe_latency(&self.start.scope, took);
        }
        budget.settle(&self.start.scope, grant, verdict == Reason::Success);
        self.after_timeout = outcome.observed == Observed::Timeout;
        let provider = self.provider_wait(now, wall_now, outcome, verdict, budget);
        Some((verdict, provider))
    }

    /// What follows an attempt that ended with `verdict`: a stop, or the next proposal.
    pub(super) fn decide(
        &mut self,
        now: u64,
        mut verdict: Reason,
        provider: Option<ProviderWait>,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Action {
        let stream = self.start.kind.is_stream();
        if verdict == Reason::Throttled && self.after_provider_wait && !stream {
            verdict = Reason::RateLimited;
        }
        match verdict {
            Reason::UnknownOutcome => self.unresolved = true,
            Reason::Aborted if self.start.kind.is_order() => self.unresolved = true,
            _ => {}
        }
        if !verdict.proposes_retry() {
            return self.stop(now, verdict);
        }
        let proposal = Proposal { step: Some(self.next_step(draws)), provider };
        match verdict {
            // A stream's refused upgrade with a ban waits it out (see `propose`).
            Reason::Banned if stream => self.propose(now, proposal, draws, budget),
            Reason::Banned => self.refuse(now, self.proposed_record(now, proposal), Reason::Banned),
            Reason::RateLimited => self.refuse(now, self.proposed_record(now, proposal), Reason::RateLimited),
            _ => self.propose(now, proposal, draws, budget),
        }
    }

    pub(super) fn next_step(&mut self, draws: &mut Draws) -> Step {
        let policy = &self.start.policy;
        let n = self.retries_proposed;
        self.retries_proposed = n.saturating_add(1);
        let step = match draws.next_scripted() {
            Some(delay) => Step {
                window_ms: backoff::window_for(policy, n, self.previous_delay),
                delay_ms: delay.min(backoff::MAX_TIMER_MS),
            },
            None => backoff::sample(policy, n, self.previous_delay, draws.rng()),
        };
        self.previous_delay = step.delay_ms;
        step
    }

    /// This operation's request and `outcome`, as the cause of a hold, a ban or a breaker's opening.
    fn cause(&self, now: u64, wall_now: u64, outcome: &Outcome) -> Cause {
        Cause {
            // A stream's connection attempt is a WebSocket upgrade: a GET.
            method: self.start.method.clone().unwrap_or_else(|| "GET".to_owned()),
            url: self.start.url.clone().unwrap_or_default(),
            status: outcome.status.filter(|_| outcome.observed == Observed::Response),
            at: now,
            at_wall: wall_now,
        }
    }

    /// Reads the provider's wait from a response, and applies it to the scope.
    pub(super) fn provider_wait(
        &self,
        now: u64,
        wall_now: u64,
        outcome: &Outcome,
        verdict: Reason,
        budget: &mut Budget,
    ) -> Option<ProviderWait> {
        if outcome.observed != Observed::Response {
            return None;
        }
        let date = outcome.date.as_deref();
        let retry_after = outcome.retry_after.as_deref().map(|value| retry_after::parse(value, date, wall_now));
        // `Retry-After` first; a reset header only where it is absent or unreadable as a wait.
        let reset = match retry_after {
            Some(wait) if wait.form != RetryAfterForm::Unparseable => None,
            _ => {
                outcome.reset.as_ref().and_then(|(form, value)| retry_after::parse_reset(value, *form, date, wall_now))
            }
        };
        let Some(wait) = reset.or(retry_after) else {
            return outcome
                .retry_after_unreadable
                .then_some(ProviderWait { wait_ms: 0, form: RetryAfterForm::Unreadable });
        };
        if wait.form != RetryAfterForm::Unparseable {
            let until = now.saturating_add(wait.wait_ms);
            let cause = || self.cause(now, wall_now, outcome);
            match verdict {
                Reason::Banned => budget.ban_for(&self.start.scope, until, cause()),
                Reason::Retryable | Reason::Throttled => budget.hold_for(&self.start.scope, until, cause()),
                _ => {}
            }
        }
        Some(wait)
    }
}
