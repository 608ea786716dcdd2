//! `client.reconcile(key, query, options)` and `client.resolve(key, state)`: settling an order
//! whose outcome is unknown. The glue runs the caller's query and the store calls; the queries are
//! an operation of the core's (reads at `reconcile` priority), fed evidence instead of statuses.

use super::io::{self, with_input};
use super::keyed::read_saved;
use super::operation::keep;
use super::state::{with_op, Op, Purpose, BUDGETS, CLIENTS, OPS};
use super::{invalid, ms};
use crate::budget::Priority;
use crate::classify::OperationKind;
use crate::input::read::name;
use crate::input::{InvalidOption, Loose, Problem};
use crate::json::{to_json, Object, ToJson};
use crate::machine::{Operation, Start};
use crate::policy::Policy;
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::AttemptRecord;
use crate::text::join;

/// What settling `key` runs as: reads at reconciliation priority, in a scope of their own
/// (`<what>:<key>`) until the order's own scope is known.
fn status_start(key: &str, policy: Policy, what: &str) -> Start {
    Start {
        policy,
        kind: OperationKind::Read,
        priority: Priority::Reconcile,
        scope: join(&[what, ":", key]),
        weight: 1,
        key: Some(key.to_owned()),
        method: None,
        url: None,
    }
}

/// Hands a failed read out; the second number says which argument: 0 the key, 1 the options
/// (or `resolve`'s state).
fn refused(error: &InvalidOption, argument: f64) -> u32 {
    invalid(error);
    io::number(1, argument);
    0
}

fn begin(client: u32, budget: u32, start: Start, purpose: Purpose, now: u64, wall: u64) -> u32 {
    let live = BUDGETS.with(|b| b.get(budget).is_some());
    if !live {
        return 0;
    }
    let op = Operation::begin(start, now, wall);
    keep(Op {
        op,
        client,
        budget,
        purpose,
        resumed: false,
        refused_records: Vec::new(),
        called_at: (now, wall),
        given: None,
    })
}

/// A reconciliation of the key (input: wire form) under the options (wire form: `{ policy }`).
/// Returns its operation, or 0 with the error (see [`refused`]).
#[no_mangle]
pub extern "C" fn rl_reconcile_begin(client: u32, budget: u32, now: f64, wall: f64, key: u32, opts: u32) -> u32 {
    let read = with_input(|input| {
        let key = input.wire(key).and_then(|k| name("key", &k)).map_err(|e| (e, 0.0))?;
        let options = input.wire(opts).map_err(|e| (e, 1.0))?;
        let mut overrides = Loose::Absent;
        for (field, value) in options.fields("options").map_err(|e| (e, 1.0))? {
            match field.as_str() {
                "policy" => overrides = value.clone(),
                _ => return Err((InvalidOption::boxed(field, Problem::UnknownField), 1.0)),
            }
        }
        let policy = Policy::reconciliation_default().read_over(&overrides).map_err(|e| (e, 1.0))?;
        Ok(status_start(&key, policy, "reconcile"))
    });
    match read {
        Ok(start) => begin(client, budget, start, Purpose::Reconcile, ms(now), ms(wall)),
        Err((error, argument)) => refused(&error, argument),
    }
}

/// `client.resolve(key, state)`: the key and the evidence's name (both wire form). Its store calls
/// are bounded like one attempt of the client's policy. Returns its operation, or 0 with the error.
#[no_mangle]
pub extern "C" fn rl_resolve_begin(client: u32, budget: u32, now: f64, wall: f64, key: u32, state: u32) -> u32 {
    let read = with_input(|input| {
        let key = input.wire(key).and_then(|k| name("key", &k)).map_err(|e| (e, 0.0))?;
        let given = input.wire(state).map_err(|e| (e, 1.0))?;
        let evidence = match &given {
            Loose::Text(name) => Evidence::from_name(name).filter(|e| e.resolves()),
            _ => None,
        };
        let allowed = "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\"";
        let evidence =
            evidence.ok_or_else(|| (InvalidOption::boxed("state", Problem::UnknownName { allowed }), 1.0))?;
        let policy = CLIENTS.with(|clients| {
            let policy = clients.get(client).map(|c| c.policy.clone()).unwrap_or_default();
            let timeout = policy.attempt_timeout_ms();
            policy.with_call_deadline("deadlineMs", timeout).unwrap_or_default()
        });
        Ok((status_start(&key, policy, "resolve"), evidence))
    });
    match read {
        Ok((start, evidence)) => {
            let handle = begin(client, budget, start, Purpose::Resolve, ms(now), ms(wall));
            OPS.with(|ops| {
                if let Some(slot) = ops.get_mut(handle) {
                    slot.given = Some(evidence);
                }
            });
            handle
        }
        Err((error, argument)) => refused(&error, argument),
    }
}

