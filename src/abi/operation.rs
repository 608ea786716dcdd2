//! One call's operation, step by step: the glue sends, sleeps and reads responses; every step's
//! decision comes back as an action code with its numbers in the slot:
//!
//! | code | action | numbers |
//! |---|---|---|
//! | 0 | send | attempt, timeout ms |
//! | 1 | sleep | until (monotonic ms), the timer's ms from now |
//! | 2 | stop | reason code, at ms |
//! | 3 | the handle is gone | — |
//! | 4 | nothing now: a hedge refused, or an outcome waiting for another request ([`super::hedge`]) | — |

use super::errors::failure_json;
use super::io::{self, with_input};
use super::state::{with_op, Op, Purpose, BUDGETS, CLIENTS, OPS};
use super::{invalid, ms};
use crate::budget::Priority;
use crate::classify::{response_status, Observed, OperationKind};
use crate::failure::{Cut, Note};
use crate::input::Invalid;
use crate::machine::{Action, Operation, Outcome, Start};
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::Pending;

use super::client::CallSpec;

/// A length of the `Retry-After` string that says the response hid it (CORS).
pub const UNREADABLE: u32 = u32::MAX - 1;

/// Hands an action out as its code and numbers.
pub fn act(action: Action, op: &Operation, now: u64) -> u32 {
    match action {
        Action::Send { attempt, timeout_ms } => {
            io::numbers(&[f64::from(attempt), timeout_ms as f64]);
            0
        }
        Action::Sleep { until } => {
            io::numbers(&[until as f64, op.timer_ms(now) as f64]);
            1
        }
        Action::Stop(stop) => {
            io::numbers(&[reason_code(stop.reason), stop.at_ms as f64]);
            2
        }
    }
}

/// The code of a reason, its index in the names the glue learnt.
pub fn reason_code(reason: Reason) -> f64 {
    Reason::ALL.iter().position(|&r| r == reason).unwrap_or(0) as f64
}

pub fn code<T: Copy>(all: &[T], code: i32) -> Option<T> {
    usize::try_from(code).ok().and_then(|i| all.get(i).copied())
}

/// Keeps a new operation; its handle.
pub fn keep(op: Op) -> u32 {
    OPS.with(|ops| ops.insert(op))
}

/// Begins a call of `client` under `budget`, at `now` (monotonic) and `wall` (Unix ms). Input:
/// the URL, the method, the scope if the glue has one (a URL that is not http(s)), the call's
/// options in wire form (or none), the names that matched the caller's `RegExp`s. Returns the
/// operation, or 0 with the error. Numbers: 1 if the scope's budget reads a used-weight header
/// (its name is the output) else 0, the deadline (monotonic ms), the attempt timeout (ms), how
/// many hedges the call may send (a build without hedging leaves such a call to one with it).
#[no_mangle]
pub extern "C" fn rl_op_begin(
    client: u32,
    budget: u32,
    now: f64,
    wall: f64,
    url: u32,
    method: u32,
    scope: u32,
    opts: u32,
    extra: u32,
) -> u32 {
    let begun: Result<Option<Operation>, Invalid> = with_input(|input| {
        let (url, method, scope) = (input.text(url), input.text(method), input.optional(scope));
        let options = input.wire(opts);
        let extra = super::client::names(input.text(extra));
        CLIENTS.with(|clients| {
            let Some(owner) = clients.get(client) else { return Ok(None) };
            let spec = match options? {
                crate::input::Loose::Absent => CallSpec::of(&owner.policy),
                given => CallSpec::read(&given, &owner.policy)?,
            };
            let kind = spec.operation.unwrap_or_else(|| OperationKind::from_method(method));
            let scope = spec
                .scope
                .or_else(|| scope.map(str::to_owned))
                .or_else(|| crate::scope::origin(url))
                .unwrap_or_else(|| url.to_owned());
            let url = match owner.secrets.is_empty() && extra.is_empty() {
                true => url.to_owned(),
                false => owner.redact(url, true, &extra),
            };
            let start = Start {
                policy: spec.policy,
                kind,
                priority: spec.priority.unwrap_or(Priority::for_kind(kind)),
                scope,
                weight: spec.weight,
                key: spec.key,
                method: Some(method.to_owned()),
                url: Some(url),
            };
            Ok(Some(Operation::begin(start, ms(now), ms(wall))))
        })
    });
    let op = match begun {
        Ok(Some(op)) => op,
        Ok(None) => return 0,
        Err(error) => return invalid(&error),
    };
    let header = BUDGETS.with(|b| b.get(budget).map(|b| b.used_weight_header(op.scope()).map(str::to_owned)));
    let Some(header) = header else { return 0 };
    let flag = if header.is_some() { 1.0 } else { 0.0 };
    let hedges = f64::from(op.policy().max_hedges());
    io::numbers(&[flag, op.deadline_at() as f64, op.policy().attempt_timeout_ms() as f64, hedges]);
    if let Some(name) = header {
        io::output(name);
    }
    let called_at = (ms(now), ms(wall));
    keep(Op {
        op,
        client,
        budget,
        purpose: Purpose::Call,
        resumed: false,
        refused_records: Vec::new(),
        called_at,
        given: None,
    })
}

