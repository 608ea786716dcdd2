//! `contention(clients, strategy, runs, seed)` for the dashboard: the means of `runs`
//! simulated contentions, as `[calls, completionMs, gaveUp]`.

use retryline::contention::{means, Strategy};
use wasm_bindgen::prelude::*;

/// The strategies' names, in the simulator's order.
#[wasm_bindgen]
pub fn strategies() -> Vec<String> {
    Strategy::ALL.iter().map(|s| s.name().to_owned()).collect()
}

/// Means of `runs` contentions of `clients` clients; an unknown strategy is an error.
#[wasm_bindgen]
pub fn contention(clients: u32, strategy: &str, runs: u32, seed: u32) -> Result<Vec<f64>, JsError> {
    let strategy = Strategy::from_name(strategy).ok_or_else(|| JsError::new("unknown strategy"))?;
    let m = means(clients.clamp(1, 10_000), strategy, runs.clamp(1, 10_000), u64::from(seed));
    Ok(vec![m.calls, m.completion_ms, m.gave_up])
}
