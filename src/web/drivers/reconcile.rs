//! Settling an order whose outcome is unknown, by evidence ([`Driver::reconcile`]) or by hand
//! ([`Driver::resolve`]).
//!
//! The queries are an operation of the core's (reads at `reconcile` priority), fed evidence
//! instead of statuses. The reconciliation's deadline is fixed when it is called and bounds every
//! wait: the caller's query (which gets a signal, but may ignore it) and every store call.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use wasm_bindgen::JsValue;
use web_sys::{AbortController, AbortSignal};

use super::driver::Driver;
use super::failed::{redacted, Failed, Failure};
use crate::budget::Priority;
use crate::classify::{Observed, OperationKind};
use crate::durable::Saved;
use crate::failure::{Cut, Note};
use crate::input::{InvalidOption, Problem};
use crate::json::to_json;
use crate::machine::{Action, Operation, Outcome, Start};
use crate::policy::Policy;
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::{AttemptRecord, Pending};
use crate::text;
use crate::web::platform::abort::{self, AbortWatch};
use crate::web::platform::clock;
use crate::web::platform::errors::{describe, invalid, type_error};
use crate::web::platform::race::{Ended, Race};
use crate::web::platform::spawn::promise;
use crate::web::platform::store::Fault;

/// The caller's status query: attempt (from 1) and a signal that fires when its time is up in,
/// what it found (or why it failed) out.
pub type Query = Rc<dyn Fn(u32, AbortSignal) -> Pin<Box<dyn Future<Output = Result<Evidence, String>>>>>;

/// How a reconciliation (or a resolution by hand) ended.
pub struct Settlement {
    pub key: String,
    /// The evidence settled it: the key is gone from the store.
    pub resolved: bool,
    /// The last evidence the queries found, or the state given by hand.
    pub state: Option<Evidence>,
    /// The policy ran out unresolved (the store keeps the key, marked).
    pub escalated: bool,
    pub records: Vec<AttemptRecord>,
    /// The store could not be brought up to date: what it said.
    pub store_error: Option<String>,
}

/// A reconciliation, prepared when it is called: its deadline counts from then.
pub struct Reconciliation {
    key: String,
    query: Query,
    start: Start,
    called_at: (u64, u64),
    abort: AbortWatch,
}

/// The evidence names that settle an order (all but `not-found`).
const RESOLVING: &str = "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\"";

impl Driver {
    /// A reconciliation of `key` (already checked) by `query` under `policy`, from now.
    pub fn reconciliation(key: String, query: Query, policy: Policy, signal: Option<AbortSignal>) -> Reconciliation {
        let start = status_start(&key, policy, "reconcile");
        let called_at = (clock::now(), clock::wall_now());
        Reconciliation { key, query, start, called_at, abort: AbortWatch::new(signal.into_iter().collect()) }
    }

    /// Asks the query until its evidence settles the key or the policy runs out; never resends.
    pub async fn reconcile(&self, run: Reconciliation) -> Result<Settlement, Failed> {
        let Reconciliation { key, query, mut start, called_at: (now, wall), abort } = run;
        let keyed = self.keyed(&key);
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
        let mut action = op.start(clock::now(), &mut self.draws.borrow_mut(), &mut self.budget.borrow_mut());
        self.leave_budget(&op);
        let stop = loop {
            self.report(&op, &mut reported);
            action = match action {
                Action::Send { attempt, timeout_ms } => {
                    let found = ask(&query, attempt, timeout_ms, &abort).await.map_err(Failed::Thrown)?;
                    self.enter_budget(&op).await;
                    let (now, wall) = (clock::now(), clock::wall_now());
                    let next =
                        op.on_outcome(now, wall, &found, &mut self.draws.borrow_mut(), &mut self.budget.borrow_mut());
                    self.leave_budget(&op);
                    next
                }
                Action::Sleep { .. } => self.sleep(&mut op, &abort).await,
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
                self.store.set(&key, to_json(&saved), &race).await
            }
            Ok(None) => Ok(()),
            Err(fault) => Err(fault),
        };
        let store_error = kept.err().map(|fault| redacted(&fault.describe()));
        if let Some(detail) = &store_error {
            op.note_store_failure(detail.clone());
        }
        self.report(&op, &mut reported);
        let records = op.records().to_vec();
        Ok(Settlement { key, resolved, state: evidence, escalated, records, store_error })
    }

    /// Closes `key` (already checked) by hand with `state`, which must settle it.
    pub async fn resolve(&self, key: &str, state: Evidence) -> Result<Settlement, Failed> {
        let started = clock::now();
        if !state.resolves() {
            let problem = Problem::UnknownName { allowed: RESOLVING };
            return Err(Failed::Thrown(invalid("resolve", &InvalidOption::new("state", problem))));
        }
        let key = key.to_owned();
        // Each store call is bounded like one attempt of the client's policy.
        let mut op = Operation::begin(self.resolution_start(&key), started, clock::wall_now());
        let race = within(op.deadline_at(), None);
        match self.keyed(&key).load(&race).await {
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
        Ok(Settlement {
            key,
            resolved: true,
            state: Some(state),
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
        let (reason, pending) = match &fault {
            Fault::Failed { pending, .. } => (Reason::Store, *pending),
            Fault::Cut { pending, cut } => (cut.reason(), *pending),
        };
        let detail = redacted(&fault.describe());
        let stop = op.cancel(clock::now(), reason, Some(pending), &mut self.budget.borrow_mut());
        op.note_store_failure(detail.clone());
        Failed::Stopped(Box::new(Failure {
            reason: stop.reason,
            method: "reconcile".to_owned(),
            url: text::join(&["key \"", op.key().unwrap_or_default(), "\""]),
            key: op.key().map(str::to_owned),
            response: None,
            records: op.records().to_vec(),
            detail: None,
            note: Note::Store(detail),
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

/// One status query, bounded by `timeout_ms` (it gets a signal, but may ignore it).
async fn ask(query: &Query, attempt: u32, timeout_ms: u64, abort: &AbortWatch) -> Result<Outcome, JsValue> {
    let controller = AbortController::new()?;
    let race = Race::new().cut_after(timeout_ms, Cut::Timeout).cut_on_abort(abort);
    // The query's future as a promise, so that it races the timers as a JavaScript value would.
    let found = query(attempt, controller.signal());
    let asked = promise(async move { found.await.map(|e| e.name().into()).map_err(|e| JsValue::from_str(&e)) });
    let observed = match race.wait_call(Ok(asked.into())).await {
        Ended::Settled(Ok(value)) => {
            // A name the query's own `Evidence` wrote.
            let evidence = value.as_string().as_deref().and_then(Evidence::from_name);
            return evidence
                .map(Outcome::evidence)
                .ok_or_else(|| type_error("reconcile: the query's evidence was lost"));
        }
        // A query that fails is a failed attempt, like a network error.
        Ended::Settled(Err(e)) => {
            return Ok(Outcome { error: Some(describe(&e)), ..Outcome::failure(Observed::NetworkError) })
        }
        Ended::Cut(Cut::Aborted) => Observed::Aborted,
        Ended::Cut(_) => Observed::Timeout,
    };
    abort::abort(&controller, observed == Observed::Timeout);
    Ok(Outcome { pending: Some(Pending::Query), ..Outcome::failure(observed) })
}
