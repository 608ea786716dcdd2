//! Durable state: an operation saved as plain data, and restored in another process.
//!
//! Monotonic instants mean nothing in another process, so a snapshot keeps wall-clock
//! times (the original expiry, the end of a sleep or a provider hold) and the time
//! that was left when it was saved. On restore the remaining time is the *smaller*
//! of the two readings: a wall clock that went backwards never lengthens the budget.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Grant, Priority};
use crate::classify::{Observed, OperationKind};
use crate::draw::Draws;
use crate::gate;
use crate::json::push_u64;
use crate::machine::{Action, Operation, Outcome, Phase, Start};
use crate::policy::Policy;
use crate::reason::{Reason, Stop};
use crate::record::AttemptRecord;

/// The version of [`OperationState`] this build writes and reads.
pub const STATE_VERSION: u32 = 1;

/// An operation as plain data (camelCase JSON), for a store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OperationState {
    /// The format's version ([`STATE_VERSION`]); a state in any other is refused on restore.
    pub version: u32,
    /// The operation's retry policy.
    pub policy: Policy,
    /// The operation's kind (read, idempotent, order).
    pub operation: OperationKind,
    /// Its budget priority.
    pub priority: Priority,
    /// The budget scope its attempts count against.
    pub scope: String,
    /// Budget tokens each attempt spends.
    pub weight: u32,
    /// The operation's key (e.g. a client order id), if it has one.
    pub key: Option<String>,
    /// The HTTP method, if any.
    pub method: Option<String>,
    /// The request's URL, redacted.
    pub url: Option<String>,
    /// When the operation began, wall-clock Unix ms.
    pub started_at_wall_ms: u64,
    /// The absolute expiry, fixed when the operation began; never moved.
    pub expires_at_wall_ms: u64,
    /// When this state was saved, wall-clock Unix ms.
    pub saved_at_wall_ms: u64,
    /// Time left before the deadline when saved, by the monotonic clock.
    pub remaining_ms: u64,
    /// Requests sent so far.
    pub attempts_sent: u32,
    /// Retries proposed so far: the next one's backoff window is numbered from it.
    pub retries_proposed: u32,
    /// The last delay drawn, ms (decorrelated jitter grows from it).
    pub previous_delay_ms: u64,
    /// The attempt in flight followed a provider's minimum: another 429 then stops it as `rate-limited`.
    pub after_provider_wait: bool,
    /// The last attempt timed out: a retry costs more of the retry quota (absent in older states: false).
    #[serde(default)]
    pub after_timeout: bool,
    /// An order was transmitted and its outcome is unknown: the key is refused until reconciled.
    pub unresolved: bool,
    /// When the scope's provider hold ends, wall-clock Unix ms (`None`: not held).
    pub hold_until_wall_ms: Option<u64>,
    /// When the scope's ban ends, wall-clock Unix ms (`None`: not banned).
    pub ban_until_wall_ms: Option<u64>,
    /// Where the operation was: idle, sleeping, in flight or stopped.
    pub phase: PhaseState,
    /// Every attempt record so far, sent or refused.
    pub records: Vec<AttemptRecord>,
}

/// Where the operation was when saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PhaseFields", into = "PhaseFields")]
pub enum PhaseState {
    /// Begun, with no attempt proposed yet.
    Idle,
    /// Waiting to send its next attempt.
    Sleeping {
        /// When the sleep ends, wall-clock Unix ms.
        wake_at_wall_ms: u64,
        /// The record of the attempt it waits to send.
        record: AttemptRecord,
    },
    /// An attempt was on the wire; on resume its outcome counts as lost (`interrupted`).
    InFlight {
        /// The record of the attempt that was on the wire.
        record: AttemptRecord,
    },
    /// The operation is over.
    Stopped {
        /// How and when it ended.
        stop: Stop,
    },
}

