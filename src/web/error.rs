//! Errors handed to JavaScript: `TypeError`/`RangeError` for bad options, `RetryError`
//! when an operation stops without success.

use std::cell::RefCell;

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::budget::Limit;
use crate::input::{ErrorClass, InvalidOption};
use crate::reason::{Reason, Stop};
use crate::record::wire_requests;
use crate::AttemptRecord;

use super::text;

thread_local! {
    static RETRY_ERROR: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Registers the `RetryError` class (the package entry does this once, at load).
#[wasm_bindgen(js_name = setErrorClass, skip_typescript)]
pub fn set_error_class(class: Function) {
    RETRY_ERROR.with(|c| *c.borrow_mut() = Some(class));
}

/// `TypeError` or `RangeError` for an invalid option; `context` names where it was given.
pub fn invalid(context: &str, error: &InvalidOption) -> JsValue {
    let message = text::join(&[context, ": ", &error.message()]);
    match error.class() {
        ErrorClass::TypeError => js_sys::TypeError::new(&message).into(),
        ErrorClass::RangeError => js_sys::RangeError::new(&message).into(),
    }
}

pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// What an operator needs to read a `RetryError` without opening the records.
fn explain(reason: Reason, limit: Option<Limit>) -> &'static str {
    match reason {
        Reason::NonRetryable => "the response says repeating cannot help",
        Reason::Attempts => "every allowed attempt was used",
        Reason::Deadline => "the next attempt could not finish before the deadline",
        Reason::ProviderWait => "the provider's required wait does not fit before the deadline",
        Reason::Budget if limit == Some(Limit::RetryQuota) => {
            "the retry quota is spent: retries pause until successes pay it back"
        }
        Reason::Budget => "the shared budget has no room before the deadline",
        Reason::Banned => "the provider has banned this scope",
        Reason::RateLimited => "throttled again after the provider's wait was honoured",
        Reason::UnknownOutcome => "the order may have executed; reconcile it, do not resubmit",
        Reason::Aborted => "the caller aborted",
        Reason::Store => "the operation's state could not be kept in its store, so nothing more was sent",
        Reason::Success | Reason::Retryable | Reason::Throttled => "",
    }
}

/// An operation that stopped without success: everything a `RetryError` carries, and what the
/// Rust API's [`crate::web::Error`] gives.
pub struct Failure {
    pub stop: Stop,
    pub method: String,
    /// Redacted.
    pub url: String,
    pub key: Option<String>,
    /// The last response, its URL already redacted.
    pub response: JsValue,
    pub records: Vec<AttemptRecord>,
    /// Replaces the standard explanation of the reason.
    pub detail: Option<String>,
    /// Added after the explanation (redacted): what was pending, what the store said.
    pub note: Option<String>,
    /// The platform's or the store's error, as a redacted copy.
    pub cause: Option<JsValue>,
}

impl Failure {
    /// "POST https://…/order: unknown-outcome after 1 request: the order may have executed; …"
    pub fn message(&self) -> String {
        let sent = wire_requests(&self.records);
        let plural = if sent == 1 { "" } else { "s" };
        let limit = self.records.last().and_then(|r| r.limit);
        let mut message = text::join(&[
            &self.method,
            " ",
            &self.url,
            ": ",
            self.stop.reason.as_str(),
            " after ",
            &text::number(u64::from(sent)),
            " request",
            plural,
            ": ",
            self.detail.as_deref().unwrap_or(explain(self.stop.reason, limit)),
        ]);
        if let Some(note) = &self.note {
            message.push_str(" (");
            message.push_str(note);
            message.push(')');
        }
        message
    }
}

/// A `RetryError` (or, before the class is registered, an `Error` shaped like one).
pub fn retry_error(failure: &Failure) -> JsValue {
    let records = match super::to_js(&failure.records) {
        Ok(records) => records,
        Err(error) => return error,
    };
    let reason = failure.stop.reason.as_str();
    let message = failure.message();
    let details = Object::new();
    let _ = Reflect::set(&details, &"response".into(), &failure.response);
    let _ = Reflect::set(&details, &"records".into(), &records);
    if let Some(key) = &failure.key {
        let _ = Reflect::set(&details, &"key".into(), &key.into());
    }
    if let Some(cause) = &failure.cause {
        let _ = Reflect::set(&details, &"cause".into(), cause);
    }
    let args = Array::of3(&reason.into(), &message.clone().into(), &details);
    let class = RETRY_ERROR.with(|c| c.borrow().clone());
    if let Some(error) = class.and_then(|class| Reflect::construct(&class, &args).ok()) {
        return error;
    }
    let error = js_sys::Error::new(&message);
    error.set_name("RetryError");
    let _ = Reflect::set(&error, &"reason".into(), &reason.into());
    let _ = Reflect::set(&error, &"response".into(), &failure.response);
    let _ = Reflect::set(&error, &"records".into(), &records);
    if let Some(cause) = &failure.cause {
        let _ = Reflect::set(&error, &"cause".into(), cause);
    }
    error.into()
}

/// A plain `Error` carrying a (redacted) description of what was thrown, for `cause`:
/// never the platform's own object, whose properties may hold what records redact.
pub fn cause(name: &str, text: &str) -> JsValue {
    let error = js_sys::Error::new(text);
    error.set_name(name);
    error.into()
}
