//! One request on the wire, through the global `fetch`, looked up at each call so that late
//! polyfills and test doubles apply. Its timeout is not kept here: the executor's one timer ends
//! it when the core says, and aborts its controller, whether or not `fetch` honours the signal.

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::errors::describe;
use super::request::RequestTemplate;
use super::settling::Settling;
use super::values;
use crate::text;

/// `globalThis.fetch(input, init)`: what it returned, or what it threw.
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

/// Sends one request of the call, following `signal` (a hedge skips a browser's HTTP cache): what
/// `fetch` settles to (what it threw is a rejection), or why the request could not be made.
pub fn send(template: &RequestTemplate, signal: &AbortSignal, hedge: bool) -> Result<Settling, String> {
    let (input, init) = match template.for_attempt(signal) {
        Ok((input, init)) if hedge && in_a_browser() => (input, uncached(init)),
        Ok(arguments) => arguments,
        Err(e) => return Err(text::join(&["the request could not be rebuilt: ", &describe(&e)])),
    };
    Ok(Settling::of(global_fetch(&input, &init)))
}