/// The JSON form of [`PhaseState`]: a flat object tagged by `phase`. (A flat struct, not
/// serde's internally tagged enum, whose buffering would cost the wasm build kilobytes.)
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PhaseFields {
    phase: PhaseName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wake_at_wall_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    record: Option<AttemptRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stop: Option<Stop>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum PhaseName {
    Idle,
    Sleeping,
    InFlight,
    Stopped,
}

impl TryFrom<PhaseFields> for PhaseState {
    type Error = &'static str;

    fn try_from(f: PhaseFields) -> Result<Self, Self::Error> {
        match (f.phase, f.wake_at_wall_ms, f.record, f.stop) {
            (PhaseName::Idle, ..) => Ok(PhaseState::Idle),
            (PhaseName::Sleeping, Some(wake_at_wall_ms), Some(record), _) => {
                Ok(PhaseState::Sleeping { wake_at_wall_ms, record })
            }
            (PhaseName::Sleeping, ..) => Err("a sleeping phase needs wakeAtWallMs and record"),
            (PhaseName::InFlight, _, Some(record), _) => Ok(PhaseState::InFlight { record }),
            (PhaseName::InFlight, ..) => Err("an in-flight phase needs its record"),
            (PhaseName::Stopped, .., Some(stop)) => Ok(PhaseState::Stopped { stop }),
            (PhaseName::Stopped, ..) => Err("a stopped phase needs its stop"),
        }
    }
}

impl From<PhaseState> for PhaseFields {
    fn from(p: PhaseState) -> Self {
        let empty = |phase| PhaseFields { phase, wake_at_wall_ms: None, record: None, stop: None };
        match p {
            PhaseState::Idle => empty(PhaseName::Idle),
            PhaseState::Sleeping { wake_at_wall_ms, record } => PhaseFields {
                wake_at_wall_ms: Some(wake_at_wall_ms),
                record: Some(record),
                ..empty(PhaseName::Sleeping)
            },
            PhaseState::InFlight { record } => PhaseFields { record: Some(record), ..empty(PhaseName::InFlight) },
            PhaseState::Stopped { stop } => PhaseFields { stop: Some(stop), ..empty(PhaseName::Stopped) },
        }
    }
}

/// A saved state this build cannot resume.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// Written in a format version other than [`STATE_VERSION`]: the version it carries.
    UnsupportedVersion(u32),
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RestoreError::UnsupportedVersion(_) => f.write_str(&self.message()),
        }
    }
}

impl RestoreError {
    /// What went wrong, in words (built without `fmt`'s integer formatting).
    pub fn message(&self) -> String {
        match self {
            RestoreError::UnsupportedVersion(v) => {
                let mut out = String::from("saved operation state has version ");
                push_u64(&mut out, u64::from(*v));
                out.push_str("; this build reads version ");
                push_u64(&mut out, u64::from(STATE_VERSION));
                out
            }
        }
    }
}

impl std::error::Error for RestoreError {}

fn wall_of(instant: u64, now: u64, wall_now: u64) -> u64 {
    wall_now.saturating_add(instant.saturating_sub(now))
}

fn instant_of(wall: u64, now: u64, wall_now: u64) -> u64 {
    now.saturating_add(wall.saturating_sub(wall_now))
}

impl Operation {
    /// Saves the operation at monotonic `now`, wall clock `wall_now`.
    pub fn snapshot(&self, now: u64, wall_now: u64, budget: &Budget) -> OperationState {
        let scope = &self.start.scope;
        let hold = budget.hold_remaining(scope, now);
        let ban = budget.ban_remaining(scope, now);
        let phase = match &self.phase {
            Phase::Idle => PhaseState::Idle,
            Phase::Sleeping { until, record, .. } => {
                PhaseState::Sleeping { wake_at_wall_ms: wall_of(*until, now, wall_now), record: record.clone() }
            }
            Phase::InFlight { record, .. } => PhaseState::InFlight { record: record.clone() },
            Phase::Stopped(stop) => PhaseState::Stopped { stop: *stop },
        };
        OperationState {
            version: STATE_VERSION,
            policy: self.start.policy.clone(),
            operation: self.start.kind,
            priority: self.start.priority,
            scope: scope.clone(),
            weight: self.start.weight,
            key: self.start.key.clone(),
            method: self.start.method.clone(),
            url: self.start.url.clone(),
            started_at_wall_ms: self.started_at_wall,
            expires_at_wall_ms: self.expires_at_wall,
            saved_at_wall_ms: wall_now,
            remaining_ms: self.deadline_at.saturating_sub(now),
            attempts_sent: self.sent,
            retries_proposed: self.retries_proposed,
            previous_delay_ms: self.previous_delay,
            after_provider_wait: self.after_provider_wait,
            after_timeout: self.after_timeout,
            unresolved: self.unresolved,
            hold_until_wall_ms: (hold > 0).then(|| wall_now.saturating_add(hold)),
            ban_until_wall_ms: (ban > 0).then(|| wall_now.saturating_add(ban)),
            phase,
            records: self.records.clone(),
        }
    }

