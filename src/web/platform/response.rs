//! A response as the caller's `fetch` gave it — a platform `Response`, a subclass, another
//! library's or realm's (undici's) — read through shell.js's responses and checked before the core
//! sees it. A status outside 200–599, a throwing getter or a body that is no bytes makes
//! the attempt a failed one, with the reason in its record.

use js_sys::Object;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::errors::describe;
use super::values::{self, kind};
use crate::classify::response_status;
use crate::redact::redact_url;
use crate::retry_after::RESET_HEADER_NAMES;
use crate::text;

// `head` and `face` catch what they run into and say so (undefined, then `threwWhile`/`thrown`);
// `catch` is the second net.
#[wasm_bindgen(module = "/src/web/platform/shell.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = head)]
    fn js_head(
        response: &JsValue,
        weight_header: Option<&str>,
        retry_after: bool,
        resets: &str,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = face)]
    fn js_face(response: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = threwWhile)]
    fn js_threw_while() -> Result<String, JsValue>;
    #[wasm_bindgen(catch, js_name = responseThrown)]
    fn js_thrown() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = linkAbort)]
    fn js_link_abort(signal: &JsValue, controller: &JsValue, response: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = attemptInit)]
    fn js_attempt_init(signal: &JsValue) -> Result<JsValue, JsValue>;
}

/// What `head` or `face` wrote, or the part it was reading when it threw and what was thrown.
fn read(written: Result<JsValue, JsValue>) -> Result<String, (String, JsValue)> {
    let part = || js_threw_while().unwrap_or_default();
    match written {
        Ok(text) => text.as_string().ok_or_else(|| (part(), js_thrown().unwrap_or(JsValue::UNDEFINED))),
        Err(thrown) => Err((part(), thrown)),
    }
}

/// `{ signal }`: one attempt's `fetch` init, made in one crossing.
pub fn attempt_init(signal: &JsValue) -> Result<JsValue, JsValue> {
    js_attempt_init(signal)
}

/// What the core needs of a response's head.
pub struct Head {
    pub status: u16,
    pub retry_after: Option<String>,
    /// A cross-origin response that does not expose its `Retry-After` (CORS).
    pub retry_after_unreadable: bool,
    pub date: Option<String>,
    pub used_weight: Option<u64>,
    /// The first reset header present: its index in [`RESET_HEADER_NAMES`], and its raw value.
    pub reset: Option<(usize, String)>,
}

impl Head {
    /// As a call's machine reads it.
    pub fn seen(self) -> crate::call::Head {
        crate::call::Head {
            status: f64::from(self.status),
            retry_after: self.retry_after,
            hidden: self.retry_after_unreadable,
            date: self.date,
            reset: self.reset,
            used: self.used_weight,
        }
    }
}

/// Which provider wait headers a response is read for (a family may narrow them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waits {
    /// `Retry-After`.
    pub retry_after: bool,
    /// Bit `i`: [`RESET_HEADER_NAMES`]`[i]`.
    pub resets: u8,
}

impl Default for Waits {
    /// Every header the core reads as a provider wait.
    fn default() -> Waits {
        Waits { retry_after: true, resets: (1 << RESET_HEADER_NAMES.len()) - 1 }
    }
}

impl Waits {
    /// The reset headers to look for, in the core's order, as `head` reads them: `<index><name>`,
    /// NUL-separated.
    fn list(&self) -> String {
        let wanted = RESET_HEADER_NAMES.iter().enumerate().filter(|(i, _)| self.resets & (1 << i) != 0);
        let entries: Vec<String> = wanted.map(|(i, name)| text::join(&[&text::number(i as u64), name])).collect();
        entries.join("\0")
    }
}

/// The rest of a response's face, read only to rebuild it or to mark the copy an error carries.
pub struct Face {
    status_text: String,
    url: Option<String>,
    redirected: bool,
}

