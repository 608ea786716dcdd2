//! Timers on the global `setTimeout`/`clearTimeout` (never `window.…`, so they work in
//! workers, Node and workerd). A [`Timeout`] clears its timer when dropped.

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::abort::AbortWatch;
use super::latch::Latch;
use crate::backoff::MAX_TIMER_MS;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
}

/// A pending `setTimeout` callback.
#[must_use = "timeouts cancel on drop; hold on to it"]
pub struct Timeout {
    id: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timeout {
    /// Calls `f` once after `ms` milliseconds (at most 2^31 − 1; longer would fire at once).
    pub fn after(ms: u64, f: impl FnOnce() + 'static) -> Timeout {
        let mut f = Some(f);
        let callback = Closure::<dyn FnMut()>::new(move || {
            if let Some(f) = f.take() {
                f();
            }
        });
        let id = set_timeout(callback.as_ref().unchecked_ref(), ms.min(MAX_TIMER_MS) as f64);
        Timeout { id, _callback: callback }
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        clear_timeout(&self.id);
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
