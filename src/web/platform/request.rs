//! The request as the caller gave it, ready to be sent again.
//!
//! A `Request` is built once per call (it throws as `fetch` would, and it is what a wrapped
//! `fetch` receives). Without a body, every attempt calls `fetch(template, { signal })`.
//! A body can be read only once, so it is buffered before the first attempt (when the core says),
//! and each attempt gets a `Request` of its own made from the template with that buffer and its signal.
//! The platform's `fetch` given a bare absolute URL and no init gets the URL itself: it
//! builds its `Request` anyway, and a second one of ours cost 4 µs and 1.7 KB per call.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use web_sys::{AbortSignal, Request, RequestInit};

use super::errors::type_error;
use super::response::attempt_init;
use super::settling::Settling;
use super::values;
use crate::canonical_url::is_canonical_http_url;
use crate::{scope, text};

pub struct RequestTemplate {
    /// What each attempt hands `fetch` first: the `Request` built once, or the caller's URL.
    input: JsValue,
    /// The `Request` built from the caller's input and init (`None`: a bare URL, sent as it is).
    template: Option<Request>,
    body: Option<Uint8Array>,
    pub method: String,
    pub url: String,
}

impl RequestTemplate {
    /// Reads the caller's request; throws as `fetch` itself would (e.g. a `TypeError` for a bad
    /// URL).
    pub fn new(input: &JsValue, init: &JsValue) -> Result<RequestTemplate, JsValue> {
        if init.is_undefined() || init.is_null() {
            if let Some(url) = absolute_url(input) {
                let method = "GET".to_owned();
                return Ok(RequestTemplate { input: input.clone(), template: None, body: None, method, url });
            }
        }
        let template: Request = values::construct("Request", &[input, init])?
            .dyn_into()
            .map_err(|_| js_sys::TypeError::new("the global Request did not make a Request"))?;
        Ok(RequestTemplate {
            input: JsValue::from(&template),
            method: template.method(),
            url: template.url(),
            template: Some(template),
            body: None,
        })
    }

    /// The signal the caller attached to the request or its init (a bare URL has none).
    pub fn signal(&self) -> Option<AbortSignal> {
        self.template.as_ref().map(Request::signal)
    }

    /// The request's headers, names and values NUL-separated, for the core's request identity
    /// (`None`: they could not be read).
    pub fn header_fields(&self) -> Option<String> {
        let Some(template) = &self.template else { return Some(String::new()) };
        let mut fields = String::new();
        for entry in js_sys::try_iter(&template.headers()).ok()?? {
            let entry = entry.ok()?;
            for at in 0..2 {
                fields.push_str(&js_sys::Reflect::get_u32(&entry, at).ok()?.as_string()?);
                fields.push('\0');
            }
        }
        Some(fields)
    }

    pub fn has_body(&self) -> bool {
        self.template.as_ref().is_some_and(|t| t.body().is_some())
    }

    /// Starts reading the body, once (`None`: it has none).
    pub fn read_body(&self) -> Option<BodyRead> {
        let template = self.template.as_ref().filter(|t| t.body().is_some())?;
        Some(BodyRead(Settling::of(template.array_buffer().map(JsValue::from))))
    }

    /// `fetch`'s arguments for one attempt: the input and `{ signal }`, or, with a body, a
    /// fresh `Request` that carries both (a wrapped `fetch` may read or clone it).
    pub fn for_attempt(&self, signal: &AbortSignal) -> Result<(JsValue, JsValue), JsValue> {
        let (Some(body), Some(template)) = (&self.body, &self.template) else {
            return Ok((self.input.clone(), attempt_init(signal)?));
        };
        let init = RequestInit::new();
        init.set_signal(Some(signal));
        init.set_body(body);
        Ok((Request::new_with_request_and_init(template, &init)?.into(), JsValue::UNDEFINED))
    }
}

/// The request body being read, before the first attempt.
pub struct BodyRead(Settling);

impl BodyRead {
    /// The body read, kept in `request` for every attempt; or what reading it threw.
    pub fn poll_read(&mut self, cx: &mut Context<'_>, request: &mut RequestTemplate) -> Poll<Result<(), JsValue>> {
        Pin::new(&mut self.0).poll(cx).map(|read| match read {
            Ok(bytes) if values::is_bytes(&bytes) => {
                request.body = Some(Uint8Array::new(&bytes));
                Ok(())
            }
            Ok(other) => {
                Err(type_error(&text::join(&["the request body resolved with ", values::kind(&other), ", not bytes"])))
            }
            Err(thrown) => Err(thrown),
        })
    }
}

/// The serialized form of an absolute http(s) URL string, read without building a `Request`
/// (and, when it is already in that form, without building a `URL`).
/// Anything a `Request` would refuse or resolve differently (relative, with credentials) is
/// left to the `Request`, so that it throws as `fetch` would.
fn absolute_url(input: &JsValue) -> Option<String> {
    let text = input.as_string()?;
    let bytes = text.as_bytes();
    let starts = |prefix: &[u8]| bytes.get(..prefix.len()).is_some_and(|b| b.eq_ignore_ascii_case(prefix));
    if !(starts(b"https://") || starts(b"http://")) || bytes.contains(&b'@') {
        return None;
    }
    if is_canonical_http_url(&text) {
        return Some(text);
    }
    let url = values::construct("URL", &[input]).ok()?;
    values::get(&url, "href").ok()?.as_string()
}

/// The default scope of a request to `url`: its origin (the core reads an http(s) one, the
/// platform's `URL` any other).
pub fn origin(url: &str) -> String {
    scope::origin(url).unwrap_or_else(|| web_sys::Url::new(url).map(|u| u.origin()).unwrap_or_else(|_| url.to_owned()))
}