/// Reads the head of what `fetch` resolved with (in one crossing), the provider wait headers of
/// `waits` only; `Err` says why it is unusable.
pub fn head(value: &JsValue, used_weight_header: Option<&str>, waits: &Waits) -> Result<Head, String> {
    let text = match read(js_head(value, used_weight_header, waits.retry_after, &waits.list())) {
        Ok(text) if text.is_empty() => {
            return Err(text::join(&["fetch resolved with ", kind(value), ", not a Response"]))
        }
        Ok(text) => text,
        Err((part, e)) => return Err(threw(&part, &e)),
    };
    let mut parts = text.split('\0');
    let mut next = || parts.next().unwrap_or_default();
    // Parsed as the weight header is (one integer parser in the wasm), then checked by the core.
    let status = match next().parse::<u64>().map(|code| response_status(code as f64)) {
        Ok(Ok(code)) => code,
        // Anything else is refused, with the reason read from the value itself.
        _ => {
            let read_again = values::get(value, "status").unwrap_or(JsValue::UNDEFINED);
            let why = status(&read_again).err();
            return Err(why.unwrap_or_else(|| "the response's status changed while it was read".to_owned()));
        }
    };
    let header = |part: &str| (part != "\u{1}" && part != "\u{2}").then(|| part.to_owned());
    let retry_after_part = next();
    let (retry_after, retry_after_unreadable) = (header(retry_after_part), retry_after_part == "\u{2}");
    let date = header(next());
    let used_weight = header(next()).and_then(|v| v.trim_matches([' ', '\t']).parse::<u64>().ok());
    let reset_at = header(next()).and_then(|i| i.parse::<usize>().ok());
    let reset = reset_at.zip(header(next()));
    Ok(Head { status, retry_after, retry_after_unreadable, date, used_weight, reset })
}

/// Reads a response's statusText, url and redirected (in one crossing).
pub fn face(value: &JsValue) -> Result<Face, String> {
    let text = read(js_face(value)).map_err(|(part, e)| threw(&part, &e))?;
    let mut parts = text.split('\0');
    let mut next = || parts.next().unwrap_or_default();
    let status_text = next().to_owned();
    let url = Some(next()).filter(|u| !u.is_empty()).map(str::to_owned);
    Ok(Face { status_text, url, redirected: next() == "1" })
}

fn threw(part: &str, e: &JsValue) -> String {
    text::join(&["reading the response's ", part, " threw ", &describe(e)])
}

/// The statuses a `Response` can carry (the core's check); 0 (an opaque response) tells nothing
/// of the outcome.
fn status(value: &JsValue) -> Result<u16, String> {
    match value.as_f64() {
        Some(x) => response_status(x),
        None => Err(text::join(&["the response's status is ", kind(value), ", not a number"])),
    }
}

/// Starts reading the body: what `arrayBuffer()` returned (a promise, usually), or why not.
pub fn read_body(value: &JsValue) -> Result<JsValue, String> {
    values::invoke(value, "arrayBuffer", &[])
        .map_err(|e| text::join(&["reading the response body threw ", &describe(&e)]))
}

/// A response received: handed on as the platform gave it, or buffered inside the attempt
/// timeout and rebuilt as a platform `Response` of this realm (`readBody`).
pub struct Received {
    /// The rebuilt response; `None` if this platform would not build it, or if none was made.
    rebuilt: Option<JsValue>,
    /// What the caller's fetch gave.
    original: JsValue,
    /// Handed on with its body unread: the attempt's controller, whose signal that body follows.
    controller: Option<AbortController>,
    /// The original's face, read when it was rebuilt (`None`: handed on, read only if needed).
    face: Option<Face>,
}

impl Received {
    pub fn passed_on(original: JsValue, controller: AbortController) -> Received {
        Received { rebuilt: None, original, controller: Some(controller), face: None }
    }