    /// Rebuilds a saved operation in this process; call [`Operation::resume`] next.
    ///
    /// The provider's holds and bans go back into `budget` (never shortened: if the wall
    /// clock went backwards they only look longer). The deadline is the smaller of the
    /// wall-clock reading and the time left when saved.
    pub fn restore(
        state: OperationState,
        now: u64,
        wall_now: u64,
        budget: &mut Budget,
    ) -> Result<Operation, RestoreError> {
        if state.version != STATE_VERSION {
            return Err(RestoreError::UnsupportedVersion(state.version));
        }
        let by_wall = state.expires_at_wall_ms.saturating_sub(wall_now);
        let remaining = by_wall.min(state.remaining_ms);
        let deadline_at = now.saturating_add(remaining);
        if let Some(until) = state.hold_until_wall_ms {
            budget.hold(&state.scope, instant_of(until, now, wall_now));
        }
        if let Some(until) = state.ban_until_wall_ms {
            budget.ban(&state.scope, instant_of(until, now, wall_now));
        }
        let phase = match state.phase {
            PhaseState::Idle => Phase::Idle,
            PhaseState::Sleeping { wake_at_wall_ms, record } => {
                let until = instant_of(wake_at_wall_ms, now, wall_now);
                // Capacity is asked for again by `resume`: the old process's grant died with it.
                Phase::Sleeping { until, grant: Grant::empty(until), record }
            }
            PhaseState::InFlight { record } => Phase::InFlight { record, grant: Grant::empty(now) },
            PhaseState::Stopped { stop } => Phase::Stopped(stop),
        };
        let start = Start {
            policy: state.policy,
            kind: state.operation,
            priority: state.priority,
            scope: state.scope,
            weight: state.weight,
            key: state.key,
            method: state.method,
            url: state.url,
        };
        let deadline_ms = start.policy.deadline_ms();
        Ok(Operation {
            origin: i128::from(deadline_at) - i128::from(deadline_ms),
            start,
            deadline_at,
            started_at_wall: state.started_at_wall_ms,
            expires_at_wall: state.expires_at_wall_ms,
            sent: state.attempts_sent,
            retries_proposed: state.retries_proposed,
            previous_delay: state.previous_delay_ms,
            after_provider_wait: state.after_provider_wait,
            after_timeout: state.after_timeout,
            unresolved: state.unresolved,
            records: state.records,
            phase,
            hedges: Vec::new(),
            race: Vec::new(),
            hedges_proposed: 0,
        })
    }

    /// Continues a restored operation: a sleep is admitted again (late wakes are refused),
    /// an attempt that was in flight counts as sent with its outcome lost.
    pub fn resume(&mut self, now: u64, wall_now: u64, draws: &mut Draws, budget: &mut Budget) -> Action {
        match &self.phase {
            Phase::Idle => self.start(now, draws, budget),
            Phase::InFlight { .. } => {
                self.on_outcome(now, wall_now, &Outcome::failure(Observed::Interrupted), draws, budget)
            }
            Phase::Sleeping { until, record, .. } => {
                let (until, record) = (*until, record.clone());
                self.readmit(now, until, record, budget)
            }
            Phase::Stopped(stop) => Action::Stop(*stop),
        }
    }

    fn readmit(&mut self, now: u64, until: u64, record: AttemptRecord, budget: &mut Budget) -> Action {
        let timeout = self.start.policy.admission_ms();
        let earliest = until.max(now);
        if !gate::fits(earliest, timeout, self.deadline_at) {
            return self.refuse_on_wake(now, record, Reason::Deadline, earliest);
        }
        let grant = match budget.admit(&self.ask(earliest)) {
            Ok(grant) => grant,
            Err(limit) => {
                let mut record = record;
                record.limit = Some(limit);
                return self.refuse_on_wake(now, record, Reason::Budget, earliest);
            }
        };
        self.phase = Phase::Sleeping { until: grant.start_at, grant, record };
        if grant.start_at <= now {
            self.on_wake(now, budget)
        } else {
            Action::Sleep { until: grant.start_at }
        }
    }
}
