//! `client.reconcile(key, query, options)` and `client.resolve(key, state)`: settling an
//! order whose outcome is unknown, by evidence or by hand.
//!
//! The reconciliation's deadline is fixed when it is called and bounds every wait: the
//! caller's query (which gets a signal, but may ignore it) and every store call.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::abort::{self, AbortWatch};
use super::client::{ignore_rejection, Client, Failed, RetryClient};
use super::clock;
use super::error::{cause, invalid, type_error, Failure};
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
use crate::record::{AttemptRecord, Pending};

#[wasm_bindgen(js_class = RetryClient)]
impl RetryClient {
    /// Runs the caller's status `query` for an unknown outcome under its own bounded policy;
    /// resolves to `{ key, resolved, state, escalated, records }`.
    pub fn reconcile(&self, key: JsValue, query: JsValue, options: JsValue) -> Promise {
        let (now, wall) = (clock::now(), clock::wall_now());
        match self.client.shell.prepare_reconcile(now, wall, &key, query, &options) {
            Ok(run) => {
                let core = self.client.shell.clone();
                promise(async move { core.reconcile(run).await.map_err(Failed::into_js)?.to_js() })
            }
            Err(error) => Promise::reject(&error),
        }
    }

    /// Closes an unknown outcome by hand with what the operator established (`filled`, `canceled`, …).
    pub fn resolve(&self, key: JsValue, state: JsValue) -> Promise {
        let core = self.client.shell.clone();
        let started = clock::now();
        promise(async move {
            let key = key_of("resolve", &key)?;
            let evidence = state.as_string().and_then(|s| Evidence::from_name(&s));
            core.resolve(started, &key, evidence).await.map_err(Failed::into_js)?.to_js()
        })
    }
}

fn key_of(context: &str, key: &JsValue) -> Result<String, JsValue> {
    loose(key, "key").and_then(|given| crate::input::name("key", &given)).map_err(|e| invalid(context, &e))
}

/// How a reconciliation (or a resolution by hand) ended.
#[derive(Clone, Debug)]
pub struct Reconciled {
    /// The order's key.
    pub key: String,
    /// The evidence settled it: the key is gone from the store.
    pub resolved: bool,
    /// The last evidence the queries found, or the state given by hand.
    pub state: Option<Evidence>,
    /// The policy ran out unresolved: an operator must look (the store keeps the key, marked).
    pub escalated: bool,
    /// The queries, as attempt records.
    pub records: Vec<AttemptRecord>,
    /// The store could not be brought up to date: what it said.
    pub store_error: Option<String>,
}

impl Reconciled {
    /// `{ key, resolved, state, escalated, records }`, and `storeError` when the store failed.
    fn to_js(&self) -> Result<JsValue, JsValue> {
        let result = Object::new();
        guard::reflect_set(&result, "key", &self.key.as_str().into())?;
        guard::reflect_set(&result, "resolved", &self.resolved.into())?;
        guard::reflect_set(&result, "state", &to_js(&self.state)?)?;
        guard::reflect_set(&result, "escalated", &self.escalated.into())?;
        guard::reflect_set(&result, "records", &to_js(&self.records)?)?;
        if let Some(detail) = &self.store_error {
            guard::reflect_set(&result, "storeError", &detail.as_str().into())?;
        }
        Ok(result.into())
    }
}

/// The Rust API's status query: attempt and signal in, what it found (or why it failed) out.
pub(super) type RustQuery = Rc<dyn Fn(u32, AbortSignal) -> Pin<Box<dyn Future<Output = Result<Evidence, String>>>>>;

/// The caller's status query: a JavaScript function, or the Rust API's closure.
pub(super) enum Query {
    Js(JsValue),
    Rust(RustQuery),
}

