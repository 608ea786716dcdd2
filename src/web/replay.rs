//! `replay(spec)` for JavaScript: the core's replay, same JSON in and out.

use wasm_bindgen::prelude::*;

use super::error::invalid;
use super::{to_js, value::loose};
use crate::replay::ReplaySpec;

/// Runs the engine on a virtual clock; see `ReplaySpec` for the spec's fields. Every
/// mistake throws a `TypeError`/`RangeError` naming the field, e.g. `outcomes[1].afterMs`.
#[wasm_bindgen(js_name = replay)]
pub fn replay_js(spec: JsValue) -> Result<JsValue, JsValue> {
    let spec =
        loose(&spec, "spec").and_then(|spec| ReplaySpec::from_options(&spec)).map_err(|e| invalid("replay", &e))?;
    to_js(&crate::replay::replay(spec))
}