/// What the glue saw of an attempt, as it crosses the boundary: codes (-1: none) and strings.
pub struct Head<'a> {
    pub observed: i32,
    pub status: f64,
    pub retry_after: Option<&'a str>,
    /// The response hid its `Retry-After` (CORS).
    pub hidden: bool,
    pub date: Option<&'a str>,
    pub error: Option<&'a str>,
    pub pending: i32,
    pub evidence: i32,
    /// A reset header of a response without `Retry-After`: its index in `RESET_HEADERS` and value.
    pub reset: Option<(i32, &'a str)>,
}

impl<'a> Head<'a> {
    /// A head's strings taken from the call's input in order — `Retry-After` (its length, or one
    /// that says the response hid it), `Date`, the platform's words — with no codes yet.
    pub fn read(
        input: &mut io::Input<'a>,
        observed: i32,
        status: f64,
        retry_after: u32,
        date: u32,
        error: u32,
    ) -> Self {
        let hidden = retry_after == UNREADABLE;
        let retry_after = if hidden { None } else { input.optional(retry_after) };
        let (date, error) = (input.optional(date), input.optional(error));
        Head { observed, status, retry_after, hidden, date, error, pending: -1, evidence: -1, reset: None }
    }

    /// The outcome the core reads: the status checked, the platform's words redacted.
    pub fn outcome(&self, client: &super::state::Client) -> Outcome {
        let mut outcome = Outcome::failure(code(Observed::ALL, self.observed).unwrap_or(Observed::NetworkError));
        outcome.pending = code(Pending::ALL, self.pending);
        outcome.error = self.error.map(|e| client.redact(e, false, &[]));
        if outcome.observed != Observed::Response {
            return outcome;
        }
        match code(Evidence::ALL, self.evidence) {
            Some(evidence) => outcome.evidence = Some(evidence),
            None => match response_status(self.status) {
                Ok(status) => {
                    outcome.status = Some(status);
                    outcome.retry_after = self.retry_after.map(str::to_owned);
                    outcome.retry_after_unreadable = self.hidden;
                    outcome.date = self.date.map(str::to_owned);
                    outcome.reset = self.reset.and_then(|(at, value)| {
                        let (_, form) = code(&crate::retry_after::RESET_HEADERS, at)?;
                        Some((form, value.to_owned()))
                    });
                }
                Err(why) => {
                    outcome.observed = Observed::NetworkError;
                    outcome.error = Some(why);
                }
            },
        }
        outcome
    }
}

/// The first step: proposes the initial attempt (or resumes a restored operation).
#[no_mangle]
pub extern "C" fn rl_op_start(handle: u32, now: f64, wall: f64) -> u32 {
    let now = ms(now);
    with_op(handle, |slot, client, budget| {
        let action = match slot.resumed {
            true => slot.op.resume(now, ms(wall), &mut client.draws, budget),
            false => slot.op.start(now, &mut client.draws, budget),
        };
        act(action, &slot.op, now)
    })
    .unwrap_or(3)
}

/// What came of the attempt in flight. `observed` and `pending`, `evidence` are codes (-1: none);
/// `status` as the platform gave it (checked here); `used` the provider's count of weight used
/// (-1: none); `reset_header` which reset header `reset` is (an index in RESET_HEADERS). Input:
/// `Retry-After` (or its length is absent, or says it was hidden), `Date`, what the platform said
/// of a failure, the reset header's value.
#[no_mangle]
pub extern "C" fn rl_op_outcome(
    handle: u32,
    now: f64,
    wall: f64,
    observed: i32,
    status: f64,
    retry_after: u32,
    date: u32,
    error: u32,
    pending: i32,
    used: f64,
    evidence: i32,
    reset_header: i32,
    reset: u32,
) -> u32 {
    let now = ms(now);
    with_input(|input| {
        let mut head = Head::read(input, observed, status, retry_after, date, error);
        head.reset = input.optional(reset).map(|value| (reset_header, value));
        (head.pending, head.evidence) = (pending, evidence);
        with_op(handle, |slot, client, budget| {
            let outcome = head.outcome(client);
            if used >= 0.0 && used.is_finite() {
                budget.observe_used_weight(slot.op.scope(), used as u64, now);
            }
            // The request of the phase: the one `rl_op_flight` chose in a hedged race.
            let attempt = slot.op.in_flight().unwrap_or(0);
            match slot.op.on_flight_outcome(now, ms(wall), attempt, &outcome, &mut client.draws, budget) {
                Some(action) => act(action, &slot.op, now),
                None => 4,
            }
        })
        .unwrap_or(3)
    })
}