/// What the store holds under the key (wire form, or absent), before any query: 0 go on (a
/// reconciliation now spends the budget of the order's own scope), 1 its owner is still running
/// it (the output is the `TypeError`'s message), 2 it is unreadable (the output says why).
#[no_mangle]
pub extern "C" fn rl_reconcile_saved(handle: u32, state: u32) -> u32 {
    with_input(|input| {
        let stored = input.wire(state);
        with_op(handle, |slot, _, _| {
            let key = slot.op.key().unwrap_or_default().to_owned();
            let Ok(saved) = read_saved(stored, &key) else { return 2 };
            let Some(saved) = saved else { return 0 };
            if saved.is_running() {
                io::output(match slot.purpose {
                    Purpose::Resolve => join(&["resolve: key \"", &key, "\" is still running, not unresolved"]),
                    _ => join(&["reconcile: key \"", &key, "\" is still running; reconcile it once it has ended"]),
                });
                return 1;
            }
            if slot.purpose == Purpose::Reconcile {
                // Its queries spend the budget of the scope the order was sent to.
                let policy = slot.op.policy().clone();
                let mut start = status_start(&key, policy, "reconcile");
                start.scope = saved.state.scope;
                let (now, wall) = slot.called_at;
                slot.op = Operation::begin(start, now, wall);
            }
            0
        })
        .unwrap_or(0)
    })
}

/// What becomes of the stored key once the queries have stopped (input: what the store holds now,
/// wire form or absent): 0 nothing (gone, or being submitted again), 1 delete it (resolved), 2 set
/// the output (escalated and the evidence learnt), 3 the state is unreadable (the output says why).
#[no_mangle]
pub extern "C" fn rl_reconcile_kept(handle: u32, state: u32) -> u32 {
    with_input(|input| {
        let stored = input.wire(state);
        OPS.with(|ops| {
            let Some(slot) = ops.get(handle) else { return 0 };
            let key = slot.op.key().unwrap_or_default();
            let Ok(saved) = read_saved(stored, key) else { return 3 };
            let (resolved, escalated, evidence) = ending(slot);
            match saved {
                // Still being submitted by its owner: that operation's own outcome decides the key.
                Some(saved) if saved.is_running() => 0,
                Some(_) if resolved => 1,
                Some(mut saved) => {
                    saved.escalated |= escalated;
                    saved.last_evidence = evidence.or(saved.last_evidence);
                    io::output(to_json(&saved));
                    2
                }
                None => 0,
            }
        })
    })
}

/// Resolved, escalated, and the last evidence found.
fn ending(slot: &Op) -> (bool, bool, Option<Evidence>) {
    if slot.purpose == Purpose::Resolve {
        return (true, false, slot.given);
    }
    let reason = slot.op.stopped().map_or(Reason::Aborted, |s| s.reason);
    let resolved = reason == Reason::Success;
    let evidence = slot.op.records().iter().rev().find_map(|r| r.evidence);
    (resolved, !resolved && reason != Reason::Aborted, evidence)
}

struct Reconciled<'a> {
    key: &'a str,
    resolved: bool,
    state: Option<Evidence>,
    escalated: bool,
    records: &'a [AttemptRecord],
    store_error: Option<String>,
}

impl ToJson for Reconciled<'_> {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        object
            .field("key", &self.key)
            .field("resolved", &self.resolved)
            .field("state", &self.state)
            .field("escalated", &self.escalated)
            .field("records", &self.records);
        if let Some(error) = &self.store_error {
            object.field("storeError", error);
        }
        object.end();
    }
}

/// `{ key, resolved, state, escalated, records, storeError? }` as the output (input: what the store
/// said when it could not be brought up to date, or absent). Returns 1 if escalated.
#[no_mangle]
pub extern "C" fn rl_reconcile_result(handle: u32, store_error: u32) -> u32 {
    with_input(|input| {
        let store_error = input.optional(store_error);
        with_op(handle, |slot, client, _| {
            let store_error = store_error.map(|e| client.redact(e, false, &[]));
            if let Some(detail) = &store_error {
                slot.op.note_store_failure(detail.clone());
            }
            let (resolved, escalated, state) = ending(slot);
            let records: &[AttemptRecord] = if slot.purpose == Purpose::Resolve { &[] } else { slot.op.records() };
            let key = slot.op.key().unwrap_or_default();
            io::output(to_json(&Reconciled { key, resolved, state, escalated, records, store_error }));
            u32::from(escalated)
        })
        .unwrap_or(0)
    })
}
