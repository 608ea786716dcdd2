//! `RetryClient`: drives the core's [`Operation`] with real requests and timers.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;
use web_sys::{AbortSignal, Response};

use super::abort::AbortWatch;
use super::clock;
use super::error::{retry_error, type_error, Failure};
use super::fetch::{self, Fetcher};
use super::keyed::{Claimed, Keyed};
use super::options::{CallOptions, ClientOptions};
use super::request::{RequestTemplate, Unread};
use super::store::Store;
use super::timer;
use super::to_js;
use crate::budget::{Budget, Priority};
use crate::classify::OperationKind;
use crate::draw::Draws;
use crate::durable::Refusal;
use crate::machine::{Action, Operation, Start};
use crate::reason::{Reason, Stop};
use crate::record::AttemptRecord;
use crate::redact::redact_url;

/// Wraps `fetch` with a retry policy.
#[wasm_bindgen(js_name = RetryClient)]
pub struct RetryClient {
    pub(super) core: Rc<Client>,
}

pub(super) struct Client {
    pub policy: crate::policy::Policy,
    pub budget: Rc<RefCell<Budget>>,
    pub draws: RefCell<Draws>,
    pub fetcher: Fetcher,
    pub on_attempt: Option<Function>,
    pub on_escalation: Option<Function>,
    pub store: Store,
    /// Names this client in the leases it writes.
    pub owner: String,
}

#[wasm_bindgen(js_class = RetryClient)]
impl RetryClient {
    /// Validates every option; throws a `TypeError`/`RangeError` naming the field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<RetryClient, JsValue> {
        let options = ClientOptions::parse(&options)?;
        let seed = options.seed.unwrap_or_else(entropy);
        let client = Client {
            policy: options.policy,
            budget: options.budget.unwrap_or_else(|| Rc::new(RefCell::new(Budget::default()))),
            draws: RefCell::new(Draws::seeded(seed)),
            fetcher: options.fetcher,
            on_attempt: options.on_attempt,
            on_escalation: options.on_escalation,
            store: options.store.unwrap_or_else(Store::memory),
            owner: format!("{:016x}", entropy()),
        };
        Ok(RetryClient { core: Rc::new(client) })
    }

    /// Like `fetch(input, init)`, with retries; resolves with the successful `Response`
    /// or rejects with a `RetryError`.
    pub fn fetch(&self, input: JsValue, init: JsValue, options: JsValue) -> Promise {
        let core = self.core.clone();
        future_to_promise(async move { core.run(input, init, options).await })
    }
}

/// A seed from `getrandom`, or from the clocks if it has no source.
fn entropy() -> u64 {
    let mut bytes = [0u8; 8];
    match getrandom::getrandom(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        Err(_) => clock::wall_now() ^ clock::now().rotate_left(32),
    }
}

/// `scheme://host[:port]` of a URL, the default scope.
fn origin(url: &str) -> String {
    web_sys::Url::new(url).map(|u| u.origin()).unwrap_or_else(|_| url.to_owned())
}

impl Client {
    async fn run(&self, input: JsValue, init: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
        let call = CallOptions::parse(&options, &self.policy)?;
        let mut template = RequestTemplate::new(&input, &init)?;
        let mut signals: Vec<AbortSignal> = vec![template.signal()];
        signals.extend(call.signal.clone());
        let abort = AbortWatch::new(signals);
        let keyed = call.key.as_deref().map(|key| Keyed { store: &self.store, key, owner: &self.owner });

        let kind = call.operation.unwrap_or_else(|| OperationKind::from_method(&template.method));
        let scope = call.scope.clone().unwrap_or_else(|| origin(&template.url));
        let start = Start {
            policy: call.policy.clone(),
            kind,
            priority: call.priority.unwrap_or(Priority::for_kind(kind)),
            scope: scope.clone(),
            weight: call.weight,
            key: call.key.clone(),
            method: Some(template.method.clone()),
            url: Some(template.url.clone()),
        };
        let mut op = Operation::begin(start, clock::now(), clock::wall_now());
        let mut resumed = false;
        if let Some(keyed) = &keyed {
            match keyed.claim(&abort).await? {
                Claimed::Fresh => {}
                Claimed::Resume(state) => {
                    let mut budget = self.budget.borrow_mut();
                    op = Operation::restore(*state, clock::now(), clock::wall_now(), &mut budget)
                        .map_err(|e| type_error(&e.to_string()))?;
                    resumed = true;
                }
                Claimed::Refused(refusal, records) => return Err(self.refused(&template, keyed.key, refusal, &records)),
                Claimed::Aborted => {
                    let stop = op.stop_unstarted(clock::now(), Reason::Aborted);
                    return Err(self.failure(&op, stop, &template, None));
                }
            }
        }
        match template.buffer(&abort, op.deadline_at().saturating_sub(clock::now())).await {
            Ok(()) => {}
            Err(Unread::Failed(error)) => return Err(error),
            Err(Unread::Stop(reason)) => {
                let stop = op.stop_unstarted(clock::now(), reason);
                return Err(self.failure(&op, stop, &template, None));
            }
        }
        // A resumed operation's earlier records were reported by the process that made them.
        let mut reported = op.records().len();
        let mut last_response: Option<Response> = None;
        let mut action = {
            let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
            if resumed {
                op.resume(clock::now(), clock::wall_now(), &mut draws, &mut budget)
            } else {
                op.start(clock::now(), &mut draws, &mut budget)
            }
        };
        loop {
            self.report(&op, &mut reported);
            if let (Some(keyed), Action::Send { .. } | Action::Sleep { .. }) = (&keyed, action) {
                // Saved before the request leaves and before each sleep, so a restart resumes from here.
                keyed.save(&op, &self.budget).await?;
            }
            action = match action {
                Action::Send { timeout_ms, .. } => {
                    let attempt = fetch::send(&self.fetcher, &template, timeout_ms, &abort).await;
                    let (now, wall) = (clock::now(), clock::wall_now());
                    if !attempt.transmitted {
                        Action::Stop(op.withdraw(now, &mut self.budget.borrow_mut()))
                    } else {
                        if let Some(response) = attempt.response {
                            self.follow_used_weight(&scope, &response, now);
                            last_response = Some(response);
                        }
                        let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
                        op.on_outcome(now, wall, &attempt.outcome, &mut draws, &mut budget)
                    }
                }
                Action::Sleep { until } => self.sleep(&mut op, until, &abort).await,
                Action::Stop(stop) => {
                    if let Some(keyed) = &keyed {
                        // Written before the promise settles: an unknown outcome is never lost.
                        keyed.finish(&op, &self.budget).await?;
                    }
                    if stop.reason == Reason::Success {
                        return Ok(last_response.map(JsValue::from).unwrap_or(JsValue::UNDEFINED));
                    }
                    return Err(self.failure(&op, stop, &template, last_response));
                }
            };
        }
    }