    pub fn rebuilt(original: JsValue, status: u16, face: Face, body: &JsValue) -> Received {
        let rebuilt = rebuild(&original, status, &face, body, true)
            .or_else(|_| rebuild(&original, status, &face, body, false))
            .ok();
        Received { rebuilt, original, controller: None, face: Some(face) }
    }

    /// The response a caller receives on success: the provider's, with its real URL. An unread
    /// body goes on following the caller's `signals`, as the platform's `fetch` would have it.
    pub fn for_caller(self, signals: &[AbortSignal]) -> JsValue {
        if let Some(controller) = &self.controller {
            for signal in signals {
                let _ = js_link_abort(signal, controller, &self.original);
            }
        }
        match (&self.rebuilt, &self.face) {
            (Some(response), Some(face)) => {
                mark(response, face.url.as_deref(), face.redirected);
                response.clone()
            }
            _ => self.original,
        }
    }

    /// The response carried by an error: its URL redacted as records are.
    pub fn for_error(self) -> JsValue {
        let response = match (&self.rebuilt, self.controller.is_some()) {
            (Some(response), _) => response,
            (None, true) => &self.original,
            // Never an original we could not mark: its URL would carry what the records redact.
            (None, false) => return JsValue::UNDEFINED,
        };
        let face = match self.face {
            Some(face) => face,
            None => match face(&self.original) {
                Ok(face) => face,
                // A URL we cannot read is a URL we cannot redact.
                Err(_) => return JsValue::UNDEFINED,
            },
        };
        match face.url.as_deref().map(redact_url) {
            Some(url) if values::define(response, "url", &JsValue::from_str(&url)).is_err() => JsValue::UNDEFINED,
            _ => {
                if self.rebuilt.is_some() {
                    let _ = values::define(response, "redirected", &JsValue::from_bool(face.redirected));
                }
                response.clone()
            }
        }
    }

    /// The response the caller gets on success (the rebuilt one, or the original handed on), to
    /// keep a copy of.
    pub fn keepable(&self) -> Option<JsValue> {
        Some(self.rebuilt.clone().unwrap_or_else(|| self.original.clone()))
    }

    /// What the caller's fetch gave, if it is a `Response` of this realm.
    pub fn response(&self) -> Option<web_sys::Response> {
        self.original.clone().dyn_into::<web_sys::Response>().ok()
    }

    /// Whether both are the same object from the caller's fetch.
    pub fn is(&self, other: &Received) -> bool {
        self.original == other.original
    }

    /// A later attempt replaced this response: an unread body is cancelled, so that its
    /// connection is freed now rather than when the garbage collector finds it.
    pub fn discard(self) {
        if self.controller.is_none() {
            return;
        }
        if let Ok(body) = values::get(&self.original, "body") {
            if body.is_object() {
                if let Ok(cancelled) = values::invoke(&body, "cancel", &[]) {
                    super::settling::swallow(&cancelled);
                }
            }
        }
    }
}

/// A rebuilt response gets the original's URL and redirected (a new `Response` has neither).
fn mark(response: &JsValue, url: Option<&str>, redirected: bool) {
    if let Some(url) = url {
        let _ = values::define(response, "url", &JsValue::from_str(url));
    }
    let _ = values::define(response, "redirected", &JsValue::from_bool(redirected));
}

fn rebuild(
    original: &JsValue,
    status: u16,
    face: &Face,
    body: &JsValue,
    with_headers: bool,
) -> Result<JsValue, JsValue> {
    // These statuses must not carry a body, not even an empty one.
    let body = if matches!(status, 204 | 205 | 304) { JsValue::NULL } else { body.clone() };
    let init = Object::new();
    values::reflect_set(&init, "status", &JsValue::from(status))?;
    values::reflect_set(&init, "statusText", &JsValue::from_str(&face.status_text))?;
    if with_headers {
        let headers = values::get(original, "headers")?;
        if !headers.is_undefined() && !headers.is_null() {
            values::reflect_set(&init, "headers", &headers)?;
        }
    }
    values::construct("Response", &[&body, &init])
}
