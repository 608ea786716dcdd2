//! The engine on a virtual clock: scripted draws and outcomes in, records out.
//!
//! `replay` drives exactly the [`Operation`] that `RetryClient.fetch` drives on the
//! real clock, so a schedule replayed here and run for real produce the same records.

use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Priority};
use crate::classify::{Observed, OperationKind};
use crate::draw::Draws;
use crate::input::Loose;
use crate::machine::{Action, Operation, Outcome, Start};
use crate::policy::{Policy, MAX_ATTEMPTS};
use crate::reason::Stop;
use crate::record::{wire_requests, AttemptRecord};

/// Wall-clock time (Unix ms) at virtual 0, when a spec gives none: 2026-01-01T00:00:00Z.
pub const DEFAULT_WALL_CLOCK_MS: u64 = 1_767_225_600_000;

/// What to replay (camelCase JSON).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplaySpec {
    #[serde(default)]
    pub policy: Policy,
    #[serde(default)]
    pub operation: OperationKind,
    /// Seeds the draws that follow the scripted ones (and any spread).
    #[serde(default)]
    pub seed: u64,
    /// Sampled delays in ms, one per retry proposal (a refused proposal consumes one too).
    #[serde(default)]
    pub draws: Vec<u64>,
    /// One per request sent; a missing one is a 200 after 0 ms.
    #[serde(default)]
    pub outcomes: Vec<ScriptedOutcome>,
    /// The wall clock at virtual 0, against which HTTP-dates without a `date` are measured.
    #[serde(default)]
    pub wall_clock_ms: Option<u64>,
}

/// The scripted result of one request.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedOutcome {
    /// How long after sending the response arrives (an error: when the failure shows).
    #[serde(default)]
    pub after_ms: u64,
    /// Default 200.
    pub status: Option<u16>,
    /// The `Retry-After` header: a string as sent on the wire, or a number of seconds.
    #[serde(default)]
    pub retry_after: Loose,
    /// The response's `Date` header.
    pub date: Option<String>,
    pub error: Option<ScriptedError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScriptedError {
    /// Lasts the full attempt timeout.
    Timeout,
    NetworkError,
}

/// What happened (camelCase JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayReport {
    pub wire_requests: u32,
    pub records: Vec<AttemptRecord>,
    pub stop: Stop,
}

/// Runs `spec` on a virtual clock starting at 0.
pub fn replay(spec: ReplaySpec) -> ReplayReport {
    let wall_zero = spec.wall_clock_ms.unwrap_or(DEFAULT_WALL_CLOCK_MS);
    let mut budget = Budget::unlimited();
    let mut draws = Draws::scripted(spec.draws, spec.seed);
    let start = Start {
        policy: spec.policy,
        kind: spec.operation,
        priority: Priority::for_kind(spec.operation),
        scope: "replay".to_owned(),
        weight: 1,
        key: None,
        method: None,
        url: None,
    };
    let mut op = Operation::begin(start, 0, wall_zero);
    let mut outcomes = spec.outcomes.into_iter();
    let mut now = 0u64;
    let mut action = op.start(now, &mut draws, &mut budget);
    // Each turn sends, stops or moves the clock forward; this bound is never reached by a valid policy.
    for _ in 0..(4 * MAX_ATTEMPTS + 16) {
        match action {
            Action::Send { timeout_ms, .. } => {
                let (took, outcome) = scripted(outcomes.next(), timeout_ms);
                now = now.saturating_add(took);
                action = op.on_outcome(now, wall_zero.saturating_add(now), &outcome, &mut draws, &mut budget);
            }
            Action::Sleep { until } => {
                now = now.max(until);
                action = op.on_wake(now, &mut budget);
            }
            Action::Stop(stop) => return report(&op, stop),
        }
    }
    let stop = op.abort(now, &mut budget);
    report(&op, stop)
}

fn report(op: &Operation, stop: Stop) -> ReplayReport {
    ReplayReport { wire_requests: wire_requests(op.records()), records: op.records().to_vec(), stop }
}

/// How long a scripted request takes and what it yields; anything slower than the timeout times out.
fn scripted(outcome: Option<ScriptedOutcome>, timeout_ms: u64) -> (u64, Outcome) {
    let Some(o) = outcome else {
        return (0, Outcome::response(200));
    };
    if o.error == Some(ScriptedError::Timeout) || o.after_ms > timeout_ms {
        return (timeout_ms, Outcome::failure(Observed::Timeout));
    }
    if o.error == Some(ScriptedError::NetworkError) {
        return (o.after_ms, Outcome::failure(Observed::NetworkError));
    }
    let retry_after = match o.retry_after {
        Loose::Absent => None,
        Loose::Text(s) => Some(s),
        Loose::Number(x) if x >= 0.0 && x.fract() == 0.0 && x < 1e15 => Some((x as u64).to_string()),
        // Kept as an unreadable header value, as a provider might send one.
        _ => Some("unreadable".to_owned()),
    };
    let response = Outcome {
        observed: Observed::Response,
        status: Some(o.status.unwrap_or(200)),
        retry_after,
        date: o.date,
        evidence: None,
    };
    (o.after_ms, response)
}
