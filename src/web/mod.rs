//! The wasm shell (built only for `wasm32`): binds the global `fetch`,
//! `performance.now()`, `Date.now()`, `setTimeout`/`clearTimeout` and
//! `AbortController`, turns the core's actions into real requests and timers, and
//! exports the JavaScript API: `RetryClient`, `Budget`, `replay`.
//!
//! Nothing here decides anything: every decision is the core's.

mod abort;
mod alloc;
mod budget;
mod client;
pub mod clock;
mod coordinator;
mod coordinator_side;
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
mod spawn;
mod store;
mod text;
mod timer;
mod typed;
mod value;
mod wake;

pub use budget::SharedBudget;
pub use client::RetryClient;
pub use error::set_error_class;
pub use reconcile::Reconciled;
pub use replay::replay_js;
pub use typed::{CallOptions, Client, ClientBuilder, Error, Stopped};

use wasm_bindgen::JsValue;

use crate::json::{to_json, ToJson};

/// Plain JavaScript values from the core's JSON forms: one `JSON.parse`, not a crossing per field.
/// Not generic: one copy, whatever it writes.
fn to_js(value: &dyn ToJson) -> Result<JsValue, JsValue> {
    guard::parse_json(&to_json(value))
}
