//! The request as the caller gave it, ready to be sent again.
//!
//! A `Request` is built once per call (it throws as `fetch` would, and it is what a wrapped
//! `fetch` receives). Without a body, every attempt calls `fetch(template, { signal })`.
//! A body can be read only once, so it is buffered when the operation starts, and each
//! attempt gets a `Request` of its own made from the template with that buffer and its signal.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use web_sys::{AbortSignal, Request, RequestInit};

use super::guard;
use super::race::{Cut, Ended, Race};

pub struct RequestTemplate {
    template: Request,
    body: Option<Uint8Array>,
    pub method: String,
    pub url: String,
}

/// Why the body could not be buffered.
pub enum Unread {
    /// The race was cut: the operation stops (`aborted`, `deadline`).
    Cut(Cut),
    /// Reading the body failed: rejected with the platform's own error, as `fetch` would.
    Failed(JsValue),
}

impl RequestTemplate {
    /// `new Request(input, init)`; throws as `fetch` itself would (e.g. a `TypeError` for a bad URL).
    pub fn new(input: &JsValue, init: &JsValue) -> Result<RequestTemplate, JsValue> {
        let template: Request = guard::construct("Request", &[input, init])?
            .dyn_into()
            .map_err(|_| js_sys::TypeError::new("the global Request did not make a Request"))?;
        Ok(RequestTemplate { method: template.method(), url: template.url(), template, body: None })
    }

    /// The signal the caller attached to the request or its init.
    pub fn signal(&self) -> AbortSignal {
        self.template.signal()
    }

    pub fn has_body(&self) -> bool {
        self.template.body().is_some()
    }

    /// Reads the body once, unless the race is cut first (a stream that never ends must not
    /// hold the operation past its deadline).
    pub async fn buffer(&mut self, race: &Race) -> Result<(), Unread> {
        if self.template.body().is_none() {
            return Ok(());
        }
        match race.wait_call(self.template.array_buffer().map(JsValue::from)).await {
            Ended::Settled(Ok(bytes)) => {
                self.body = Some(Uint8Array::new(&bytes));
                Ok(())
            }
            Ended::Settled(Err(error)) => Err(Unread::Failed(error)),
            Ended::Cut(cut) => Err(Unread::Cut(cut)),
        }
    }

    /// `fetch`'s arguments for one attempt: the template and `{ signal }`, or, with a body,
    /// a fresh `Request` that carries both (a wrapped `fetch` may read or clone it).
    pub fn for_attempt(&self, signal: &AbortSignal) -> Result<(JsValue, JsValue), JsValue> {
        let Some(body) = &self.body else {
            return Ok((JsValue::from(&self.template), guard::attempt_init(signal)));
        };
        let init = RequestInit::new();
        init.set_signal(Some(signal));
        init.set_body(body);
        Ok((Request::new_with_request_and_init(&self.template, &init)?.into(), JsValue::UNDEFINED))
    }
}
