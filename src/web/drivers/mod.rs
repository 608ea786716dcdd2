//! The driver of the core's [`Operation`](crate::Operation): it asks the core what to do, does it
//! with the platform's requests, timers and stores, and feeds back what happened. It decides
//! nothing itself.
//!
//! ```text
//! driver.rs    Driver: one client's policy, budget (and its share), draws, store, observer
//! call.rs      a call prepared: request built, deadline fixed, signals gathered
//! run.rs       the call loop: claim ─▶ buffer ─▶ start ─▶ (save ─▶ attempt | sleep)* ─▶ settle
//! attempt.rs   one attempt on the wire, and the core's verdict on it
//! hedge.rs     a hedged attempt: the request in flight and its hedges, the first usable answer wins
//! steps.rs     budget steps (under the tabs' lock when shared) and sleeps, for every operation
//! settle.rs    the key finished in the store, the response handed on or the failure described
//! keyed.rs     a key's life in the store: claimed, saved, resumed, finished
//! reconcile.rs an unknown outcome settled by status queries, or closed by hand
//! failed.rs    how a call ended without its response
//! stream/      a stream's sockets and timers, its reconnects the core's Stream machine decides
//! ```

mod attempt;
pub mod call;
pub mod driver;
pub mod failed;
mod hedge;
mod keyed;
pub mod reconcile;
mod run;
mod settle;
mod steps;
pub mod stream;
