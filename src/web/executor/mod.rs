//! The executor of the core's call machine ([`crate::call::Call`]): one small loop per call that
//! feeds the machine what happened, performs each effect it hands out with the platform's
//! requests, timers, stores and locks, and arms the one timer the machine asks for — as
//! js/executor/call.js does for the npm package. It decides nothing: no delay, count, order or
//! state is computed here.
//!
//! ```text
//! client.rs   Executor: one client's policy, budget, draws, store, observer, shouldRetry
//! budget.rs   Held: a budget and its share name across tabs; news of a hold or ban, told to live calls
//! prepare.rs  a call made ready when it is made: request built, machine begun (its deadline fixed)
//! run.rs      Running: the loop — events in, effects out, one timer; dropping it ends the call
//!   flights.rs  requests on the wire and status queries, each with its own AbortController
//!   body.rs     the request body, read once
//!   stores.rs   store calls
//!   ask.rs      the caller's shouldRetry, asked about the attempt a retry would follow
//!   shares.rs   steps on a budget shared across tabs: its lock and stored state
//!   settle.rs   how the call settled: its response, or Stopped / Reconciled as the core wrote them
//! ```

mod ask;
mod body;
mod budget;
mod client;
mod flights;
mod prepare;
mod run;
mod settle;
mod shares;
mod stores;

pub use ask::{Predicate, RetryContext};
pub use budget::Held;
pub use client::{Executor, Observer};
pub use flights::Query;
pub use prepare::CallSpec;
pub use run::Running;
pub use settle::{Reconciled, Settled, Stopped};
