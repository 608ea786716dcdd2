//! One operation, attempt by attempt: the state machine at the heart of retryline.
//!
//! The shell drives it with events and performs the actions it returns:
//!
//! ```text
//! begin ─▶ start(now) ─▶ Send ─▶ (request) ─▶ on_outcome(now, …) ─▶ Send | Sleep | Stop
//!                         Sleep ─▶ (timer) ─▶ on_wake(now) ─▶ Send | Sleep | Stop
//!          abort(now) at any time ─▶ Stop
//! ```
//!
//! Every decision passes the admission gate ([`crate::gate`]) and leaves an
//! [`AttemptRecord`]. `now` is monotonic milliseconds; the machine never reads a clock.

use crate::backoff::{self, Step};
use crate::budget::{Ask, Budget, Grant, Limit, Priority};
use crate::classify::{classify, Observed, OperationKind};
use crate::draw::Draws;
use crate::gate::{self, Fit};
use crate::policy::Policy;
use crate::reason::{Reason, Stop};
use crate::reconcile::Evidence;
use crate::record::{AttemptRecord, Decision, Pending};
use crate::redact::redact_url;
use crate::retry_after::{self, ProviderWait, RetryAfterForm};

/// What the shell must do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send attempt `attempt` now, aborting it after `timeout_ms`; then call `on_outcome`.
    Send {
        /// The attempt's number: 1 for the initial request.
        attempt: u32,
        /// How long the request may take, ms: the attempt timeout, cut to the time left before the deadline.
        timeout_ms: u64,
    },
    /// Sleep until the monotonic instant `until`; then call `on_wake`.
    Sleep {
        /// The instant to wake at, monotonic ms.
        until: u64,
    },
    /// The operation is over.
    Stop(Stop),
}

/// What the shell saw of a sent attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// How the attempt ended: a response, a timeout, a network error, an abort.
    pub observed: Observed,
    /// The status, for `Observed::Response`.
    pub status: Option<u16>,
    /// The raw `Retry-After` header, if the response had one.
    pub retry_after: Option<String>,
    /// No `Retry-After` could be read, and the platform says one may be there: a cross-origin
    /// response that does not expose it.
    pub retry_after_unreadable: bool,
    /// The raw `Date` header, if the response had one.
    pub date: Option<String>,
    /// What a reconciliation query found (it then decides instead of the status).
    pub evidence: Option<Evidence>,
    /// What the platform said of a failure (already redacted), for the record.
    pub error: Option<String>,
    /// What was still pending when the attempt's timeout cut it short.
    pub pending: Option<Pending>,
}

impl Outcome {
    /// A response with `status`, without `Retry-After` or `Date` headers.
    pub fn response(status: u16) -> Self {
        Outcome { status: Some(status), ..Outcome::failure(Observed::Response) }
    }
    /// An attempt that ended without a status (a timeout, a network error, an abort, an interruption).
    pub fn failure(observed: Observed) -> Self {
        Outcome {
            observed,
            status: None,
            retry_after: None,
            retry_after_unreadable: false,
            date: None,
            evidence: None,
            error: None,
            pending: None,
        }
    }
    /// A status query answered with `evidence`.
    pub fn evidence(evidence: Evidence) -> Self {
        Outcome { evidence: Some(evidence), ..Outcome::failure(Observed::Response) }
    }
}

/// Everything fixed when an operation begins.
#[derive(Clone, Debug)]
pub struct Start {
    /// The retry policy: backoff windows, attempts, timeouts and the deadline.
    pub policy: Policy,
    /// Whether repeating the request is safe (read, idempotent) or not (order).
    pub kind: OperationKind,
    /// Its budget priority: how far into a bucket's reserve its attempts may dip.
    pub priority: Priority,
    /// Where provider limits apply; by default the URL origin.
    pub scope: String,
    /// Budget tokens each attempt spends.
    pub weight: u32,
    /// The operation's identity, e.g. a client order id.
    pub key: Option<String>,
    /// The HTTP method, for the records.
    pub method: Option<String>,
    /// Redacted before it is stored anywhere.
    pub url: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) enum Phase {
    Idle,
    Sleeping { until: u64, grant: Grant, record: AttemptRecord },
    InFlight { record: AttemptRecord, grant: Grant },
    Stopped(Stop),
}

