//! The engine on a virtual clock: scripted draws and outcomes in, records out.
//!
//! `replay` drives exactly the [`Operation`] that `RetryClient.fetch` drives on the
//! real clock, so a schedule replayed here and run for real produce the same records.

use serde::{Deserialize, Deserializer, Serialize};

use crate::budget::{Budget, Priority};
use crate::classify::{Observed, OperationKind};
use crate::draw::Draws;
use crate::input::read::{millis, text, whole};
use crate::input::{At, Invalid, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};
use crate::json::push_u64;
use crate::machine::{Action, Operation, Outcome, Start};
use crate::policy::{Policy, MAX_ATTEMPTS};
use crate::reason::Stop;
use crate::record::{wire_requests, AttemptRecord};

/// Wall-clock time (Unix ms) at virtual 0, when a spec gives none: 2026-01-01T00:00:00Z.
pub const DEFAULT_WALL_CLOCK_MS: u64 = 1_767_225_600_000;

/// What to replay (camelCase JSON), read field by field by [`ReplaySpec::from_options`].
#[derive(Clone, Debug, Default)]
pub struct ReplaySpec {
    /// The retry policy to run (the defaults when absent).
    pub policy: Policy,
    /// The operation's kind, which decides how outcomes are classified (default `read`).
    pub operation: OperationKind,
    /// Seeds the draws that follow the scripted ones (and any spread).
    pub seed: u64,
    /// Sampled delays in ms, one per retry proposal (a refused proposal consumes one too).
    pub draws: Vec<u64>,
    /// One per request sent; a missing one is a 200 after 0 ms.
    pub outcomes: Vec<ScriptedOutcome>,
    /// The wall clock at virtual 0, against which HTTP-dates without a `date` are measured.
    pub wall_clock_ms: Option<u64>,
}

/// The scripted result of one request.
#[derive(Clone, Debug, Default)]
pub struct ScriptedOutcome {
    /// How long after sending the response arrives (an error: when the failure shows).
    pub after_ms: u64,
    /// Default 200.
    pub status: Option<u16>,
    /// The `Retry-After` header: a string as sent on the wire, or a number of seconds.
    pub retry_after: Loose,
    /// The response's `Date` header.
    pub date: Option<String>,
    /// A failure instead of a response.
    pub error: Option<ScriptedError>,
}

/// How a scripted request fails instead of answering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptedError {
    /// Lasts the full attempt timeout.
    Timeout,
    /// Fails `afterMs` after sending, without a response.
    NetworkError,
}

impl ReplaySpec {
    /// Reads a spec; every mistake names its field, e.g. `outcomes[1].afterMs`.
    pub fn from_options(options: &Loose) -> Result<ReplaySpec, InvalidOption> {
        ReplaySpec::read(options).map_err(|e| *e)
    }

    /// [`from_options`](Self::from_options), with an [`Invalid`] error.
    pub(crate) fn read(options: &Loose) -> Result<ReplaySpec, Invalid> {
        let mut spec = ReplaySpec::default();
        for (field, value) in options.fields("spec")? {
            if value.is_absent() {
                continue;
            }
            let f = field.as_str();
            match f {
                "policy" => spec.policy = Policy::read(value)?,
                "operation" => spec.operation = operation(f, value)?,
                "seed" => spec.seed = whole(f, value, 0, MAX_SAFE_INTEGER)?,
                "draws" => spec.draws = each(f, value, |_, v| millis("", v))?,
                "outcomes" => spec.outcomes = each(f, value, |_, v| ScriptedOutcome::from_options(v))?,
                "wallClockMs" => spec.wall_clock_ms = Some(whole(f, value, 0, MAX_SAFE_INTEGER)?),
                _ => return Err(InvalidOption::boxed(f, Problem::UnknownField)),
            }
        }
        Ok(spec)
    }
}

