//! Sleeps on the global `setTimeout` (never `window.…`, so they work in workers, Node and
//! workerd), through [`super::race`]: its timers are cleared when the wait ends.

use super::abort::AbortWatch;
use super::race::Race;

/// Sleeps `ms`, unless the caller aborts first. Returns whether the whole wait passed.
pub async fn sleep(ms: u64, abort: &AbortWatch) -> bool {
    Race::new().cut_on_abort(abort).sleep(ms).await.is_ok()
}
