//! The request as the caller gave it, ready to be sent again.
//!
//! A `Request` or a stream body can be read only once, so the body is buffered when
//! the operation starts; each attempt is a new `Request` made from the template with
//! that buffer and the attempt's own abort signal.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, Request, RequestInit};

use super::value::construct;

pub struct RequestTemplate {
    template: Request,
    body: Option<Uint8Array>,
    pub method: String,
    pub url: String,
}

impl RequestTemplate {
    /// Builds the template; rejects as `fetch` itself would (e.g. a `TypeError` for a bad URL).
    pub async fn new(input: &JsValue, init: &JsValue) -> Result<RequestTemplate, JsValue> {
        let template: Request = construct("Request", &[input, init])?.dyn_into()?;
        let body = match template.body() {
            Some(_) => Some(Uint8Array::new(&JsFuture::from(template.array_buffer()?).await?)),
            None => None,
        };
        Ok(RequestTemplate { method: template.method(), url: template.url(), template, body })
    }

    /// The signal the caller attached to the request or its init.
    pub fn signal(&self) -> AbortSignal {
        self.template.signal()
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