/// One logical request and its retries.
#[derive(Clone, Debug)]
pub struct Operation {
    pub(crate) start: Start,
    /// Monotonic instant of the start; negative after a restore in a younger process.
    pub(crate) origin: i128,
    pub(crate) deadline_at: u64,
    pub(crate) started_at_wall: u64,
    pub(crate) expires_at_wall: u64,
    pub(crate) sent: u32,
    pub(crate) retries_proposed: u32,
    pub(crate) previous_delay: u64,
    /// The attempt in flight followed a provider minimum: a second throttle means `rate-limited`.
    pub(crate) after_provider_wait: bool,
    /// The last attempt timed out: a retry of it costs more of the retry quota.
    pub(crate) after_timeout: bool,
    pub(crate) unresolved: bool,
    pub(crate) records: Vec<AttemptRecord>,
    pub(crate) phase: Phase,
}

/// The wait before a proposed attempt, as far as it is known before the budget is asked.
#[derive(Clone, Copy, Debug, Default)]
struct Proposal {
    step: Option<Step>,
    provider: Option<ProviderWait>,
}

impl Operation {
    /// Begins an operation at monotonic `now`, wall-clock `wall_now` (Unix ms).
    /// The deadline is fixed here: `now + policy.deadlineMs`.
    pub fn begin(mut start: Start, now: u64, wall_now: u64) -> Operation {
        start.url = start.url.as_deref().map(redact_url);
        let deadline_ms = start.policy.deadline_ms();
        Operation {
            previous_delay: start.policy.base_delay_ms(),
            start,
            origin: i128::from(now),
            deadline_at: now.saturating_add(deadline_ms),
            started_at_wall: wall_now,
            expires_at_wall: wall_now.saturating_add(deadline_ms),
            sent: 0,
            retries_proposed: 0,
            after_provider_wait: false,
            after_timeout: false,
            unresolved: false,
            records: Vec::new(),
            phase: Phase::Idle,
        }
    }

    /// Proposes the initial attempt.
    pub fn start(&mut self, now: u64, draws: &mut Draws, budget: &mut Budget) -> Action {
        match self.phase {
            Phase::Idle => self.propose(now, Proposal::default(), draws, budget),
            _ => self.pending_action(),
        }
    }

