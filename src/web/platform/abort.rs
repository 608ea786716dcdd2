//! The caller's abort signals, watched for the whole operation.
//!
//! A caller may pass `options.signal`, `init.signal`, or a `Request` that carries one;
//! any of them aborting cancels a pending sleep at once and the request in flight (the races
//! of [`super::race`] listen to them).

use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::values;

/// Whether `signal` has aborted; `Err` if it is no working signal (a look-alike such as
/// `Object.create(AbortSignal.prototype)` throws "Illegal invocation").
pub fn aborted(signal: &AbortSignal) -> Result<bool, JsValue> {
    Ok(values::get(signal, "aborted")?.is_truthy())
}

thread_local! {
    /// One reason for every attempt our timers cut (a new `DOMException` each time was a tenth
    /// of the work of expiring 20 000 calls at once).
    static TIMED_OUT: JsValue = values::construct("DOMException", &[&"retryline: the attempt's time ran out".into(), &"TimeoutError".into()])
        .unwrap_or_else(|_| JsValue::from_str("TimeoutError"));
}

/// Aborts a controller of ours (its listeners are the platform's and the caller's fetch's):
/// `timed_out` gives it our shared `TimeoutError`, otherwise the platform's own `AbortError`.
pub fn abort(controller: &web_sys::AbortController, timed_out: bool) {
    let _ = match timed_out {
        true => TIMED_OUT.with(|reason| values::invoke(controller, "abort", &[reason])),
        false => values::invoke(controller, "abort", &[]),
    };
}

pub struct AbortWatch {
    signals: Vec<AbortSignal>,
}

impl AbortWatch {
    pub fn new(signals: Vec<AbortSignal>) -> Self {
        AbortWatch { signals }
    }

    pub fn is_aborted(&self) -> bool {
        self.signals.iter().any(|s| aborted(s).unwrap_or(false))
    }

    pub fn signals(&self) -> &[AbortSignal] {
        &self.signals
    }
}
