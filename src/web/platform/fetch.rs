//! One request on the wire ([`Attempt`]), through the global `fetch`, looked up at each call so
//! that late polyfills and test doubles apply, with an `AbortController` of its own: its head read,
//! and, when asked, its body read inside the attempt and the response rebuilt around the bytes.
//! [`Requests`] are a call's, by attempt, as a stream's sockets are by link.
//! Its timeout is not kept here: the executor's one timer ends it when the core says, and aborts
//! its controller, whether or not `fetch` honours the signal.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::abort;
use super::errors::describe;
use super::request::RequestTemplate;
use super::response::{self, face, Head, Received, Waits};
use super::settling::Settling;
use super::values;
use crate::text;

/// What a platform without `AbortController` makes of a request: none.
pub const NO_CONTROLLER: &str = "no AbortController could be made";

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
fn send(template: &RequestTemplate, signal: &AbortSignal, hedge: bool) -> Result<Settling, String> {
    let (input, init) = match template.for_attempt(signal) {
        Ok((input, init)) if hedge && in_a_browser() => (input, uncached(init)),
        Ok(arguments) => arguments,
        Err(e) => return Err(text::join(&["the request could not be rebuilt: ", &describe(&e)])),
    };
    Ok(Settling::of(global_fetch(&input, &init)))
}

/// A request out.
pub struct Attempt {
    controller: AbortController,
    stage: Stage,
}

enum Stage {
    /// `fetch` has not settled; `read_body`: its body is read before it is answered.
    Sent { fetching: Settling, read_body: bool },
    /// Its head came (and was told); its body is being read.
    Reading { response: JsValue, head: Head, body: Settling },
    /// Nothing more comes of it.
    Over,
}

/// What came of a request.
pub enum Came {
    /// Its head, while its body is read.
    Headed,
    /// Its response, whole.
    Answered(Head, Received),
    /// No usable response: why.
    Failed(String),
}

impl Attempt {
    /// Sends `request` (a hedge skips a browser's HTTP cache); why it could not be made, as `Err`.
    pub fn send(request: &RequestTemplate, hedge: bool, read_body: bool) -> Result<Attempt, String> {
        let controller = AbortController::new().map_err(|_| NO_CONTROLLER.to_owned())?;
        let fetching = send(request, &controller.signal(), hedge)?;
        Ok(Attempt { controller, stage: Stage::Sent { fetching, read_body } })
    }

    /// Aborts it (`timed_out`: its signal says so); what it answers later is dropped.
    pub fn abort(&self, timed_out: bool) {
        abort::abort(&self.controller, timed_out);
    }

    /// What came of it, its head read for `header` (the used-weight header) and `waits`.
    pub fn poll(&mut self, cx: &mut Context<'_>, header: Option<&str>, waits: &Waits) -> Poll<Came> {
        let came = match &mut self.stage {
            Stage::Sent { fetching, read_body } => {
                let read_body = *read_body;
                match Pin::new(fetching).poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(thrown)) => Came::Failed(describe(&thrown)),
                    Poll::Ready(Ok(value)) => match response::head(&value, header, waits) {
                        Err(why) => Came::Failed(why),
                        Ok(head) if !read_body => {
                            Came::Answered(head, Received::passed_on(value, self.controller.clone()))
                        }
                        Ok(head) => match response::read_body(&value) {
                            Err(why) => Came::Failed(why),
                            Ok(reading) => {
                                let body = Settling::of(Ok(reading));
                                self.stage = Stage::Reading { response: value, head, body };
                                return Poll::Ready(Came::Headed);
                            }
                        },
                    },
                }
            }
            Stage::Reading { body, .. } => match Pin::new(body).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(read) => match std::mem::replace(&mut self.stage, Stage::Over) {
                    Stage::Reading { response, head, .. } => rebuilt(response, head, read),
                    _ => return Poll::Pending,
                },
            },
            Stage::Over => return Poll::Pending,
        };
        self.stage = Stage::Over;
        Poll::Ready(came)
    }
}

/// A response whose body was read inside its attempt, rebuilt around the bytes.
fn rebuilt(response: JsValue, head: Head, read: Result<JsValue, JsValue>) -> Came {
    let bytes = match read {
        Ok(bytes) if values::is_bytes(&bytes) => bytes,
        Ok(other) => {
            return Came::Failed(text::join(&["the response body resolved with ", values::kind(&other), ", not bytes"]))
        }
        Err(e) => return Came::Failed(text::join(&["the response body failed: ", &describe(&e)])),
    };
    match face(&response) {
        Ok(face) => {
            let status = head.status;
            Came::Answered(head, Received::rebuilt(response, status, face, &bytes))
        }
        Err(why) => Came::Failed(why),
    }
}

/// A call's requests out, by attempt.
#[derive(Default)]
pub struct Requests {
    out: Vec<(u32, Attempt)>,
}

impl Requests {
    /// Sends request `attempt` of `request` (a hedge skips a browser's HTTP cache); why it could
    /// not be made, as `Err`.
    pub fn send(
        &mut self,
        request: &RequestTemplate,
        attempt: u32,
        hedge: bool,
        read_body: bool,
    ) -> Result<(), String> {
        self.out.push((attempt, Attempt::send(request, hedge, read_body)?));
        Ok(())
    }

    /// Aborts request `attempt`, if it is still out: what it answers later is dropped.
    pub fn abort(&mut self, attempt: u32, timed_out: bool) {
        if let Some(at) = self.out.iter().position(|(a, _)| *a == attempt) {
            self.out.remove(at).1.abort(timed_out);
        }
    }

    /// Aborts every request still out.
    pub fn abandon(&mut self) {
        for (_, wire) in self.out.drain(..) {
            wire.abort(false);
        }
    }

    /// What came of each request, read for `header` (the used-weight header) and `waits`, handed
    /// to `came` with its attempt; once answered or failed, it is no longer out.
    pub fn poll(&mut self, cx: &mut Context<'_>, header: Option<&str>, waits: &Waits, mut came: impl FnMut(u32, Came)) {
        let mut at = 0;
        while let Some((attempt, wire)) = self.out.get_mut(at) {
            let attempt = *attempt;
            match wire.poll(cx, header, waits) {
                Poll::Pending => at += 1,
                // Still out: its body is read next.
                Poll::Ready(Came::Headed) => came(attempt, Came::Headed),
                Poll::Ready(over) => {
                    self.out.remove(at);
                    came(attempt, over);
                }
            }
        }
    }
}