/// A reconciliation, prepared when it is called: its deadline counts from then.
pub(super) struct Reconciliation {
    key: String,
    query: Query,
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
        Ok(Client::reconciliation(key, Query::Js(query), policy, signal, (now, wall)))
    }

    /// A reconciliation of `key` by `query` under `policy` (from [`reconciliation_policy`]).
    pub(super) fn reconciliation(
        key: String,
        query: Query,
        policy: Policy,
        signal: Option<AbortSignal>,
        called_at: (u64, u64),
    ) -> Reconciliation {
        let start = status_start(&key, policy, "reconcile");
        Reconciliation { key, query, start, called_at, abort: AbortWatch::new(signal.into_iter().collect()) }
    }

    pub(super) async fn reconcile(&self, run: Reconciliation) -> Result<Reconciled, Failed> {
        let Reconciliation { key, query, mut start, called_at: (now, wall), abort } = run;
        let keyed = Keyed { store: &self.store, key: &key, owner: &self.owner };
        let deadline = now.saturating_add(start.policy.deadline_ms());
        let saved = match keyed.load(&within(deadline, Some(&abort))).await {
            Ok(saved) => saved,
            Err(fault) => return Err(self.store_failure(&mut Operation::begin(start, now, wall), fault)),
        };
        if saved.as_ref().is_some_and(Saved::is_running) {
            // Its owner is still submitting it: that operation's own outcome comes first.
            return Err(Failed::Thrown(type_error(&text::join(&[
                "reconcile: key \"",
                &key,
                "\" is still running; reconcile it once it has ended",
            ]))));
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
                    let found = ask(&query, attempt, timeout_ms, &abort).await.map_err(Failed::Thrown)?;
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
        let result =
            Reconciled { key, resolved, state: evidence, escalated, records: op.records().to_vec(), store_error };
        if let (true, Some(callback)) = (escalated, &self.on_escalation) {
            // A throwing callback must not lose the result.
            if let Ok(returned) = result.to_js().and_then(|r| guard::call(callback, &JsValue::UNDEFINED, &[&r])) {
                ignore_rejection(&returned);
            }
        }
        Ok(result)
    }

    /// Closes `key` by hand with `state`, which must settle it (`None`: a name no evidence has).
    pub(super) async fn resolve(&self, started: u64, key: &str, state: Option<Evidence>) -> Result<Reconciled, Failed> {
        let key = key.to_owned();
        let evidence = state.filter(|e| e.resolves()).ok_or_else(|| {
            Failed::Thrown(invalid(
                "resolve",
                &InvalidOption::new("state", Problem::UnknownName { allowed: RESOLVING }),
            ))
        })?;
        // Each store call is bounded like one attempt of the client's policy.
        let mut op = Operation::begin(self.resolution_start(&key), started, clock::wall_now());
        let keyed = Keyed { store: &self.store, key: &key, owner: &self.owner };
        let race = within(op.deadline_at(), None);
        match keyed.load(&race).await {
            Ok(saved) if saved.as_ref().is_some_and(Saved::is_running) => {
                let running = text::join(&["resolve: key \"", &key, "\" is still running, not unresolved"]);
                return Err(Failed::Thrown(type_error(&running)));
            }
            Ok(_) => {}
            Err(fault) => return Err(self.store_failure(&mut op, fault)),
        }
        if let Err(fault) = self.store.delete(&key, &race).await {
            return Err(self.store_failure(&mut op, fault));
        }
        Ok(Reconciled {
            key,
            resolved: true,
            state: Some(evidence),
            escalated: false,
            records: Vec::new(),
            store_error: None,
        })
    }

    /// A start for `resolve`: its deadline is one attempt timeout of the client's policy.
    fn resolution_start(&self, key: &str) -> Start {
        let timeout = self.policy.attempt_timeout_ms();
        let policy = self.policy.with_call_deadline("deadlineMs", timeout).unwrap_or_else(|_| Policy::default());
        status_start(key, policy, "resolve")
    }

    /// Reason `store` (or `deadline`/`aborted` when a store call was cut).
    fn store_failure(&self, op: &mut Operation, fault: Fault) -> Failed {
        let now = clock::now();
        let (reason, pending) = match &fault {
            Fault::Failed { pending, .. } => (Reason::Store, *pending),
            Fault::Cut { pending, cut: Cut::Aborted } => (Reason::Aborted, *pending),
            Fault::Cut { pending, .. } => (Reason::Deadline, *pending),
        };
        let detail = self.secrets.text(&fault.describe());
        let stop: Stop = op.cancel(now, reason, Some(pending), &mut self.budget.borrow_mut());
        op.note_store_failure(detail.clone());
        let target = text::join(&["key \"", op.key().unwrap_or_default(), "\""]);
        Failed::Stopped(Box::new(Failure {
            stop,
            method: "reconcile".to_owned(),
            url: target,
            key: op.key().map(str::to_owned),
            response: JsValue::UNDEFINED,
            records: op.records().to_vec(),
            detail: None,
            cause: Some(cause("Error", &detail)),
            note: Some(detail),
        }))
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
async fn ask(query: &Query, attempt: u32, timeout_ms: u64, abort: &AbortWatch) -> Result<Outcome, JsValue> {
    let controller = AbortController::new()?;
    let race = Race::new().cut_after(timeout_ms, Cut::Timeout).cut_on_abort(abort);
    let asked = match query {
        Query::Js(query) => {
            let argument = Object::new();
            guard::reflect_set(&argument, "attempt", &attempt.into())?;
            guard::reflect_set(&argument, "signal", &controller.signal())?;
            guard::call(query, &JsValue::UNDEFINED, &[&argument])
        }
        // The Rust query's future as a promise: one race for both kinds.
        Query::Rust(query) => {
            let found = query(attempt, controller.signal());
            Ok(promise(async move { found.await.map(|e| e.name().into()).map_err(|e| JsValue::from_str(&e)) }).into())
        }
    };
    let answer = race.wait_call(asked).await;
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
