//! One attempt on the wire: the request, its timeout, and what came back.
//!
//! The attempt timeout covers connect, headers *and* body, so the body is read here,
//! inside the timeout, and the caller receives a `Response` rebuilt from the bytes.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Response};

use super::abort::AbortWatch;
use super::request::RequestTemplate;
use super::timer::Timeout;
use super::value::construct;
use crate::classify::Observed;
use crate::machine::Outcome;

/// The `fetch` that attempts go through.
pub enum Fetcher {
    /// `globalThis.fetch`, looked up at each call so that late polyfills and test doubles apply.
    Global,
    /// `options.fetch`.
    Given(Function),
}

impl Fetcher {
    fn call(&self, request: &JsValue) -> Result<JsValue, JsValue> {
        let global = js_sys::global();
        let f: Function = match self {
            Fetcher::Given(f) => f.clone(),
            Fetcher::Global => Reflect::get(&global, &JsValue::from_str("fetch"))?.dyn_into()?,
        };
        // `this` is the global object: some platform fetches throw "Illegal invocation" otherwise.
        f.call1(&global, request)
    }
}

/// What one attempt produced.
pub struct Attempt {
    pub outcome: Outcome,
    pub response: Option<Response>,
    /// Whether the request was handed to `fetch` at all (not when the caller had already aborted).
    pub transmitted: bool,
}

impl Attempt {
    fn failed(observed: Observed) -> Self {
        Attempt { outcome: Outcome::failure(observed), response: None, transmitted: true }
    }
}

/// Sends one attempt and waits for its response and body, for at most `timeout_ms`.
pub async fn send(fetcher: &Fetcher, template: &RequestTemplate, timeout_ms: u64, abort: &AbortWatch) -> Attempt {
    let Ok(controller) = AbortController::new() else {
        return Attempt::failed(Observed::NetworkError);
    };
    let timed_out = Rc::new(Cell::new(false));
    let _timer = {
        let (controller, timed_out) = (controller.clone(), timed_out.clone());
        Timeout::after(timeout_ms, move || {
            timed_out.set(true);
            controller.abort();
        })
    };
    let _link = {
        let controller = controller.clone();
        abort.on_abort(move || controller.abort())
    };
    let failure = || {
        if timed_out.get() {
            Observed::Timeout
        } else if abort.is_aborted() {
            Observed::Aborted
        } else {
            Observed::NetworkError
        }
    };
    if abort.is_aborted() {
        return Attempt { transmitted: false, ..Attempt::failed(Observed::Aborted) };
    }
    // Counted as sent: never seen in practice, and an order is safer called unknown than repeated.
    let Ok(request) = template.for_attempt(&controller.signal()) else {
        return Attempt::failed(Observed::NetworkError);
    };
    let response = match fetcher.call(&request) {
        Ok(promise) => JsFuture::from(js_sys::Promise::resolve(&promise)).await,
        Err(e) => Err(e),
    };
    let Ok(response) = response.and_then(|r| r.dyn_into::<Response>()) else {
        return Attempt::failed(failure());
    };
    let body = match response.array_buffer() {
        Ok(promise) => JsFuture::from(promise).await,
        Err(e) => Err(e),
    };
    let Ok(body) = body else {
        return Attempt::failed(failure());
    };
    let headers = response.headers();
    let outcome = Outcome {
        observed: Observed::Response,
        status: Some(response.status()),
        retry_after: headers.get("retry-after").ok().flatten(),
        date: headers.get("date").ok().flatten(),
        evidence: None,
    };
    Attempt { outcome, response: Some(buffered(&response, &body).unwrap_or(response)), transmitted: true }
}

/// A response with its body already read, keeping `url` and `redirected`.
fn buffered(original: &Response, body: &JsValue) -> Result<Response, JsValue> {
    let status = original.status();
    // These statuses must not carry a body, not even an empty one.
    let body = if matches!(status, 101 | 103 | 204 | 205 | 304) { JsValue::NULL } else { body.clone() };
    let init = Object::new();
    Reflect::set(&init, &"status".into(), &status.into())?;
    Reflect::set(&init, &"statusText".into(), &original.status_text().into())?;
    Reflect::set(&init, &"headers".into(), &original.headers())?;
    let copy: Response = construct("Response", &[&body, &init])?.dyn_into()?;
    for (name, value) in [("url", JsValue::from(original.url())), ("redirected", original.redirected().into())] {
        let descriptor = Object::new();
        Reflect::set(&descriptor, &"value".into(), &value)?;
        Object::define_property(&copy, &name.into(), &descriptor);
    }
    Ok(copy)
}
