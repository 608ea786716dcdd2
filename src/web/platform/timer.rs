//! Sleeps on the global `setTimeout` (never `window.…`, so they work in workers, Node and
//! workerd), through [`super::race`]: its timers are cleared when the wait ends.

use wasm_bindgen::JsValue;

use super::abort::AbortWatch;
use super::race::Race;

/// Sleeps `ms`, unless the caller aborts first. Returns whether the whole wait passed.
pub async fn sleep(ms: u64, abort: &AbortWatch) -> bool {
    Race::new().cut_on_abort(abort).sleep(ms).await.is_ok()
}

/// Sleeps `ms`, or until `early` settles, unless the caller aborts first. Returns `false` if aborted.
pub async fn sleep_or(ms: u64, early: &JsValue, abort: &AbortWatch) -> bool {
    Race::new().cut_on_abort(abort).sleep_or(ms, Some(early)).await.is_ok()
}