    /// Sleeps until `until`, then lets the operation check its gate again; an abort stops it.
    pub(super) async fn sleep(&self, op: &mut Operation, until: u64, abort: &AbortWatch) -> Action {
        let slept = timer::sleep(until.saturating_sub(clock::now()), abort).await;
        let mut budget = self.budget.borrow_mut();
        if slept {
            op.on_wake(clock::now(), &mut budget)
        } else {
            Action::Stop(op.abort(clock::now(), &mut budget))
        }
    }

    /// The `RetryError` for an operation that stopped without success.
    fn failure(&self, op: &Operation, stop: Stop, template: &RequestTemplate, response: Option<Response>) -> JsValue {
        self.error(stop, template, op.key(), op.records(), response, None)
    }

    /// The `RetryError` for a key that may not run now; its records are the saved operation's.
    fn refused(&self, template: &RequestTemplate, key: &str, refusal: Refusal, records: &[AttemptRecord]) -> JsValue {
        let detail = match refusal {
            Refusal::Unresolved => format!(
                "key \"{key}\" has an order whose outcome is unknown; reconcile it (client.reconcile) or close it (client.resolve)"
            ),
            Refusal::InUse => format!("key \"{key}\" is being run by another client sharing the store"),
        };
        let stop = Stop { reason: Reason::UnknownOutcome, at_ms: 0 };
        self.error(stop, template, Some(key), records, None, Some(&detail))
    }

    fn error(
        &self,
        stop: Stop,
        template: &RequestTemplate,
        key: Option<&str>,
        records: &[AttemptRecord],
        response: Option<Response>,
        detail: Option<&str>,
    ) -> JsValue {
        let url = redact_url(&template.url);
        let records_js = match to_js(records) {
            Ok(records) => records,
            Err(error) => return error,
        };
        retry_error(Failure {
            stop,
            method: &template.method,
            url: Some(&url),
            key,
            response: response.map(JsValue::from),
            records,
            records_js,
            detail,
        })
    }

    /// Corrects the scope's bucket from the provider's own count, when the budget names its header.
    fn follow_used_weight(&self, scope: &str, response: &Response, now: u64) {
        let mut budget = self.budget.borrow_mut();
        let Some(header) = budget.used_weight_header(scope) else { return };
        let used =
            response.headers().get(header).ok().flatten().and_then(|v| v.trim_matches([' ', '\t']).parse::<u64>().ok());
        if let Some(used) = used {
            budget.observe_used_weight(scope, used, now);
        }
    }

    /// Hands each record made since the last call to `onAttempt`.
    pub(super) fn report(&self, op: &Operation, reported: &mut usize) {
        let records = op.records();
        let Some(callback) = &self.on_attempt else {
            *reported = records.len();
            return;
        };
        for record in records.iter().skip(*reported) {
            if let Ok(value) = to_js(record) {
                // A throwing callback must not break the operation it observes.
                let _ = callback.call1(&JsValue::UNDEFINED, &value);
            }
        }
        *reported = records.len();
    }
}
