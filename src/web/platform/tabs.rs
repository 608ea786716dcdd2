//! The bindings of `js/platform/tab-locks.js` (the JavaScript shell's own): a budget shared with the other tabs and workers of this origin, its
//! state in IndexedDB under a Web Lock per share name, a BroadcastChannel to wake its sleepers
//! (docs/shared-budgets.md). Nothing there throws: where a primitive is missing or fails, a step
//! runs on this realm's own view of the budget.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/platform/tab-locks.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = shareAvailable)]
    fn js_share_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = shareEnter)]
    fn js_share_enter(name: &str, within_ms: f64) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = shareLeave)]
    fn js_share_leave(name: &str, text: &str, tell: bool) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = shareNews)]
    fn js_share_news(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = shareNewsDone)]
    fn js_share_news_done(name: &str, resolve: &JsValue) -> Result<(), JsValue>;
}

/// Whether this realm has what sharing a budget needs (Web Locks, IndexedDB).
pub fn available() -> bool {
    js_share_available().unwrap_or(false)
}

/// A promise of the share's stored state (empty if none) once its lock is held, or of `null`
/// if it cannot be had within `within_ms`; it never rejects.
pub fn enter(name: &str, within_ms: u64) -> Result<JsValue, JsValue> {
    js_share_enter(name, within_ms as f64).map(JsValue::from)
}

/// Stores the share's state and releases its lock; `tell` wakes the share's sleepers everywhere.
pub fn leave(name: &str, text: &str, tell: bool) {
    let _ = js_share_leave(name, text, tell);
}

/// `(promise, resolver)`: the promise settles when a hold or ban is next published under `name`
/// (`None` where no BroadcastChannel is). Hand the resolver to [`news_done`] when the wait ends.
pub fn news(name: &str) -> Option<(JsValue, JsValue)> {
    let pair = js_share_news(name).ok().filter(|p| p.is_object())?;
    let pair = js_sys::Array::from(&pair);
    Some((pair.get(0), pair.get(1)))
}

/// Forgets a sleeper's promise from [`news`].
pub fn news_done(name: &str, resolve: &JsValue) {
    let _ = js_share_news_done(name, resolve);
}
