//! [`Client`]: `fetch` with retries, for Rust callers on wasm32.

use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};

use super::call_options::CallOptions;
use super::error::Error;
use super::family::{Family, FamilyRequest};
use super::settle::{settled, Settled};
use crate::policy::Policy;
use crate::text;
use crate::web::executor::{Executor, Predicate};
use crate::web::platform::errors::{invalid, type_error};
use crate::web::platform::values::kind;

/// Retries `fetch` under a policy; cheap to clone (clones share everything).
///
/// Made by [`Client::new`] or [`Client::builder`].
#[derive(Clone)]
pub struct Client {
    pub(super) executor: Rc<Executor>,
    pub(super) defaults: Rc<Defaults>,
    /// Endpoint families, in the order declared: the first that takes a request gives its options.
    pub(super) families: Rc<[Family]>,
}

/// What a client's calls run under unless they say otherwise.
pub(super) struct Defaults {
    pub policy: Policy,
    /// Names this client in the leases it writes.
    pub owner: String,
    pub read_body: bool,
    pub should_retry: Option<Predicate>,
    /// `staleIfErrorMs` of its calls (0: never).
    pub stale_ms: u64,
    /// `coalesce` of its calls.
    pub coalesce: bool,
}

impl Client {
    /// `fetch(request)` with retries under the client's policy and `options`: the successful
    /// response, or why the operation stopped. Dropping the future cancels the call.
    pub async fn fetch(&self, request: &web_sys::Request, options: CallOptions) -> Result<web_sys::Response, Error> {
        self.run(request.as_ref(), &JsValue::UNDEFINED, None, options).await
    }

    /// `GET url` with retries.
    pub async fn get(&self, url: &str, options: CallOptions) -> Result<web_sys::Response, Error> {
        self.run(&JsValue::from_str(url), &JsValue::UNDEFINED, None, options).await
    }

    /// `method url` with `headers` and a text `body`, with retries.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
        options: CallOptions,
    ) -> Result<web_sys::Response, Error> {
        let init = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&init, &k.into(), v).map(|_| ());
        let header_pairs = js_sys::Array::new();
        for (name, value) in headers {
            header_pairs.push(&js_sys::Array::of2(&(*name).into(), &(*value).into()));
        }
        set("method", &method.into())
            .and_then(|()| set("headers", &header_pairs))
            .and_then(|()| body.map_or(Ok(()), |b| set("body", &b.into())))
            .map_err(Error::Invalid)?;
        self.run(&JsValue::from_str(url), &init, body, options).await
    }

    async fn run(
        &self,
        input: &JsValue,
        init: &JsValue,
        body: Option<&str>,
        options: CallOptions,
    ) -> Result<web_sys::Response, Error> {
        let policy = &self.defaults.policy;
        let checked = |options: CallOptions, family: Option<&Family>| {
            let layer = family.and_then(|f| f.policy.as_ref());
            options.checked(policy, layer)
        };
        // The call's own options are checked before the request is built, with or without families
        // (its policy fields, with a family, once merged over the family's).
        let context = "fetch options";
        let kept = (!self.families.is_empty()).then(|| options.clone());
        let own = match kept.is_some() {
            true => CallOptions { policy: None, policy_fields: None, ..options },
            false => options,
        };
        let own = checked(own, None).map_err(|e| Error::Invalid(invalid(context, &e)))?;
        let running = self.prepare(input, init, |method, url| {
            let Some(family) = self.families.iter().find(|f| f.matcher.test(method, url)) else {
                return kept.map_or(Ok(own), |options| checked(options, None).map_err(|e| invalid(context, &e)));
            };
            let named = text::join(&["fetch: family \"", family.name(), "\""]);
            let request = FamilyRequest { method, url, body };
            let merged = family.under(kept.unwrap_or_default(), &request)?;
            let mut spec = checked(merged, Some(family)).map_err(|e| invalid(&named, &e))?;
            spec.waits = family.waits();
            Ok(spec)
        });
        let running = match running.map_err(Error::Invalid)? {
            super::prepare::Prepared::Running(running) => running,
            super::prepare::Prepared::Joined(joined) => return super::stale::joined(joined.await),
        };
        // Dropped before it ends: its timer is cleared and its requests aborted.
        match settled(running).await {
            Settled::Response(response) => response.dyn_into::<web_sys::Response>().map_err(|other| {
                Error::Invalid(type_error(&text::join(&["fetch gave ", kind(&other), ", not a Response"])))
            }),
            Settled::Stopped(stopped) => Err(Error::Stopped(stopped)),
            Settled::Thrown(error) => Err(Error::Invalid(error)),
            Settled::Reconciled(_) => Err(Error::Invalid(type_error("fetch ended as a reconciliation"))),
        }
    }
}
