//! A call made ready when it is made: the request built (it throws as `fetch` would), the
//! caller's signals gathered, its options handed to the core's [`crate::call::CallSpec`] and its
//! machine begun — its deadline counts from here. Reconciliations and resolutions by hand are
//! calls of the same machine, for another purpose.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::call_options::CallSpec;
use super::client::Client;
use crate::call::{Call, Purpose, Settings};
use crate::machine::Operation;
use crate::policy::Policy;
use crate::reconcile::Evidence;
use crate::redact::Secrets;
use crate::web::executor::{join, Joined, Query, Running, With};

/// A fetch made ready: its own call, or a place in the same read running (`coalesce`).
pub(super) enum Prepared {
    Running(Running),
    Joined(Joined),
}
use crate::web::platform::request::{origin, RequestTemplate};
use crate::web::platform::{clock, values};

impl Client {
    /// A fetch of `input` and `init`, its spec made from the request's method and URL once it is
    /// built (an endpoint family's options under the call's); its error is the call's.
    pub(super) fn prepare(
        &self,
        input: &JsValue,
        init: &JsValue,
        spec: impl FnOnce(&str, &str) -> Result<CallSpec, JsValue>,
    ) -> Result<Prepared, JsValue> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let request = RequestTemplate::new(input, init)?;
        let spec = spec(&request.method, &request.url)?;
        // The request's signal can abort only if it follows one of the caller's: listening to
        // a signal that never aborts would cost a listener on every wait.
        let given = |v: &JsValue| !v.is_undefined() && !v.is_null();
        let init_signal = given(init) && values::get(init, "signal").is_ok_and(|s| given(&s));
        let mut signals: Vec<AbortSignal> = Vec::new();
        if init_signal || (input.is_object() && input.is_instance_of::<web_sys::Request>()) {
            signals.extend(request.signal());
        }
        signals.extend(spec.signal);
        let read_body = spec.core.read_body;
        let stale_ms = spec.core.stale_if_error_ms.unwrap_or(self.defaults.stale_ms);
        let coalesce = spec.core.coalesce.unwrap_or(self.defaults.coalesce);
        // `begin` redacts the URL.
        let start = spec.core.start(&request.method, &request.url, Some(&origin(&request.url)), &Secrets::default());
        let should_retry = spec.should_retry.or_else(|| self.defaults.should_retry.clone());
        let settings = Settings {
            owner: self.defaults.owner.clone(),
            read_body: read_body.unwrap_or(self.defaults.read_body),
            has_body: request.has_body(),
            asks: should_retry.is_some(),
            observed: self.executor.observed(),
            secrets: Secrets::default(),
            stale_ms,
            coalesce,
            // The Rust API sends through the platform's fetch, and carries no answer across tabs.
            platform_fetch: true,
            carries: false,
        };
        let mut call = Call::new(Operation::begin(start, now, wall), Purpose::Fetch, settings, now, wall);
        // Its identity: what a kept response is kept by (headers that cannot be read: none kept).
        if let Some(headers) = call.wants_identity().then(|| request.header_fields()).flatten() {
            let scope = call.operation().scope().to_owned();
            call.offer(crate::call::request_key(&scope, &request.method, &request.url, &headers));
        }
        // The same read running for this client: it joins it rather than sending its own.
        if let Some(joined) = join(&self.executor, &call, signals.clone()) {
            return Ok(Prepared::Joined(joined));
        }
        let with = With { request: Some(request), waits: spec.waits, signals, should_retry, query: None };
        Ok(Prepared::Running(Running::new(call, &self.executor, with)))
    }

    /// A reconciliation of `key` (already checked) by `query` under `policy`, from now.
    pub(super) fn reconciliation(
        &self,
        key: &str,
        query: Query,
        policy: Policy,
        signal: Option<AbortSignal>,
    ) -> Running {
        let with = With { signals: signal.into_iter().collect(), query: Some(query), ..With::default() };
        Running::new(self.settled_by(key, policy, Purpose::Reconcile), &self.executor, with)
    }

    /// The resolution of `key` (already checked) by hand with `state`, which settles it: its store
    /// calls are bounded like one attempt of the client's policy.
    pub(super) fn resolution(&self, key: &str, state: Evidence) -> Running {
        let policy = self.defaults.policy.clone();
        Running::new(self.settled_by(key, policy, Purpose::Resolve(state)), &self.executor, With::default())
    }

    /// A call that settles `key`'s unknown outcome, for `purpose`.
    fn settled_by(&self, key: &str, policy: Policy, purpose: Purpose) -> Call {
        let (now, wall) = (clock::now(), clock::wall_now());
        let settings = Settings {
            owner: self.defaults.owner.clone(),
            observed: self.executor.observed(),
            secrets: Secrets::default(),
            ..Settings::default()
        };
        Call::settling(key, purpose, policy, settings, now, wall)
    }
}
