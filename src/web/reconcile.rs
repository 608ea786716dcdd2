//! `client.reconcile(key, query, options)` and `client.resolve(key, state)`: settling an
//! order whose outcome is unknown, by evidence or by hand.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, spawn_local, JsFuture};
use web_sys::{AbortController, AbortSignal};

use super::abort::AbortWatch;
use super::client::{Client, RetryClient};
use super::clock;
use super::error::{invalid, type_error};
use super::keyed::Keyed;
use super::latch::Latch;
use super::timer::Timeout;
use super::to_js;
use super::value::{field, keys, loose};
use crate::budget::Priority;
use crate::classify::{Observed, OperationKind};
use crate::durable::Saved;
use crate::input::{InvalidOption, Problem};
use crate::machine::{Action, Operation, Outcome, Start};
use crate::reason::Reason;
use crate::reconcile::{reconciliation_policy, Evidence};

#[wasm_bindgen(js_class = RetryClient)]
impl RetryClient {
    /// Runs the caller's status `query` for an unknown outcome under its own bounded policy;
    /// resolves to `{ key, resolved, state, escalated, records }`.
    pub fn reconcile(&self, key: JsValue, query: JsValue, options: JsValue) -> Promise {
        let core = self.core.clone();
        future_to_promise(async move { core.reconcile(key, query, options).await })
    }

    /// Closes an unknown outcome by hand with what the operator established (`filled`, `canceled`, …).
    pub fn resolve(&self, key: JsValue, state: JsValue) -> Promise {
        let core = self.core.clone();
        future_to_promise(async move { core.resolve(key, state).await })
    }
}

fn key_of(context: &str, key: &JsValue) -> Result<String, JsValue> {
    crate::input::name("key", &loose(key)).map_err(|e| invalid(context, &e))
}

/// A plain result object: `{ key, resolved, state, escalated, records }`.
fn outcome(
    key: &str,
    resolved: bool,
    state: Option<Evidence>,
    escalated: bool,
    records: JsValue,
) -> Result<JsValue, JsValue> {
    let result = Object::new();
    Reflect::set(&result, &"key".into(), &key.into())?;
    Reflect::set(&result, &"resolved".into(), &resolved.into())?;
    Reflect::set(&result, &"state".into(), &to_js(&state)?)?;
    Reflect::set(&result, &"escalated".into(), &escalated.into())?;
    Reflect::set(&result, &"records".into(), &records)?;
    Ok(result.into())
}

impl Client {
    async fn reconcile(&self, key: JsValue, query: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let key = key_of("reconcile", &key)?;
        let query: Function = query.dyn_into().map_err(|_| type_error("reconcile: query must be a function"))?;
        let (policy, signal) = reconcile_options(&options).map_err(|e| invalid("reconcile options", &e))?;
        let keyed = Keyed { store: &self.store, key: &key, owner: &self.owner };
        let saved = keyed.load().await?;
        if saved.as_ref().is_some_and(Saved::is_running) {
            // Its owner is still submitting it: that operation's own outcome comes first.
            return Err(type_error(&format!(
                "reconcile: key \"{key}\" is still running; reconcile it once it has ended"
            )));
        }
        let scope = saved.as_ref().map_or_else(|| format!("reconcile:{key}"), |s| s.state.scope.clone());
        let start = Start {
            policy,
            kind: OperationKind::Read,
            priority: Priority::Reconcile,
            scope,
            weight: 1,
            key: Some(key.clone()),
            method: None,
            url: None,
        };
        let abort = AbortWatch::new(signal.into_iter().collect());
        let mut op = Operation::begin(start, clock::now(), clock::wall_now());
        let mut reported = 0;
        let mut action = op.start(clock::now(), &mut self.draws.borrow_mut(), &mut self.budget.borrow_mut());
        let stop = loop {
            self.report(&op, &mut reported);
            action = match action {
                Action::Send { attempt, timeout_ms } => {
                    let found = ask(&query, attempt, timeout_ms, &abort).await?;
                    let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
                    op.on_outcome(clock::now(), clock::wall_now(), &found, &mut draws, &mut budget)
                }
                Action::Sleep { until } => self.sleep(&mut op, until, &abort).await,
                Action::Stop(stop) => break stop,
            };
        };
        let resolved = stop.reason == Reason::Success;
        let escalated = !resolved && stop.reason != Reason::Aborted;
        let evidence = op.records().iter().rev().find_map(|r| r.evidence);
        match keyed.load().await? {
            // Still being submitted by its owner: that operation's own outcome decides the key.
            Some(saved) if saved.is_running() => {}
            Some(_) if resolved => self.store.delete(&key).await?,
            Some(mut saved) => {
                saved.escalated |= escalated;
                saved.last_evidence = evidence.or(saved.last_evidence);
                self.store.set(&key, &to_js(&saved)?).await?;
            }
            None => {}
        }
        let result = outcome(&key, resolved, evidence, escalated, to_js(op.records())?)?;
        if let (true, Some(callback)) = (escalated, &self.on_escalation) {
            // A throwing callback must not lose the result.
            let _ = callback.call1(&JsValue::UNDEFINED, &result);
        }
        Ok(result)
    }

