//! The request as the caller gave it, ready to be sent again.
//!
//! A `Request` or a stream body can be read only once, so the body is buffered when
//! the operation starts; each attempt is a new `Request` made from the template with
//! that buffer and the attempt's own abort signal.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortSignal, Request, RequestInit};

use super::abort::AbortWatch;
use super::latch::Latch;
use super::timer::Timeout;
use super::value::construct;
use crate::reason::Reason;

pub struct RequestTemplate {
    template: Request,
    body: Option<Uint8Array>,
    pub method: String,
    pub url: String,
}

/// Why the body could not be buffered.
pub enum Unread {
    /// The operation stops with this reason (`aborted`, `deadline`).
    Stop(Reason),
    /// Reading the body failed: rejected with the platform's own error, as `fetch` would.
    Failed(JsValue),
}

impl RequestTemplate {
    /// `new Request(input, init)`; throws as `fetch` itself would (e.g. a `TypeError` for a bad URL).
    pub fn new(input: &JsValue, init: &JsValue) -> Result<RequestTemplate, JsValue> {
        let template: Request = construct("Request", &[input, init])?.dyn_into()?;
        Ok(RequestTemplate { method: template.method(), url: template.url(), template, body: None })
    }

    /// The signal the caller attached to the request or its init.
    pub fn signal(&self) -> AbortSignal {
        self.template.signal()
    }

    /// Reads the body once, unless the caller aborts or `within_ms` passes first (a stream
    /// that never ends must not hold the operation past its deadline).
    pub async fn buffer(&mut self, abort: &AbortWatch, within_ms: u64) -> Result<(), Unread> {
        if self.template.body().is_none() {
            return Ok(());
        }
        if abort.is_aborted() {
            return Err(Unread::Stop(Reason::Aborted));
        }
        let promise = self.template.array_buffer().map_err(Unread::Failed)?;
        let read: Latch<Result<JsValue, Unread>> = Latch::new();
        let on_read = read.clone();
        spawn_local(async move { on_read.set(JsFuture::from(promise).await.map_err(Unread::Failed)) });
        let on_timer = read.clone();
        let _timer = Timeout::after(within_ms, move || on_timer.set(Err(Unread::Stop(Reason::Deadline))));
        let on_abort = read.clone();
        let _listener = abort.on_abort(move || on_abort.set(Err(Unread::Stop(Reason::Aborted))));
        let bytes = read.await?;
        self.body = Some(Uint8Array::new(&bytes));
        Ok(())
    }

    /// A fresh request for one attempt.
    pub fn for_attempt(&self, signal: &AbortSignal) -> Result<Request, JsValue> {
        let init = RequestInit::new();
        init.set_signal(Some(signal));
        if let Some(body) = &self.body {
            init.set_body(body);
        }
        Request::new_with_request_and_init(&self.template, &init)
    }
}
