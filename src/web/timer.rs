//! Timers on the global `setTimeout`/`clearTimeout` (never `window.…`, so they work in
//! workers, Node and workerd). A [`Timeout`] clears its timer when dropped.

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::abort::AbortWatch;
use super::latch::Latch;
use crate::backoff::MAX_TIMER_MS;

#[wasm_bindgen]
extern "C" {
    // Caught: fake-timer libraries replace these, and a replacement may throw.
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
}

/// A pending `setTimeout` callback.
#[must_use = "timeouts cancel on drop; hold on to it"]
pub struct Timeout {
    id: JsValue,
    _callback: Option<Closure<dyn FnMut()>>,
}

impl Timeout {
    /// Calls `f` once after `ms` milliseconds (at most 2^31 − 1; longer would fire at once).
    /// If no timer can be set, `f` runs at once: a wait we cannot bound is not waited.
    pub fn after(ms: u64, f: impl FnOnce() + 'static) -> Timeout {
        let mut f = Some(f);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(f) = f.take() {
                f();
            }
        });
        match set_timeout(callback.as_ref().unchecked_ref(), ms.min(MAX_TIMER_MS) as f64) {
            Ok(id) => Timeout { id, _callback: Some(callback) },
            Err(_) => {
                let handler: &Function = callback.as_ref().unchecked_ref();
                let _ = handler.call0(&JsValue::UNDEFINED);
                Timeout { id: JsValue::UNDEFINED, _callback: None }
            }
        }
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        if !self.id.is_undefined() {
            let _ = clear_timeout(&self.id);
        }
    }
}

/// Sleeps `ms`, unless the caller aborts first. Returns whether the whole wait passed.
pub async fn sleep(ms: u64, abort: &AbortWatch) -> bool {
    if abort.is_aborted() {
        return false;
    }
    let woke = Latch::new();
    let (on_timer, on_abort) = (woke.clone(), woke.clone());
    let _timer = Timeout::after(ms, move || on_timer.set(true));
    let _listener = abort.on_abort(move || on_abort.set(false));
    woke.await
}
