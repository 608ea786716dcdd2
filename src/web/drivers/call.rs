//! One call, from its preparation to its settling: what it asks ([`CallSpec`]) and what it holds
//! while it runs ([`Call`]).
//!
//! A call is prepared synchronously when it is made — request built, deadline fixed — so that its
//! deadline counts from the call, not from whenever the event loop first gets to it.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::driver::Driver;
use crate::budget::Priority;
use crate::classify::OperationKind;
use crate::failure::Note;
use crate::machine::{Operation, Start};
use crate::policy::Policy;
use crate::web::platform::abort::AbortWatch;
use crate::web::platform::clock;
use crate::web::platform::request::{origin, RequestTemplate};
use crate::web::platform::response::Received;
use crate::web::platform::values;

/// What a call asks beyond the client's defaults, already checked.
pub struct CallSpec {
    /// The client's policy, or the call's own, with the call's deadline applied.
    pub policy: Policy,
    pub operation: Option<OperationKind>,
    pub priority: Option<Priority>,
    pub key: Option<String>,
    pub scope: Option<String>,
    pub weight: u32,
    pub signal: Option<AbortSignal>,
    pub read_body: Option<bool>,
}

/// A call in progress.
pub struct Call {
    pub(super) op: Operation,
    pub(super) template: RequestTemplate,
    pub(super) abort: AbortWatch,
    pub(super) key: Option<String>,
    pub(super) scope: String,
    /// The body is read inside the attempt timeout and the response rebuilt.
    pub(super) read_body: bool,
    /// The store holds (or will hold) this call's state under its key: finish it.
    pub(super) owns_key: bool,
    pub(super) resumed: bool,
    pub(super) reported: usize,
    pub(super) last_response: Option<Received>,
    /// What the message adds: a store failure, or what was still pending when the call was cut.
    pub(super) note: Note,
}

impl Driver {
    /// Everything a call needs, read synchronously; the deadline is fixed now. Throws as `fetch`
    /// itself would for a request it cannot build.
    pub fn prepare(&self, input: &JsValue, init: &JsValue, spec: CallSpec) -> Result<Box<Call>, JsValue> {
        self.prepare_with(input, init, |_, _| Ok(spec))
    }

    /// [`prepare`](Self::prepare), the spec made from the request's method and URL once it is
    /// built (an endpoint family's options under the call's); its error is the call's.
    pub fn prepare_with(
        &self,
        input: &JsValue,
        init: &JsValue,
        spec: impl FnOnce(&str, &str) -> Result<CallSpec, JsValue>,
    ) -> Result<Box<Call>, JsValue> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let template = RequestTemplate::new(input, init)?;
        let spec = spec(&template.method, &template.url)?;
        // The request's signal can abort only if it follows one of the caller's: listening to
        // a signal that never aborts would cost a listener on every wait.
        let given = |v: &JsValue| !v.is_undefined() && !v.is_null();
        let init_signal = given(init) && values::get(init, "signal").is_ok_and(|s| given(&s));
        let mut signals: Vec<AbortSignal> = Vec::new();
        if init_signal || (input.is_object() && input.is_instance_of::<web_sys::Request>()) {
            signals.extend(template.signal());
        }
        signals.extend(spec.signal);
        let kind = spec.operation.unwrap_or_else(|| OperationKind::from_method(&template.method));
        let scope = spec.scope.unwrap_or_else(|| origin(&template.url));
        let start = Start {
            policy: spec.policy,
            kind,
            priority: spec.priority.unwrap_or(Priority::for_kind(kind)),
            scope: scope.clone(),
            weight: spec.weight,
            key: spec.key.clone(),
            method: Some(template.method.clone()),
            // `begin` redacts it.
            url: Some(template.url.clone()),
        };
        // Boxed: every future that holds the call then holds a pointer (the call inline made
        // each pending call's futures 2 KB).
        Ok(Box::new(Call {
            op: Operation::begin(start, now, wall),
            template,
            abort: AbortWatch::new(signals),
            key: spec.key,
            scope,
            read_body: spec.read_body.unwrap_or(self.read_body),
            owns_key: false,
            resumed: false,
            reported: 0,
            last_response: None,
            note: Note::None,
        }))
    }
}