    /// Feeds the outcome of the attempt in flight; returns what to do next.
    pub fn on_outcome(
        &mut self,
        now: u64,
        wall_now: u64,
        outcome: &Outcome,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Action {
        let Phase::InFlight { record, grant } = &self.phase else {
            return self.pending_action();
        };
        let (mut record, grant) = (record.clone(), *grant);
        let status = outcome.status.unwrap_or(0);
        let mut verdict = match outcome.evidence {
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
        record.end_ms = Some(self.elapsed(now));
        record.outcome = Some(outcome.observed);
        record.status = outcome.status;
        record.evidence = outcome.evidence;
        record.error = outcome.error.clone();
        record.pending = outcome.pending;
        record.reason = Some(verdict);
        self.records.push(record);
        budget.settle(&self.start.scope, grant, verdict == Reason::Success);
        self.after_timeout = outcome.observed == Observed::Timeout;

        let provider = self.provider_wait(now, wall_now, outcome, verdict, budget);
        if verdict == Reason::Throttled && self.after_provider_wait {
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
            Reason::Banned => self.refuse(now, self.proposed_record(now, proposal), Reason::Banned),
            Reason::RateLimited => self.refuse(now, self.proposed_record(now, proposal), Reason::RateLimited),
            _ => self.propose(now, proposal, draws, budget),
        }
    }

    /// The timer of a `Sleep` fired: checks the gate again, since time may have been lost.
    pub fn on_wake(&mut self, now: u64, budget: &mut Budget) -> Action {
        let Phase::Sleeping { until, grant, record } = &self.phase else {
            return self.pending_action();
        };
        let (until, grant, mut record) = (*until, *grant, record.clone());
        let scope = self.start.scope.clone();
        if now < until {
            // Woken early (another tab published a hold or ban): a ban ends the wait now, a
            // longer hold lengthens it, anything else leaves it as it was.
            let (banned, held) = (budget.ban_remaining(&scope, now), budget.hold_remaining(&scope, now));
            if banned == 0 && now.saturating_add(held) <= until {
                return Action::Sleep { until };
            }
        }
        if budget.ban_remaining(&scope, now) > 0 {
            budget.release(&scope, grant);
            return self.refuse_on_wake(now, record, Reason::Banned, now);
        }
        let held = budget.hold_remaining(&scope, now);
        if held > 0 {
            // Another operation was throttled meanwhile: its boundary binds this one too.
            let resume = now.saturating_add(held);
            if !gate::fits(resume, self.start.policy.admission_ms(), self.deadline_at) {
                budget.release(&scope, grant);
                return self.refuse_on_wake(now, record, Reason::ProviderWait, resume);
            }
            record.provider_wait_ms = record.provider_wait_ms.max(held);
            record.planned_wait_ms = self.elapsed(resume).saturating_sub(record.decided_at_ms);
            self.phase = Phase::Sleeping { until: resume, grant, record };
            return Action::Sleep { until: resume };
        }
        if !gate::fits(now, self.start.policy.admission_ms(), self.deadline_at) {
            budget.release(&scope, grant);
            return self.refuse_on_wake(now, record, Reason::Deadline, now);
        }
        self.send(now, record, grant, budget)
    }

    /// The shell gives up before its pending step happened: a planned sleep is refused, an
    /// attempt of the last `Send` that never left is taken back (not counted as sent, and no
    /// unknown outcome), and an operation that never proposed one refuses its initial attempt.
    /// `reason` says why (aborted, deadline, store); `pending`, what was still pending.
    pub fn cancel(&mut self, now: u64, reason: Reason, pending: Option<Pending>, budget: &mut Budget) -> Stop {
        let mut record = match std::mem::replace(&mut self.phase, Phase::Idle) {
            Phase::Sleeping { grant, record, .. } => {
                budget.release(&self.start.scope, grant);
                record
            }
            Phase::InFlight { mut record, .. } => {
                // Its tokens were charged at dispatch and stay spent: the meter can't know it never left.
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

    /// The caller aborted: a pending sleep is cancelled, an attempt in flight is abandoned.
    pub fn abort(&mut self, now: u64, budget: &mut Budget) -> Stop {
        let Phase::InFlight { record, .. } = &self.phase else {
            return self.cancel(now, Reason::Aborted, None, budget);
        };
        let mut record = record.clone();
        record.end_ms = Some(self.elapsed(now));
        record.outcome = Some(Observed::Aborted);
        record.reason = Some(Reason::Aborted);
        self.records.push(record);
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

    /// Never settles later than `at` (monotonic): a call's own deadline can be earlier than
    /// that of the saved operation it resumes.
    pub fn limit_deadline(&mut self, at: u64) {
        self.deadline_at = self.deadline_at.min(at);
    }

    /// Records so far: every attempt sent and every proposal refused, in order.
    pub fn records(&self) -> &[AttemptRecord] {
        &self.records
    }

    /// How the operation ended, once it has.
    pub fn stopped(&self) -> Option<Stop> {
        match self.phase {
            Phase::Stopped(stop) => Some(stop),
            _ => None,
        }
    }

    /// Requests handed to the transport so far.
    pub fn attempts_sent(&self) -> u32 {
        self.sent
    }

    /// An order was transmitted and its result is unknown: it needs reconciliation.
    pub fn is_unresolved(&self) -> bool {
        self.unresolved
    }

    /// Whether the planned sleep honours a provider's minimum (`Retry-After`, a scope hold):
    /// the shell then sleeps a little longer, as its clock and timers may run early.
    pub fn sleeps_for_provider(&self) -> bool {
        matches!(&self.phase, Phase::Sleeping { record, .. } if record.provider_wait_ms > 0)
    }

    /// The absolute deadline, monotonic ms: every attempt's admission is checked against it.
    pub fn deadline_at(&self) -> u64 {
        self.deadline_at
    }

    /// The operation's key (e.g. a client order id), if it has one.
    pub fn key(&self) -> Option<&str> {
        self.start.key.as_deref()
    }

    /// The request's URL, redacted.
    pub fn url(&self) -> Option<&str> {
        self.start.url.as_deref()
    }

    /// The retry policy the operation runs under.
    pub fn policy(&self) -> &Policy {
        &self.start.policy
    }

    /// Milliseconds since the operation started.
    pub fn elapsed(&self, now: u64) -> u64 {
        saturating_u64(i128::from(now) - self.origin)
    }

    /// The action the current phase is waiting on (for calls out of order).
    pub(crate) fn pending_action(&self) -> Action {
        match &self.phase {
            Phase::Sleeping { until, .. } => Action::Sleep { until: *until },
            Phase::InFlight { record, .. } => {
                let started = saturating_u64(self.origin.saturating_add(i128::from(record.start_ms)));
                Action::Send { attempt: record.attempt, timeout_ms: self.attempt_timeout(started) }
            }
            Phase::Stopped(stop) => Action::Stop(*stop),
            Phase::Idle => Action::Stop(Stop { reason: Reason::Aborted, at_ms: 0 }),
        }
    }

    fn next_step(&mut self, draws: &mut Draws) -> Step {
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

    /// Reads the provider's wait from a response, and applies it to the scope.
    fn provider_wait(
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
        let Some(value) = outcome.retry_after.as_deref() else {
            return outcome
                .retry_after_unreadable
                .then_some(ProviderWait { wait_ms: 0, form: RetryAfterForm::Unreadable });
        };
        let wait = retry_after::parse(value, outcome.date.as_deref(), wall_now);
        if wait.form != RetryAfterForm::Unparseable {
            let until = now.saturating_add(wait.wait_ms);
            match verdict {
                Reason::Banned => budget.ban(&self.start.scope, until),
                Reason::Retryable | Reason::Throttled => budget.hold(&self.start.scope, until),
                _ => {}
            }
        }
        Some(wait)
    }

    /// A record for the next attempt, before the gate has decided.
    fn proposed_record(&self, now: u64, proposal: Proposal) -> AttemptRecord {
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
        }
    }

    /// Runs the admission gate on a proposal: send now, sleep first, or refuse.
    fn propose(&mut self, now: u64, proposal: Proposal, draws: &mut Draws, budget: &mut Budget) -> Action {
        let mut record = self.proposed_record(now, proposal);
        let initial = proposal.step.is_none();
        let policy = &self.start.policy;
        let timeout = policy.admission_ms();
        let scope = self.start.scope.clone();
        if self.sent >= policy.max_attempts() {
            return self.refuse(now, record, Reason::Attempts);
        }
        let banned = budget.ban_remaining(&scope, now);
        if banned > 0 {
            record.provider_wait_ms = record.provider_wait_ms.max(banned);
            record.planned_wait_ms = record.planned_wait_ms.max(banned);
            return self.refuse(now, record, Reason::Banned);
        }
        let provider = record.provider_wait_ms.max(budget.hold_remaining(&scope, now));
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
            retry: self.sent > 0,
            after_timeout: self.after_timeout,
            earliest,
            latest: gate::latest_start(self.start.policy.admission_ms(), self.deadline_at),
        }
    }

    fn send(&mut self, now: u64, mut record: AttemptRecord, grant: Grant, budget: &mut Budget) -> Action {
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
        record.decision = Decision::Sent;
        record.start_ms = self.elapsed(now);
        self.after_provider_wait = record.provider_wait_ms > 0;
        self.sent = self.sent.saturating_add(1);
        let attempt = record.attempt;
        self.phase = Phase::InFlight { record, grant };
        Action::Send { attempt, timeout_ms: self.attempt_timeout(now) }
    }

    /// The timeout of an attempt sent at `now`, cut to the time left before the deadline.
    fn attempt_timeout(&self, now: u64) -> u64 {
        gate::attempt_timeout(now, self.start.policy.attempt_timeout_ms(), self.deadline_at)
    }

    /// Refuses a proposal before its wait: it would have started after its planned wait.
    fn refuse(&mut self, now: u64, record: AttemptRecord, reason: Reason) -> Action {
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
    fn push_refused(&mut self, mut record: AttemptRecord, reason: Reason, would_start: u64) {
        record.decision = Decision::Refused;
        record.start_ms = would_start;
        record.end_ms = Some(record.start_ms.saturating_add(self.start.policy.attempt_timeout_ms()));
        record.reason = Some(reason);
        self.records.push(record);
    }

    fn halt(&mut self, now: u64, reason: Reason) -> Stop {
        let stop = Stop { reason, at_ms: self.elapsed(now) };
        self.phase = Phase::Stopped(stop);
        stop
    }

    fn stop(&mut self, now: u64, reason: Reason) -> Action {
        Action::Stop(self.halt(now, reason))
    }
}

/// `x` held to `0..=u64::MAX`.
// Not `i128::clamp`: its assertion brings 128-bit integer formatting into the wasm build.
fn saturating_u64(x: i128) -> u64 {
    u64::try_from(x.max(0)).unwrap_or(u64::MAX)
}
