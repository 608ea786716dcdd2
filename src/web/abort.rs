//! The caller's abort signals, watched for the whole operation.
//!
//! A caller may pass `options.signal`, `init.signal`, or a `Request` that carries one;
//! any of them aborting cancels a pending sleep at once and the request in flight.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use super::guard;

/// Whether `signal` has aborted; `Err` if it is no working signal (a look-alike such as
/// `Object.create(AbortSignal.prototype)` throws "Illegal invocation").
pub fn aborted(signal: &AbortSignal) -> Result<bool, JsValue> {
    Ok(guard::get(signal, "aborted")?.is_truthy())
}

/// Aborts a controller of ours (its listeners are the platform's and the caller's fetch's).
pub fn abort(controller: &web_sys::AbortController) {
    let _ = guard::invoke(controller, "abort", &[]);
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

    /// Calls `f` when any signal aborts, until the returned listener is dropped.
    pub fn on_abort(&self, f: impl Fn() + 'static) -> Listener {
        let callback = Closure::<dyn Fn()>::new(f);
        for signal in &self.signals {
            let _ = signal.add_event_listener_with_callback("abort", callback.as_ref().unchecked_ref());
        }
        Listener { signals: self.signals.clone(), callback }
    }
}

/// An abort listener; removed when dropped.
#[must_use = "the listener is removed on drop"]
pub struct Listener {
    signals: Vec<AbortSignal>,
    callback: Closure<dyn Fn()>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let f: &Function = self.callback.as_ref().unchecked_ref();
        for signal in &self.signals {
            let _ = signal.remove_event_listener_with_callback("abort", f);
        }
    }
}
