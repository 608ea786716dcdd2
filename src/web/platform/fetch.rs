//! One attempt on the wire, through the global `fetch`: the request, its timeout, and what came back.
//!
//! The attempt timeout covers connect and headers. With `readBody`, it covers the body too:
//! the body is read here, inside the timeout, and the caller receives a `Response` rebuilt
//! from the bytes; otherwise the response is handed on as the platform gave it. The timeout
//! is our timer racing the platform's promises: a `fetch` or a body that ignores its
//! `AbortSignal` still loses.

use wasm_bindgen::prelude::*;
use web_sys::AbortController;

use super::abort::{self, AbortWatch};
use super::errors::describe;
use super::race::{Ended, Race};
use super::request::RequestTemplate;
use super::response::{self, Received};
use super::values;
use crate::classify::Observed;
use crate::failure::Cut;
use crate::machine::Outcome;
use crate::record::Pending;
use crate::text;

/// `globalThis.fetch(input, init)`, looked up at each call so that late polyfills and test
/// doubles apply.
fn global_fetch(input: &JsValue, init: &JsValue) -> Result<JsValue, JsValue> {
    let global = js_sys::global();
    let f = values::get(&global, "fetch")?;
    if !f.is_function() {
        return Err(js_sys::TypeError::new("there is no global fetch").into());
    }
    // `this` is the global object: some platform fetches throw "Illegal invocation" otherwise.
    match init.is_undefined() {
        true => values::call(&f, &global, &[input]),
        false => values::call(&f, &global, &[input, init]),
    }
}

/// What one attempt produced.
pub struct Attempt {
    pub outcome: Outcome,
    pub response: Option<Received>,
    /// Whether the request was handed to `fetch` at all (not when the caller had already aborted).
    pub transmitted: bool,
    /// The provider's count of weight used, from the budget's header.
    pub used_weight: Option<u64>,
}

impl Attempt {
    fn failed(observed: Observed, error: Option<String>, pending: Option<Pending>) -> Self {
        let outcome = Outcome { error, pending, ..Outcome::failure(observed) };
        Attempt { outcome, response: None, transmitted: true, used_weight: None }
    }

    fn cut(cut: Cut, pending: Pending) -> Self {
        match cut {
            Cut::Aborted => Attempt::failed(Observed::Aborted, None, Some(pending)),
            Cut::Timeout | Cut::Deadline => Attempt::failed(Observed::Timeout, None, Some(pending)),
        }
    }

    fn broken(error: String) -> Self {
        Attempt::failed(Observed::NetworkError, Some(error), None)
    }
}

/// Aborts an attempt's controller when dropped armed: its future was dropped while it waited.
struct AbortOnDrop<'a>(Option<&'a AbortController>);

impl AbortOnDrop<'_> {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(controller) = self.0 {
            abort::abort(controller, false);
        }
    }
}

/// Whether this is a page or a worker of one: there the HTTP cache holds a second GET of a URL until
/// the first ends (Chromium's cache lock), so a hedge must skip it. Not elsewhere: workerd may refuse `cache`.
fn in_a_browser() -> bool {
    let global = js_sys::global();
    ["window", "importScripts"].iter().any(|name| values::get(&global, name).is_ok_and(|v| !v.is_undefined()))
}

/// `init` with `cache: "no-store"` (a hedge's request, in a browser).
fn uncached(init: JsValue) -> JsValue {
    let init = if init.is_object() { init } else { js_sys::Object::new().into() };
    let _ = values::define(&init, "cache", &JsValue::from_str("no-store"));
    init
}

/// Sends one attempt and waits for its response (and its body, with `read_body`) for at most `limit_ms`.
pub async fn send(
    template: &RequestTemplate,
    limit_ms: u64,
    abort: &AbortWatch,
    used_weight_header: Option<&str>,
    read_body: bool,
) -> Attempt {
    send_as(template, limit_ms, abort, used_weight_header, read_body, false).await
}

/// [`send`], for a hedge when `hedge` (its request skips a browser's HTTP cache).
pub async fn send_as(
    template: &RequestTemplate,
    limit_ms: u64,
    abort: &AbortWatch,
    used_weight_header: Option<&str>,
    read_body: bool,
    hedge: bool,
) -> Attempt {
    if abort.is_aborted() {
        return Attempt { transmitted: false, ..Attempt::failed(Observed::Aborted, None, None) };
    }
    let Ok(controller) = AbortController::new() else {
        return Attempt::broken("no AbortController could be made".to_owned());
    };
    let race = Race::new().cut_after(limit_ms, Cut::Timeout).cut_on_abort(abort);
    // Until the attempt has its answer, dropping this future (the Rust API's cancel) aborts it.
    let in_flight = AbortOnDrop(Some(&controller));
    // Counted as sent: never seen in practice, and an order is safer called unknown than repeated.
    let (input, init) = match template.for_attempt(&controller.signal()) {
        Ok((input, init)) if hedge && in_a_browser() => (input, uncached(init)),
        Ok(arguments) => arguments,
        Err(e) => return Attempt::broken(text::join(&["the request could not be rebuilt: ", &describe(&e)])),
    };
    let value = match race.wait_call(global_fetch(&input, &init)).await {
        Ended::Settled(Ok(value)) => value,
        Ended::Settled(Err(e)) => return Attempt::broken(describe(&e)),
        Ended::Cut(cut) => {
            abort::abort(&controller, cut != Cut::Aborted);
            return Attempt::cut(cut, Pending::Response);
        }
    };
    let head = match response::head(&value, used_weight_header) {
        Ok(head) => head,
        Err(why) => return Attempt::broken(why),
    };
    let outcome = Outcome {
        retry_after: head.retry_after.clone(),
        retry_after_unreadable: head.retry_after_unreadable,
        date: head.date.clone(),
        ..Outcome::response(head.status)
    };
    let used_weight = head.used_weight;
    if !read_body {
        in_flight.disarm();
        return Attempt {
            outcome,
            response: Some(Received::passed_on(value, controller)),
            transmitted: true,
            used_weight,
        };
    }
    let body = match response::read_body(&value) {
        Ok(reading) => race.wait_call(Ok(reading)).await,
        Err(why) => return Attempt::broken(why),
    };
    let body = match body {
        Ended::Settled(Ok(bytes)) if values::is_bytes(&bytes) => bytes,
        Ended::Settled(Ok(other)) => {
            return Attempt::broken(text::join(&[
                "the response body resolved with ",
                values::kind(&other),
                ", not bytes",
            ]))
        }
        Ended::Settled(Err(e)) => return Attempt::broken(text::join(&["the response body failed: ", &describe(&e)])),
        Ended::Cut(cut) => {
            abort::abort(&controller, cut != Cut::Aborted);
            return Attempt::cut(cut, Pending::Body);
        }
    };
    in_flight.disarm();
    let face = match response::face(&value) {
        Ok(face) => face,
        Err(why) => return Attempt::broken(why),
    };
    let response = Received::rebuilt(value, head.status, face, &body);
    Attempt { outcome, response: Some(response), transmitted: true, used_weight }
}
