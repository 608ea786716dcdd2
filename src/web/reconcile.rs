//! `client.reconcile(key, query, options)` and `client.resolve(key, state)`: settling an
//! order whose outcome is unknown, by evidence or by hand.
//!
//! The reconciliation's deadline is fixed when it is called and bounds every wait: the
//! caller's query (which gets a signal, but may ignore it) and every store call.

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::abort::{self, AbortWatch};
use super::client::{ignore_rejection, Client, RetryClient};
use super::clock;
use super::error::{cause, invalid, retry_error, type_error, Failure};
use super::guard;
use super::keyed::Keyed;
use super::options::signal;
use super::race::{Cut, Ended, Race};
use super::spawn::promise;
use super::store::Fault;
use super::text;
use super::to_js;
use super::value::{field, keys, kind, loose};
use crate::budget::Priority;
use crate::classify::{Observed, OperationKind};
use crate::durable::Saved;
use crate::input::{InvalidOption, Loose, Problem};
use crate::machine::{Action, Operation, Outcome, Start};
use crate::policy::Policy;
use crate::reason::{Reason, Stop};
use crate::reconcile::{reconciliation_policy, Evidence};
use crate::record::Pending;

#[wasm_bindgen(js_class = RetryClient)]
impl RetryClient {
    /// Runs the caller's status `query` for an unknown outcome under its own bounded policy;
    /// resolves to `{ key, resolved, state, escalated, records }`.
    pub fn reconcile(&self, key: JsValue, query: JsValue, options: JsValue) -> Promise {
        let (now, wall) = (clock::now(), clock::wall_now());
        match self.core.prepare_reconcile(now, wall, &key, query, &options) {
            Ok(run) => {
                let core = self.core.clone();
                promise(async move { core.reconcile(run).await })
            }
            Err(error) => Promise::reject(&error),
        }
    }

    /// Closes an unknown outcome by hand with what the operator established (`filled`, `canceled`, …).
    pub fn resolve(&self, key: JsValue, state: JsValue) -> Promise {
        let core = self.core.clone();
        let started = clock::now();
        promise(async move { core.resolve(started, key, state).await })
    }
}

fn key_of(context: &str, key: &JsValue) -> Result<String, JsValue> {
    loose(key, "key").and_then(|given| crate::input::name("key", &given)).map_err(|e| invalid(context, &e))
}

/// A plain result object: `{ key, resolved, state, escalated, records }`, and `storeError`
/// when the store could not be brought up to date.
fn outcome(
    key: &str,
    resolved: bool,
    state: Option<Evidence>,
    escalated: bool,
    records: JsValue,
    store_error: Option<&str>,
) -> Result<JsValue, JsValue> {
    let result = Object::new();
    guard::reflect_set(&result, "key", &key.into())?;
    guard::reflect_set(&result, "resolved", &resolved.into())?;
    guard::reflect_set(&result, "state", &to_js(&state)?)?;
    guard::reflect_set(&result, "escalated", &escalated.into())?;
    guard::reflect_set(&result, "records", &records)?;
    if let Some(detail) = store_error {
        guard::reflect_set(&result, "storeError", &detail.into())?;
    }
    Ok(result.into())
}

/// A reconciliation, prepared when it is called: its deadline counts from then.
pub(super) struct Reconciliation {
    key: String,
    query: JsValue,
    start: Start,
    called_at: (u64, u64),
    abort: AbortWatch,
}

impl Client {
    fn prepare_reconcile(
        &self,
        now: u64,
        wall: u64,
        key: &JsValue,
        query: JsValue,
        options: &JsValue,
    ) -> Result<Reconciliation, JsValue> {
        let key = key_of("reconcile", key)?;
        if !query.is_function() {
            return Err(type_error("reconcile: query must be a function"));
        }
        let (policy, signal) = reconcile_options(options).map_err(|e| invalid("reconcile options", &e))?;
        let start = status_start(&key, policy, "reconcile");
        Ok(Reconciliation {
            key,
            query,
            start,
            called_at: (now, wall),
            abort: AbortWatch::new(signal.into_iter().collect()),
        })
    }