    async fn resolve(&self, key: JsValue, state: JsValue) -> Result<JsValue, JsValue> {
        let key = key_of("resolve", &key)?;
        let evidence =
            state.as_string().and_then(|s| Evidence::from_name(&s)).filter(|e| e.resolves()).ok_or_else(|| {
                invalid("resolve", &InvalidOption::new("state", Problem::UnknownName { allowed: RESOLVING }))
            })?;
        let keyed = Keyed { store: &self.store, key: &key, owner: &self.owner };
        if keyed.load().await?.is_some_and(|saved| saved.is_running()) {
            return Err(type_error(&format!("resolve: key \"{key}\" is still running, not unresolved")));
        }
        self.store.delete(&key).await?;
        outcome(&key, true, Some(evidence), false, js_sys::Array::new().into())
    }
}

const RESOLVING: &str = "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\"";

fn reconcile_options(options: &JsValue) -> Result<(crate::policy::Policy, Option<AbortSignal>), InvalidOption> {
    let mut overrides = crate::input::Loose::Absent;
    let mut signal = None;
    if !(options.is_undefined() || options.is_null() || options.is_object()) {
        return Err(InvalidOption::new(
            "options",
            Problem::WrongType { expected: "an object", found: loose(options).kind() },
        ));
    }
    for name in keys(options) {
        let value = field(options, &name);
        match name.as_str() {
            "policy" => overrides = loose(&value),
            "signal" if value.is_undefined() => {}
            "signal" => {
                signal = Some(value.dyn_into::<AbortSignal>().map_err(|v| {
                    InvalidOption::new(
                        "signal",
                        Problem::WrongType { expected: "an AbortSignal", found: loose(&v).kind() },
                    )
                })?)
            }
            _ => return Err(InvalidOption::new(&name, Problem::UnknownField)),
        }
    }
    Ok((reconciliation_policy(&overrides)?, signal))
}

/// One status query, bounded by `timeout_ms` (it gets a signal, but may ignore it).
async fn ask(query: &Function, attempt: u32, timeout_ms: u64, abort: &AbortWatch) -> Result<Outcome, JsValue> {
    let controller = AbortController::new()?;
    let answer: Latch<Result<JsValue, Observed>> = Latch::new();
    let _timer = {
        let (answer, controller) = (answer.clone(), controller.clone());
        Timeout::after(timeout_ms, move || {
            answer.set(Err(Observed::Timeout));
            controller.abort();
        })
    };
    let _listener = {
        let (answer, controller) = (answer.clone(), controller.clone());
        abort.on_abort(move || {
            answer.set(Err(Observed::Aborted));
            controller.abort();
        })
    };
    if abort.is_aborted() {
        answer.set(Err(Observed::Aborted));
    }
    let argument = Object::new();
    Reflect::set(&argument, &"attempt".into(), &attempt.into())?;
    Reflect::set(&argument, &"signal".into(), &controller.signal())?;
    match query.call1(&JsValue::UNDEFINED, &argument) {
        Ok(returned) => {
            let answer = answer.clone();
            spawn_local(async move {
                // A query that throws or rejects is a failed attempt, like a network error.
                answer.set(JsFuture::from(Promise::resolve(&returned)).await.map_err(|_| Observed::NetworkError));
            });
        }
        Err(_) => answer.set(Err(Observed::NetworkError)),
    }
    match answer.await {
        Ok(value) => match value.as_string().as_deref().and_then(Evidence::from_name) {
            Some(evidence) => Ok(Outcome::evidence(evidence)),
            None => Err(type_error(&format!(
                "reconcile: the query must resolve to one of {}, got {}",
                Evidence::NAMES,
                loose(&value).kind()
            ))),
        },
        Err(observed) => Ok(Outcome::failure(observed)),
    }
}
