//! The typed Rust shell on wasm32 (feature `web`), for Rust dashboards (Leptos, Yew, Dioxus) and
//! crates tested with `wasm-pack test`: a [`Client`] built from the core's [`Policy`](crate::Policy)
//! and a [`SharedBudget`], whose [`Client::fetch`] takes a `web_sys::Request` and [`CallOptions`]
//! and returns `Result<web_sys::Response, Error>`; and [`Client::stream`], a WebSocket whose
//! reconnects the core decides under the same policy limits and budget. (The npm package's JavaScript shell is js/,
//! over the core's plain exports; it does not use this module.)
//!
//! Three layers, each importing only those below it; nothing here decides, every decision is the
//! core's:
//!
//! ```text
//!  Rust caller
//!      │   Client, ClientBuilder, CallOptions, PolicyLayer, ShouldRetry, RetryContext, Error,
//!      │   Stopped, SharedBudget, Reconciled, Family, Match, Docs, Worksheet, WorksheetRow,
//!      │   Stream, StreamOptions, StreamEvent, StreamState, Message, NotOpen, OnOpen,
//!      │   Connection, Resync, Heartbeat, OnEvent
//!      ▼
//!  api/        checks what the caller gives (policies merged field by field), begins the
//!      │       machines from it, returns typed results (a settled call read, a stream's events)
//!      ▼
//!  executor/   carries out the core's machines — a call's (crate::call) and a stream's session
//!      │       (crate::stream::session) — with one driver loop: each effect it hands out — send,
//!      │       abort, store, ask, connect, close, write, on_open, resync, ping, share, report,
//!      │       done — done, what happened fed back, one timer each
//!      ▼
//!  platform/   the JavaScript it binds, every call that can throw guarded or `catch`:
//!      │       values.js · waits.js · responses.js · tab-locks.js, clocks, timers, settling
//!      │       values, abort, fetch, request, response, socket, inbox, store, JsValue → Loose
//!      ▼
//!  core        (the crate without `web`) Call, Session, Operation, Stream, Policy, Budget, records
//! ```
//!
//! **Cancelling** is dropping the future: its timer is cleared and the requests in flight are
//! aborted (their `AbortSignal` fires). An order dropped in flight is kept unresolved in the store,
//! as any unknown outcome is: reconcile it. To cancel from elsewhere, give the call a
//! [`CallOptions::signal`] of your own and abort it: the call then ends with
//! [`Reason::Aborted`](crate::Reason::Aborted).
//!
//! **A stream** is closed by dropping its [`Stream`] (or [`Stream::close`]): its socket is
//! closed and its timer cleared at once (once it holds the lock, for a budget shared across tabs).
//!
//! ```ignore
//! let stream = client.stream("wss://stream.binance.com/ws/btcusdt@trade", StreamOptions::default())?;
//! while let Some(event) = stream.next().await {
//!     match event {
//!         StreamEvent::Message(Message::Text(tick)) => show(&tick),
//!         StreamEvent::State(state) => badge(state), // Connecting, Open, Stale, Waiting
//!         StreamEvent::Stopped(error) => break log(&error.to_string()), // attempts or outage ran out, a ban
//!         StreamEvent::Message(Message::Binary(_)) => {}
//!     }
//! }
//! ```

mod api;
mod executor;
mod platform;

pub use api::staleness;
pub use api::{
    CallOptions, Client, ClientBuilder, Connection, Docs, Error, Family, FamilyRequest, Heartbeat, Match, Message,
    NotOpen, OnEvent, OnOpen, PageSignal, PolicyLayer, ProtocolsProvider, Reconciled, Resync, RetryContext, RetryInfo,
    SharedBudget, ShouldRetry, Staleness, Stopped, Stream, StreamEvent, StreamOptions, StreamState, TokenBucket,
    UrlPattern, UrlProvider, Weight, Worksheet, WorksheetRow,
};
pub use platform::clock;