impl ScriptedOutcome {
    fn from_options(options: &Loose) -> Result<ScriptedOutcome, Invalid> {
        let mut outcome = ScriptedOutcome::default();
        for (field, value) in options.fields("")? {
            if value.is_absent() {
                continue;
            }
            let f = field.as_str();
            match f {
                "afterMs" => outcome.after_ms = millis(f, value)?,
                "status" => outcome.status = Some(status(f, value)?),
                "retryAfter" => outcome.retry_after = retry_after(f, value)?,
                "date" => outcome.date = Some(text(f, value)?.to_owned()),
                "error" => {
                    outcome.error = Some(match text(f, value)? {
                        "timeout" => ScriptedError::Timeout,
                        "network-error" => ScriptedError::NetworkError,
                        _ => {
                            return Err(InvalidOption::boxed(
                                f,
                                Problem::UnknownName { allowed: "\"timeout\", \"network-error\"" },
                            ))
                        }
                    })
                }
                _ => return Err(InvalidOption::boxed(f, Problem::UnknownField)),
            }
        }
        Ok(outcome)
    }
}

/// Each item of an array, read by `read`; errors name the item, e.g. `draws[2]`.
pub(crate) fn each<T>(
    field: &str,
    value: &Loose,
    read: impl Fn(usize, &Loose) -> Result<T, Invalid>,
) -> Result<Vec<T>, Invalid> {
    let Loose::List(items) = value else {
        return Err(InvalidOption::boxed(field, Problem::WrongType { expected: "an array", found: value.kind() }));
    };
    // A loop, not `collect` into a `Result`: its adapters cost a kilobyte of wasm per item type.
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        out.push(read(i, item).map_err(|e| e.at_item(i).at(field))?);
    }
    Ok(out)
}

fn operation(field: &str, value: &Loose) -> Result<OperationKind, Invalid> {
    OperationKind::from_name(text(field, value)?)
        .ok_or_else(|| InvalidOption::boxed(field, Problem::UnknownName { allowed: OperationKind::NAMES }))
}

fn status(field: &str, value: &Loose) -> Result<u16, Invalid> {
    let code = whole(field, value, 0, MAX_SAFE_INTEGER).map_err(|e| match e.problem {
        Problem::WrongType { .. } | Problem::NotFinite => e,
        _ => InvalidOption::boxed(field, Problem::NotAStatus),
    })?;
    if !(100..=599).contains(&code) {
        return Err(InvalidOption::boxed(field, Problem::NotAStatus));
    }
    Ok(code as u16)
}

/// A header value as sent, or a whole number of seconds.
fn retry_after(field: &str, value: &Loose) -> Result<Loose, Invalid> {
    match value {
        Loose::Text(_) => Ok(value.clone()),
        Loose::Number(_) => whole(field, value, 0, MAX_SAFE_INTEGER).map(|_| value.clone()),
        other => Err(InvalidOption::boxed(
            field,
            Problem::WrongType { expected: "a string or a number of seconds", found: other.kind() },
        )),
    }
}

/// Deserializing a spec applies the same checks as [`ReplaySpec::from_options`].
impl<'de> Deserialize<'de> for ReplaySpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let options = Loose::deserialize(deserializer)?;
        ReplaySpec::from_options(&options).map_err(serde::de::Error::custom)
    }
}

/// What happened (camelCase JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayReport {
    /// Requests that went on the wire.
    pub wire_requests: u32,
    /// Every attempt, sent or refused, in order.
    pub records: Vec<AttemptRecord>,
    /// How and when the operation ended.
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
        // Whole and non-negative, as `from_options` checked.
        Loose::Number(x) => {
            let mut seconds = String::new();
            push_u64(&mut seconds, x as u64);
            Some(seconds)
        }
        _ => None,
    };
    let response = Outcome { retry_after, date: o.date, ..Outcome::response(o.status.unwrap_or(200)) };
    (o.after_ms, response)
}
