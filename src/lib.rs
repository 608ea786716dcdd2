#![warn(missing_docs)]
//! # retryline
//!
//! Retries that can say why a request was, or was not, sent again: capped exponential backoff
//! with jitter; attempts, an absolute deadline and a shared budget as limits; provider waits
//! (`Retry-After`, throttles and bans over a whole scope) never shortened; orders whose outcome
//! is unknown reconciled, never resent; a redacted record of every attempt, sent or refused.
//!
//! One core performs no I/O and reads no clock, and sequences everything: a call ([`call::Call`])
//! and a stream ([`stream::session::Session`]) are machines that take events (a response, a
//! timer, a store's answer, a socket's close) and hand out effects (send, abort, store, ask, sleep
//! via their one timer, report, done). A thin shell carries the effects out and decides nothing:
//! for JavaScript (the npm package), the executor in js/ over the core's plain exports; for Rust on
//! `wasm32`, the typed shell `web` (feature `web`, the default).
//!
//! ```text
//!   JS caller ─▶ js/ (api, executor, core facade, platform) ─▶ plain exports (abi) ─┐
//!   Rust dashboard ─▶ web::Client (web::api, executor, platform) ─────────────────────┤
//!                                                                                   ▼
//!        core (this crate without `web`): call::Call, stream::session::Session, Operation,
//!        Policy, Budget and its bracket for sharing, records
//! ```
//!
//! ## A Rust dashboard on wasm32 (Leptos, Yew, Dioxus, `wasm-pack test`)
//!
//! ```ignore
//! // wasm32 only: the `web` module. examples/rust-dashboard is this, with its tests.
//! use retryline::web::{CallOptions, Client, Error};
//! use retryline::{Policy, Reason};
//!
//! async fn price(client: &Client) -> Result<web_sys::Response, Error> {
//!     client.get("https://api.binance.com/api/v3/ticker/price?symbol=BTCUSDT", CallOptions::default()).await
//! }
//!
//! let client = Client::new(Policy::builder().max_attempts(4).attempt_timeout_ms(2_000).deadline_ms(8_000).build()?);
//! match price(&client).await {
//!     Ok(response) => { /* show it */ }
//!     Err(error) if error.reason() == Some(Reason::Banned) => { /* say so; nothing is sent until it ends */ }
//!     Err(error) => log(&error.to_string()), // "GET https://…: deadline after 2 requests: …"
//! }
//! ```
//!
//! Dropping the future cancels the call (its timers cleared, its request aborted). Orders:
//! `client.send("POST", url, headers, Some(body), CallOptions::order(key))`; an
//! [`Reason::UnknownOutcome`] is settled with `client.reconcile(key, query, None, None)`.
//!
//! ## The core without I/O (native, or any runtime)
//!
//! ```
//! use retryline::budget::Budget;
//! use retryline::{Action, Draws, Operation, OperationKind, Outcome, Policy, Priority, Start};
//!
//! let policy = Policy::builder().base_delay_ms(100).deadline_ms(5_000).attempt_timeout_ms(1_000).build()?;
//! let start = Start {
//!     policy, kind: OperationKind::Read, priority: Priority::Read, scope: "https://api.example".into(),
//!     weight: 1, key: None, method: Some("GET".into()), url: Some("https://api.example/x".into()),
//! };
//! let (mut draws, mut budget) = (Draws::seeded(7), Budget::default());
//! let (mut now, wall) = (0, 1_767_225_600_000); // monotonic ms, and wall-clock Unix ms
//! let mut op = Operation::begin(start, now, wall);
//! let mut action = op.start(now, &mut draws, &mut budget);
//! let mut statuses = [503, 200].into_iter();
//! loop {
//!     action = match action {
//!         Action::Send { .. } => {
//!             now += 40; // the request took 40 ms and answered:
//!             op.on_outcome(now, wall + now, &Outcome::response(statuses.next().unwrap()), &mut draws, &mut budget)
//!         }
//!         Action::Sleep { until } => { now = until; op.on_wake(now, &mut budget) }
//!         Action::Stop(stop) => break assert_eq!(stop.reason, retryline::Reason::Success),
//!     };
//! }
//! assert_eq!(op.records().iter().filter(|r| r.is_sent()).count(), 2);
//! # Ok::<(), retryline::InvalidOption>(())
//! ```
//!
//! ## Calling order
//! 1. Build a [`Policy`] ([`Policy::builder`], or [`Policy::from_options`] from JSON-like
//!    options) and a [`Start`]; [`Operation::begin`] fixes the deadline at `now + deadlineMs`.
//! 2. [`Operation::start`] proposes the initial attempt and returns an [`Action`].
//! 3. On `Send`, make the request (abort it after `timeout_ms`) and feed the result to
//!    [`Operation::on_outcome`]. On `Sleep`, wait until `until` and call
//!    [`Operation::on_wake`]. On `Stop`, the operation is over: read
//!    [`Operation::records`].
//! 4. [`Operation::abort`] at any time when the caller gives up.
//!
//! Always pass `now` (monotonic ms) and, where HTTP-dates or durable state are
//! involved, `wall_now` (Unix ms). Random delays come from [`Draws`], which the
//! caller seeds. [`replay()`] runs the same machine on a virtual clock.

/// The crate's README (README.crate.md), its example compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.crate.md")]
pub struct ReadmeDoctests;

pub mod backoff;
pub mod budget;
pub mod builders;
pub mod call;
pub mod canonical_url;
pub mod classify;
pub mod contention;
pub mod draw;
pub mod durable;
pub mod failure;
pub mod gate;
pub mod hedging;
pub mod http_date;
pub mod input;
pub mod json;
pub mod machine;
pub mod policy;
pub mod reason;
pub mod reconcile;
pub mod record;
pub mod redact;
pub mod replay;
pub mod retry_after;
pub mod scope;
pub mod sequencer;
pub mod sorted_map;
pub mod state;
pub mod stream;
pub mod text;
pub mod worksheet;

#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod web;

#[cfg(all(target_arch = "wasm32", feature = "abi"))]
// The coordinator's build (abi-authority) uses little of the calls' plumbing.
#[cfg_attr(not(feature = "abi-fetch"), allow(dead_code))]
mod abi;

#[cfg(all(target_arch = "wasm32", any(feature = "web", feature = "abi")))]
mod alloc;

pub use budget::{Budget, Limit, Priority};
pub use classify::{Observed, OperationKind};
pub use draw::{Draws, Rng};
pub use input::{InvalidOption, Loose, Problem};
pub use machine::{Action, Operation, Outcome, Start};
pub use policy::{Jitter, Policy};
pub use reason::{Reason, Stop};
pub use reconcile::Evidence;
pub use record::{AttemptRecord, Decision, HeldBy, Pending};
pub use replay::{replay, ReplayReport, ReplaySpec, ScriptedOutcome};
pub use state::{OperationState, RestoreError};
