//! The two clocks: monotonic time for waits and deadlines, wall time for durable
//! expiry and HTTP-dates.
//!
//! `performance.now()` is monotonic in browsers and Node; in workerd it is coarse and
//! only advances across I/O. Either way the value handed to the core never goes
//! backwards: the last reading is kept and the larger one wins.

use std::cell::Cell;

use wasm_bindgen::prelude::*;

use super::waits::monotonic;

#[wasm_bindgen]
extern "C" {
    // A primitive result: a throw here cannot leak a slot, so `catch` is safe.
    #[wasm_bindgen(catch, js_namespace = Date, js_name = now)]
    fn date_now() -> Result<f64, JsValue>;
}

thread_local! {
    static LAST: Cell<u64> = const { Cell::new(0) };
}

/// Monotonic milliseconds (rounded up, so a timer that fired is never read as early).
pub fn now() -> u64 {
    let reading = monotonic();
    let ms = if reading.is_finite() && reading > 0.0 { reading.ceil() as u64 } else { 0 };
    LAST.with(|last| {
        let value = last.get().max(ms);
        last.set(value);
        value
    })
}

/// Wall-clock Unix milliseconds.
pub fn wall_now() -> u64 {
    match date_now() {
        Ok(t) if t.is_finite() && t > 0.0 => t as u64,
        _ => 0,
    }
}