    async fn reconcile(&self, run: Reconciliation) -> Result<JsValue, JsValue> {
        let Reconciliation { key, query, mut start, called_at: (now, wall), abort } = run;
        let keyed = Keyed { store: &self.store, key: &key, owner: &self.owner };
        let deadline = now.saturating_add(start.policy.deadline_ms());
        let saved = match keyed.load(&within(deadline, Some(&abort))).await {
            Ok(saved) => saved,
            Err(fault) => return Err(self.store_failure(&mut Operation::begin(start, now, wall), fault)),
        };
        if saved.as_ref().is_some_and(Saved::is_running) {
            // Its owner is still submitting it: that operation's own outcome comes first.
            return Err(type_error(&text::join(&[
                "reconcile: key \"",
                &key,
                "\" is still running; reconcile it once it has ended",
            ])));
        }
        if let Some(saved) = &saved {
            // Its queries spend the budget of the scope the order was sent to.
            start.scope = saved.state.scope.clone();
        }
        let mut op = Operation::begin(start, now, wall);
        let mut reported = 0;
        self.enter_budget(&op).await;
        let mut action = {
            let now = clock::now();
            op.start(now, &mut self.draws.borrow_mut(), &mut self.budget.borrow_mut())
        };
        self.leave_budget(&op).await;
        let stop = loop {
            self.report(&op, &mut reported, None);
            action = match action {
                Action::Send { attempt, timeout_ms } => {
                    let found = ask(&query, attempt, timeout_ms, &abort).await?;
                    self.enter_budget(&op).await;
                    let (now, wall) = (clock::now(), clock::wall_now());
                    let next =
                        op.on_outcome(now, wall, &found, &mut self.draws.borrow_mut(), &mut self.budget.borrow_mut());
                    self.leave_budget(&op).await;
                    next
                }
                Action::Sleep { until } => self.sleep(&mut op, until, &abort).await,
                Action::Stop(stop) => break stop,
            };
        };
        let resolved = stop.reason == Reason::Success;
        let escalated = !resolved && stop.reason != Reason::Aborted;
        let evidence = op.records().iter().rev().find_map(|r| r.evidence);
        // Not cut by the caller's abort: what was learnt is kept.
        let race = within(op.deadline_at(), None);
        let kept = match keyed.load(&race).await {
            // Still being submitted by its owner: that operation's own outcome decides the key.
            Ok(Some(saved)) if saved.is_running() => Ok(()),
            Ok(Some(_)) if resolved => self.store.delete(&key, &race).await,
            Ok(Some(mut saved)) => {
                saved.escalated |= escalated;
                saved.last_evidence = evidence.or(saved.last_evidence);
                self.store.set(&key, crate::json::to_json(&saved), &race).await
            }
            Ok(None) => Ok(()),
            Err(fault) => Err(fault),
        };
        let store_error = kept.err().map(|fault| self.secrets.text(&fault.describe()));
        if let Some(detail) = &store_error {
            op.note_store_failure(detail.clone());
        }
        self.report(&op, &mut reported, None);
        let result = outcome(&key, resolved, evidence, escalated, to_js(&op.records())?, store_error.as_deref())?;
        if let (true, Some(callback)) = (escalated, &self.on_escalation) {
            // A throwing callback must not lose the result.
            if let Ok(returned) = guard::call(callback, &JsValue::UNDEFINED, &[&result]) {
                ignore_rejection(&returned);
            }
        }
        Ok(result)
    }

    async fn resolve(&self, started: u64, key: JsValue, state: JsValue) -> Result<JsValue, JsValue> {
        let key = key_of("resolve", &key)?;
        let evidence =
            state.as_string().and_then(|s| Evidence::from_name(&s)).filter(|e| e.resolves()).ok_or_else(|| {
                invalid("resolve", &InvalidOption::new("state", Problem::UnknownName { allowed: RESOLVING }))
            })?;
        // Each store call is bounded like one attempt of the client's policy.
        let mut op = Operation::begin(self.resolution_start(&key), started, clock::wall_now());
        let keyed = Keyed { store: &self.store, key: &key, owner: &self.owner };
        let race = within(op.deadline_at(), None);
        match keyed.load(&race).await {
            Ok(saved) if saved.as_ref().is_some_and(Saved::is_running) => {
                return Err(type_error(&text::join(&["resolve: key \"", &key, "\" is still running, not unresolved"])))
            }
            Ok(_) => {}
            Err(fault) => return Err(self.store_failure(&mut op, fault)),
        }
        if let Err(fault) = self.store.delete(&key, &race).await {
            return Err(self.store_failure(&mut op, fault));
        }
        outcome(&key, true, Some(evidence), false, js_sys::Array::new().into(), None)
    }

    /// A start for `resolve`: its deadline is one attempt timeout of the client's policy.
    fn resolution_start(&self, key: &str) -> Start {
        let timeout = self.policy.attempt_timeout_ms();
        let policy = self.policy.with_call_deadline("deadlineMs", timeout).unwrap_or_else(|_| Policy::default());
        status_start(key, policy, "resolve")
    }

