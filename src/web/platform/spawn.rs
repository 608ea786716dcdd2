//! A Rust future as a JavaScript promise (a status query of the Rust API, raced as any promise is),
//! or as a task of its own.

use std::future::Future;
use std::pin::Pin;

use js_sys::Promise;
use wasm_bindgen::JsValue;

/// Type-erased first: `future_to_promise` (its spawn, poll and settling closures) is then
/// compiled once for every export instead of once per future type.
pub fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    wasm_bindgen_futures::future_to_promise(future)
}

/// Runs `future` to its end on the event loop (a stream's driver), boxed for the same reason.
pub fn spawn(future: impl Future<Output = ()> + 'static) {
    let future: Pin<Box<dyn Future<Output = ()>>> = Box::pin(future);
    wasm_bindgen_futures::spawn_local(future);
}
