//! The bindings of shell.js's waits: timers, abort listeners and settling values that wake a waiter of
//! [`super::wake`] by id, and the monotonic clock. Each never throws (what cannot be set comes back
//! as `None`); `catch` is the second net.

use wasm_bindgen::prelude::*;

use crate::backoff::MAX_TIMER_MS;

#[wasm_bindgen(module = "/src/web/platform/shell.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = setWaker)]
    fn js_set_waker(f: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = timer)]
    fn js_timer(ms: f64, id: f64, kind: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = clearTimer)]
    fn js_clear_timer(handle: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = follow)]
    fn js_follow(value: &JsValue, id: f64, fulfilled: u32, rejected: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = listen)]
    fn js_listen(signal: &JsValue, id: f64, kind: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = unlisten)]
    fn js_unlisten(signal: &JsValue, listener: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = monotonic)]
    fn js_monotonic() -> Result<f64, JsValue>;
}

/// Hands JavaScript the one callback every wake-up calls: `(id, kind, value)`.
pub fn set_waker(callback: &JsValue) {
    let _ = js_set_waker(callback);
}

/// A timer that wakes waiter `id` with `kind` after `ms` (at most 2^31 − 1 ms, the longest
/// `setTimeout` honours); `None` if the platform would not set one.
pub fn timer(ms: u64, id: f64, kind: u32) -> Option<JsValue> {
    js_timer(ms.min(MAX_TIMER_MS) as f64, id, kind).ok().filter(|handle| !handle.is_null())
}

/// Clears a timer from [`timer`].
pub fn clear_timer(handle: &JsValue) {
    let _ = js_clear_timer(handle);
}

/// Wakes waiter `id` with `fulfilled` or `rejected` when `value` settles, whatever its `then` does.
pub fn follow(value: &JsValue, id: f64, fulfilled: u32, rejected: u32) {
    let _ = js_follow(value, id, fulfilled, rejected);
}

/// Wakes waiter `id` with `kind` when `signal` aborts; the listener to remove, if one could be added.
pub fn listen(signal: &JsValue, id: f64, kind: u32) -> Option<JsValue> {
    js_listen(signal, id, kind).ok().filter(|listener| !listener.is_null())
}

/// Removes a listener from [`listen`].
pub fn unlisten(signal: &JsValue, listener: &JsValue) {
    let _ = js_unlisten(signal, listener);
}

/// `performance.now()`, or `Date.now()` where there is none (NaN if neither works).
pub fn monotonic() -> f64 {
    js_monotonic().unwrap_or(f64::NAN)
}