    /// The `RetryError` (reason `store`, or `deadline`/`aborted` when a store call was cut).
    fn store_failure(&self, op: &mut Operation, fault: Fault) -> JsValue {
        let now = clock::now();
        let (reason, pending) = match &fault {
            Fault::Failed { pending, .. } => (Reason::Store, *pending),
            Fault::Cut { pending, cut: Cut::Aborted } => (Reason::Aborted, *pending),
            Fault::Cut { pending, .. } => (Reason::Deadline, *pending),
        };
        let detail = self.secrets.text(&fault.describe());
        let stop: Stop = op.cancel(now, reason, Some(pending), &mut self.budget.borrow_mut());
        op.note_store_failure(detail.clone());
        let records_js = match to_js(&op.records()) {
            Ok(records) => records,
            Err(error) => return error,
        };
        let target = text::join(&["key \"", op.key().unwrap_or_default(), "\""]);
        retry_error(Failure {
            stop,
            method: "reconcile",
            url: &target,
            key: op.key(),
            response: JsValue::UNDEFINED,
            records: op.records(),
            records_js,
            detail: None,
            note: Some(&detail),
            cause: Some(cause("Error", &detail)),
        })
    }
}

/// What settling `key` runs as: reads at reconciliation priority, in a scope of their own
/// (`<what>:<key>`) until the order's own scope is known.
fn status_start(key: &str, policy: Policy, what: &str) -> Start {
    Start {
        policy,
        kind: OperationKind::Read,
        priority: Priority::Reconcile,
        scope: text::join(&[what, ":", key]),
        weight: 1,
        key: Some(key.to_owned()),
        method: None,
        url: None,
    }
}

/// The race of a store call within the deadline `at` (and the caller's abort, if given).
fn within(at: u64, abort: Option<&AbortWatch>) -> Race {
    let race = Race::new().cut_after(at.saturating_sub(clock::now()), Cut::Deadline);
    match abort {
        Some(abort) => race.cut_on_abort(abort),
        None => race,
    }
}

const RESOLVING: &str = "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\"";

fn reconcile_options(options: &JsValue) -> Result<(Policy, Option<AbortSignal>), InvalidOption> {
    let mut overrides = Loose::Absent;
    let mut abort_signal = None;
    if !(options.is_undefined() || options.is_null() || options.is_object()) {
        return Err(InvalidOption::new("options", Problem::WrongType { expected: "an object", found: kind(options) }));
    }
    if options.is_object() {
        for name in keys(options)? {
            let value = field(options, &name)?;
            match name.as_str() {
                "policy" => overrides = loose(&value, "policy")?,
                "signal" if value.is_undefined() => {}
                "signal" => abort_signal = Some(signal("signal", value)?),
                _ => return Err(InvalidOption::new(&name, Problem::UnknownField)),
            }
        }
    }
    Ok((reconciliation_policy(&overrides)?, abort_signal))
}

/// One status query, bounded by `timeout_ms` (it gets a signal, but may ignore it).
async fn ask(query: &JsValue, attempt: u32, timeout_ms: u64, abort: &AbortWatch) -> Result<Outcome, JsValue> {
    let controller = AbortController::new()?;
    let race = Race::new().cut_after(timeout_ms, Cut::Timeout).cut_on_abort(abort);
    let argument = Object::new();
    guard::reflect_set(&argument, "attempt", &attempt.into())?;
    guard::reflect_set(&argument, "signal", &controller.signal())?;
    let answer = race.wait_call(guard::call(query, &JsValue::UNDEFINED, &[&argument])).await;
    let observed = match answer {
        Ended::Settled(Ok(value)) => {
            return match value.as_string().as_deref().and_then(Evidence::from_name) {
                Some(evidence) => Ok(Outcome::evidence(evidence)),
                None => Err(type_error(&text::join(&[
                    "reconcile: the query must resolve to one of ",
                    Evidence::NAMES,
                    ", got ",
                    kind(&value),
                ]))),
            }
        }
        // A query that throws or rejects is a failed attempt, like a network error.
        Ended::Settled(Err(e)) => {
            return Ok(Outcome { error: Some(guard::describe(&e)), ..Outcome::failure(Observed::NetworkError) })
        }
        Ended::Cut(Cut::Aborted) => Observed::Aborted,
        Ended::Cut(_) => Observed::Timeout,
    };
    abort::abort(&controller, observed == Observed::Timeout);
    Ok(Outcome { pending: Some(Pending::Query), ..Outcome::failure(observed) })
}
