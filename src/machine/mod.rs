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
//!
//! One file per event, as quinn-proto splits its connection: [`begin`](Operation::begin) and
//! [`start`](Operation::start) in `begin.rs`, [`on_outcome`](Operation::on_outcome) in `outcome.rs`,
//! [`on_wake`](Operation::on_wake) in `wake.rs`, [`cancel`](Operation::cancel) and
//! [`abort`](Operation::abort) in `cancel.rs`; the gate every proposal passes in `propose.rs`, and
//! the records of refusals and stops in `refuse.rs`. This file holds the types and what they tell.

mod begin;
mod cancel;
mod hedge;
mod outcome;
mod propose;
mod refuse;
mod wake;

use crate::backoff::Step;
use crate::budget::{Grant, Priority};
use crate::classify::{Observed, OperationKind};
use crate::policy::Policy;
use crate::reason::{Reason, Stop};
use crate::reconcile::Evidence;
use crate::record::{AttemptRecord, Pending};
use crate::retry_after::{ProviderWait, RetryAfterForm};

/// Added to a sleep that honours a provider's minimum. The shell's readings are whole milliseconds
/// rounded up, and timers may fire up to a clock step early (workerd schedules them from its own
/// millisecond clock; Node's can fire a millisecond early): the provider's wait, measured at its
/// server, must not come out shorter.
pub const PROVIDER_SLACK_MS: u64 = 2;

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
    /// A reset header (`RateLimit-Reset` and kin, [`crate::retry_after::RESET_HEADERS`]) of a
    /// response without `Retry-After`: its form (which header) and raw value.
    pub reset: Option<(RetryAfterForm, String)>,
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
            reset: None,
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
    /// Hedges in flight beside the phase's request (not kept by a save: a restore resumes one).
    pub(crate) hedges: Vec<hedge::Flight>,
    /// The attempts of the hedged race under way, the first one included (empty: no race).
    pub(crate) race: Vec<u32>,
    /// Hedges proposed so far, sent or refused: at most `policy.maxHedges` per operation.
    pub(crate) hedges_proposed: u32,
}

/// The wait before a proposed attempt, as far as it is known before the budget is asked.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Proposal {
    pub(crate) step: Option<Step>,
    pub(crate) provider: Option<ProviderWait>,
}
impl Operation {
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

    /// How long the shell's timer for the planned sleep runs from `now`: to its instant, plus
    /// [`PROVIDER_SLACK_MS`] when it honours a provider's minimum.
    pub fn timer_ms(&self, now: u64) -> u64 {
        let until = match &self.phase {
            Phase::Sleeping { until, .. } => *until,
            _ => now,
        };
        let slack = if self.sleeps_for_provider() { PROVIDER_SLACK_MS } else { 0 };
        until.saturating_sub(now).saturating_add(slack)
    }

    /// The absolute deadline, monotonic ms: every attempt's admission is checked against it.
    pub fn deadline_at(&self) -> u64 {
        self.deadline_at
    }

    /// The operation's key (e.g. a client order id), if it has one.
    pub fn key(&self) -> Option<&str> {
        self.start.key.as_deref()
    }

    /// What kind of operation it is.
    pub fn kind(&self) -> crate::classify::OperationKind {
        self.start.kind
    }

    /// The request's method, if it is one (a status query has none).
    pub fn method(&self) -> Option<&str> {
        self.start.method.as_deref()
    }

    /// Where its provider limits apply.
    pub fn scope(&self) -> &str {
        &self.start.scope
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

    /// The next attempt as planned, while it is slept for or on the wire: its window, draw,
    /// provider minimum and planned wait (what `onRetry` and a sleep's span event say).
    pub fn planned(&self) -> Option<&AttemptRecord> {
        match &self.phase {
            Phase::Sleeping { record, .. } | Phase::InFlight { record, .. } => Some(record),
            _ => None,
        }
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
}

/// `x` held to `0..=u64::MAX`.
// Not `i128::clamp`: its assertion brings 128-bit integer formatting into the wasm build.
pub(crate) fn saturating_u64(x: i128) -> u64 {
    u64::try_from(x.max(0)).unwrap_or(u64::MAX)
}
