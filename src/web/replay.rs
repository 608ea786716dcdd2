//! `replay(spec)` for JavaScript: the core's replay, same JSON in and out.

use wasm_bindgen::prelude::*;

use super::error::type_error;
use super::{to_js, value::loose};
use crate::replay::ReplaySpec;

/// Runs the engine on a virtual clock; see `ReplaySpec` for the spec's fields.
#[wasm_bindgen(js_name = replay)]
pub fn replay_js(spec: JsValue) -> Result<JsValue, JsValue> {
    let spec: ReplaySpec = loose(&spec).read().map_err(|e| type_error(&format!("replay: {e}")))?;
    to_js(&crate::replay::replay(spec))
}