/// The sleep's timer fired (or something woke it early): the gate is checked again.
#[no_mangle]
pub extern "C" fn rl_op_wake(handle: u32, now: f64) -> u32 {
    let now = ms(now);
    with_op(handle, |slot, _, budget| act(slot.op.on_wake(now, budget), &slot.op, now)).unwrap_or(3)
}

/// The caller aborted.
#[no_mangle]
pub extern "C" fn rl_op_abort(handle: u32, now: f64) -> u32 {
    let now = ms(now);
    with_op(handle, |slot, _, budget| {
        let stop = slot.op.abort(now, budget);
        act(Action::Stop(stop), &slot.op, now)
    })
    .unwrap_or(3)
}

/// The glue gave up on a pending step (`reason` and `pending` are codes; -1: none).
#[no_mangle]
pub extern "C" fn rl_op_cancel(handle: u32, now: f64, reason: i32, pending: i32) -> u32 {
    let now = ms(now);
    with_op(handle, |slot, _, budget| {
        let reason = code(&Reason::ALL, reason).unwrap_or(Reason::Aborted);
        let stop = slot.op.cancel(now, reason, code(Pending::ALL, pending), budget);
        act(Action::Stop(stop), &slot.op, now)
    })
    .unwrap_or(3)
}

/// `policy.shouldRetry` declined the admitted retry (input: what it threw, or absent).
#[no_mangle]
pub extern "C" fn rl_op_veto(handle: u32, now: f64, threw: u32) -> u32 {
    let now = ms(now);
    with_input(|input| {
        let threw = input.optional(threw);
        with_op(handle, |slot, client, budget| {
            let threw = threw.map(|t| client.redact(t, false, &[]));
            let stop = slot.op.veto(now, threw, budget);
            act(Action::Stop(stop), &slot.op, now)
        })
        .unwrap_or(3)
    })
}

/// A store failure after the last step: its last record says so (input: the store's words).
#[no_mangle]
pub extern "C" fn rl_op_note_store_failure(handle: u32, detail: u32) {
    with_input(|input| {
        let detail = input.text(detail);
        with_op(handle, |slot, client, _| slot.op.note_store_failure(client.redact(detail, false, &[])));
    });
}

/// The records from index `from` on, as a JSON array; returns how many there are in all.
#[no_mangle]
pub extern "C" fn rl_op_records(handle: u32, from: u32) -> u32 {
    OPS.with(|ops| {
        let Some(slot) = ops.get(handle) else { return 0 };
        let records = slot.op.records();
        io::output(crate::json::to_json(records.get(from as usize..).unwrap_or_default()));
        records.len() as u32
    })
}

/// The operation stopped without success: `{ reason, message, records, key }` as the output.
/// `note` says what the message adds: 0 nothing (or what the last attempt's timeout cut), 1 the
/// `pending` step cut by `cut` (0 timeout, 1 deadline, 2 abort), 2 the store's words (input,
/// `words` bytes), 3 the state not saved (the store's words).
#[no_mangle]
pub extern "C" fn rl_op_error(handle: u32, note: u32, pending: i32, cut: u32, words: u32) {
    let json = with_input(|input| {
        let words = input.text(words);
        with_op(handle, |slot, client, _| {
            let reason = slot.op.stopped().map_or(Reason::Aborted, |s| s.reason);
            let words = client.redact(words, false, &[]);
            let note = match note {
                1 => Note::Pending(
                    code(Pending::ALL, pending).unwrap_or(Pending::Response),
                    [Cut::Timeout, Cut::Deadline, Cut::Aborted].get(cut as usize).copied().unwrap_or(Cut::Deadline),
                ),
                2 => Note::Store(words),
                3 => Note::NotSaved(words),
                _ => Note::None,
            };
            failure_json(slot, reason, slot.op.records(), None, &note)
        })
    });
    io::output(json.unwrap_or_default());
}

/// The absolute deadline, monotonic ms.
#[no_mangle]
pub extern "C" fn rl_op_deadline(handle: u32) -> f64 {
    OPS.with(|ops| ops.get(handle).map_or(0.0, |slot| slot.op.deadline_at() as f64))
}

/// The scope, as the output.
#[no_mangle]
pub extern "C" fn rl_op_scope(handle: u32) {
    let scope = OPS.with(|ops| ops.get(handle).map(|slot| slot.op.scope().to_owned()));
    io::output(scope.unwrap_or_default());
}

#[no_mangle]
pub extern "C" fn rl_op_free(handle: u32) {
    OPS.with(|ops| ops.remove(handle));
}

/// What a message says of a step (`pending` code) that `cut` ended before it settled, as the output.
#[no_mangle]
pub extern "C" fn rl_still_pending(pending: i32, cut: u32) {
    let pending = code(Pending::ALL, pending).unwrap_or(Pending::Response);
    let cut = [Cut::Timeout, Cut::Deadline, Cut::Aborted].get(cut as usize).copied().unwrap_or(Cut::Deadline);
    io::output(crate::failure::still_pending(pending, cut));
}
