//! The bindings of `js/platform/tab-locks.js` (the JavaScript shell's own): a budget shared with
//! the other tabs and workers of this origin, its state in IndexedDB under a Web Lock per share
//! name, a BroadcastChannel that tells the share's listeners of a hold or ban
//! (docs/shared-budgets.md). Nothing there throws: where a primitive is missing or fails, a step
//! runs on this realm's own view of the budget.

use wasm_bindgen::prelude::*;

use super::values;

#[wasm_bindgen(module = "/js/platform/tab-locks.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = shareAvailable)]
    fn js_share_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = shareEnter)]
    fn js_share_enter(name: &str, within_ms: f64) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = shareLeave)]
    fn js_share_leave(name: &str, text: Option<String>, tell: bool) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = shareListen)]
    fn js_share_listen(name: &str, listener: &JsValue) -> Result<(), JsValue>;
}

/// Whether this realm has what sharing a budget needs (Web Locks, IndexedDB).
pub fn available() -> bool {
    js_share_available().unwrap_or(false)
}

/// Takes the share's lock: a promise of its stored state (text, empty if none) once it is held,
/// or of `null` if it cannot be had within `within_ms`; it never rejects.
pub fn enter(name: &str, within_ms: u64) -> Result<js_sys::Promise, JsValue> {
    js_share_enter(name, within_ms as f64)
}

/// Stores the share's state (`None`: nothing to store) and releases its lock; `tell` tells the
/// share's listeners everywhere of a hold or ban.
pub fn leave(name: &str, text: Option<&str>, tell: bool) {
    let _ = js_share_leave(name, text.map(str::to_owned), tell);
}

/// Lets go of a lock granted once `entering` (what [`enter`] returned) settles: its taker is gone.
pub fn leave_once_entered(name: &str, entering: js_sys::Promise) {
    let name = name.to_owned();
    let release = Closure::once_into_js(move |text: JsValue| {
        if !text.is_null() {
            leave(&name, None, false);
        }
    });
    let _ = values::invoke(&entering, "then", &[&release]);
}

/// Calls `listener` whenever a hold or ban is published under `name` (one listener a name).
pub fn listen(name: &str, listener: &JsValue) {
    let _ = js_share_listen(name, listener);
}
