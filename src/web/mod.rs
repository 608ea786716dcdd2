//! The wasm shell (built only for `wasm32`): binds the global `fetch`,
//! `performance.now()`, `Date.now()`, `setTimeout`/`clearTimeout` and
//! `AbortController`, turns the core's actions into real requests and timers, and
//! exports the JavaScript API: `RetryClient`, `Budget`, `replay`.
//!
//! Nothing here decides anything: every decision is the core's.

mod abort;
mod budget;
mod client;
pub mod clock;
mod error;
mod fetch;
mod guard;
mod keyed;
mod latch;
mod options;
mod race;
mod reconcile;
mod replay;
mod request;
mod response;
mod secrets;
mod store;
mod timer;
mod value;
mod wake;

pub use budget::SharedBudget;
pub use client::RetryClient;
pub use error::set_error_class;
pub use replay::replay_js;

use serde::Serialize;
use wasm_bindgen::JsValue;

/// Plain JSON-like JavaScript values: objects (not `Map`s), `null` for `None`.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| error::type_error(&e.to_string()))
}
