//! A call made ready when it is made: the request built (it throws as `fetch` would), the options
//! resolved, the caller's signals gathered and the machine begun — its deadline counts from here.
//! Reconciliations and resolutions by hand are calls of the same machine, for another purpose.

use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::ask::Predicate;
use super::client::Executor;
use super::flights::Query;
use super::run::Running;
use crate::budget::Priority;
use crate::call::{Call, Purpose, Settings};
use crate::classify::OperationKind;
use crate::machine::{Operation, Start};
use crate::policy::Policy;
use crate::reconcile::{status_start, Evidence};
use crate::redact::Secrets;
use crate::web::platform::abort::AbortWatch;
use crate::web::platform::request::{origin, RequestTemplate};
use crate::web::platform::response::Waits;
use crate::web::platform::{clock, values};

/// What a call asks beyond the client's defaults, already checked.
pub struct CallSpec {
    /// The policy it runs under, its family's and its own merged over the client's.
    pub policy: Policy,
    pub operation: Option<OperationKind>,
    pub priority: Option<Priority>,
    pub key: Option<String>,
    pub scope: Option<String>,
    pub weight: u32,
    pub signal: Option<AbortSignal>,
    pub read_body: Option<bool>,
    /// Its own predicate, or its family's (default: the client's).
    pub should_retry: Option<Predicate>,
    /// The provider wait headers its responses are read for.
    pub waits: Waits,
}

impl Executor {
    /// A fetch of `input` and `init`, its spec made from the request's method and URL once it is
    /// built (an endpoint family's options under the call's); its error is the call's.
    pub fn prepare(
        self: &Rc<Self>,
        input: &JsValue,
        init: &JsValue,
        spec: impl FnOnce(&str, &str) -> Result<CallSpec, JsValue>,
    ) -> Result<Running, JsValue> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let template = RequestTemplate::new(input, init)?;
        let spec = spec(&template.method, &template.url)?;
        // The request's signal can abort only if it follows one of the caller's: listening to
        // a signal that never aborts would cost a listener on every wait.
        let given = |v: &JsValue| !v.is_undefined() && !v.is_null();
        let init_signal = given(init) && values::get(init, "signal").is_ok_and(|s| given(&s));
        let mut signals: Vec<AbortSignal> = Vec::new();
        if init_signal || (input.is_object() && input.is_instance_of::<web_sys::Request>()) {
            signals.extend(template.signal());
        }
        signals.extend(spec.signal);
        let kind = spec.operation.unwrap_or_else(|| OperationKind::from_method(&template.method));
        let start = Start {
            policy: spec.policy,
            kind,
            priority: spec.priority.unwrap_or(Priority::for_kind(kind)),
            scope: spec.scope.unwrap_or_else(|| origin(&template.url)),
            weight: spec.weight,
            key: spec.key,
            method: Some(template.method.clone()),
            // `begin` redacts it.
            url: Some(template.url.clone()),
        };
        let should_retry = spec.should_retry.or_else(|| self.should_retry.clone());
        let settings = Settings {
            owner: self.owner.clone(),
            read_body: spec.read_body.unwrap_or(self.read_body),
            has_body: template.has_body(),
            asks: should_retry.is_some(),
            observed: self.observer.is_some(),
            secrets: Secrets::default(),
        };
        let call = Call::new(Operation::begin(start, now, wall), Purpose::Fetch, settings, now, wall);
        let running = Running::new(call, self.clone(), AbortWatch::new(signals));
        Ok(running.sending(template, spec.waits).asking(should_retry))
    }

    /// A reconciliation of `key` (already checked) by `query` under `policy`, from now.
    pub fn reconciliation(
        self: &Rc<Self>,
        key: &str,
        query: Query,
        policy: Policy,
        signal: Option<AbortSignal>,
    ) -> Running {
        let signals = AbortWatch::new(signal.into_iter().collect());
        Running::new(self.settled_by(key, policy, Purpose::Reconcile), self.clone(), signals).querying(query)
    }

    /// The resolution of `key` (already checked) by hand with `state`, which settles it: its store
    /// calls are bounded like one attempt of the client's policy.
    pub fn resolution(self: &Rc<Self>, key: &str, state: Evidence) -> Running {
        let timeout = self.policy.attempt_timeout_ms();
        let policy = self.policy.with_call_deadline("deadlineMs", timeout).unwrap_or_default();
        Running::new(self.settled_by(key, policy, Purpose::Resolve(state)), self.clone(), AbortWatch::new(Vec::new()))
    }

    /// A call that settles `key`'s unknown outcome, for `purpose`.
    fn settled_by(&self, key: &str, policy: Policy, purpose: Purpose) -> Call {
        let (now, wall) = (clock::now(), clock::wall_now());
        let what = if purpose == Purpose::Reconcile { "reconcile" } else { "resolve" };
        let settings = Settings {
            owner: self.owner.clone(),
            observed: self.observer.is_some(),
            secrets: Secrets::default(),
            ..Settings::default()
        };
        Call::new(Operation::begin(status_start(key, policy, what), now, wall), purpose, settings, now, wall)
    }
}
