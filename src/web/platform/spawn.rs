//! A Rust future as a task of its own on the event loop (a stream's).

use std::future::Future;
use std::pin::Pin;

/// Runs `future` to its end on the event loop; boxed first, so that `spawn_local` (its poll and
/// wake closures) is compiled once for every future type.
pub fn spawn(future: impl Future<Output = ()> + 'static) {
    let future: Pin<Box<dyn Future<Output = ()>>> = Box::pin(future);
    wasm_bindgen_futures::spawn_local(future);
}
