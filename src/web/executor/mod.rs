//! The executor of the core's machines — a call's ([`crate::call::Call`]) and a stream's session
//! ([`crate::stream::session::Session`]): one small loop each that feeds the machine what happened,
//! performs each effect it hands out with the platform's requests, sockets, timers, stores and
//! locks, and arms the one timer the machine asks for — as js/executor/ does for the npm package.
//! It decides nothing: no delay, count, order or state is computed here.
//!
//! ```text
//! client.rs   Executor: one client's policy, budget, draws, store, observer, shouldRetry
//! budget.rs   Held: a budget and its share name across tabs
//! shares.rs   a machine's steps on a budget shared across tabs, as the share's locks (calls', streams')
//! prepare.rs  a call made ready when it is made: request built, machine begun (its deadline fixed)
//! run.rs      Running: a call's loop — events in, effects out, one timer; dropping it ends the call
//!   flights.rs  its requests on the wire and status queries, by attempt
//!   ask.rs      the caller's shouldRetry, asked about the attempt a retry would follow
//!   settle.rs   how the call settled: its response, or Stopped / Reconciled as the core wrote them
//! stream/     Streaming: a stream's session carried out — sockets, callbacks, the pace's writes, reader
//! ```
//!
//! What is glue rather than sequencing — a request on the wire and its body, store calls, sockets,
//! the share's locks and news — is the platform's (`crate::web::platform`).

mod ask;
mod budget;
mod client;
mod flights;
mod prepare;
mod run;
mod settle;
mod shares;
mod stream;

pub use ask::{Predicate, RetryContext};
pub use budget::Held;
pub use client::{Executor, Observer};
pub use flights::Query;
pub use prepare::CallSpec;
pub use run::Running;
pub use settle::{Reconciled, Settled, Stopped};
pub use stream::{Event as StreamEvent, Given, OnOpen, Ping, Resync, Sender, Streaming};
