//! The platform, bound: everything the shell touches of JavaScript, each call that can run the
//! caller's code or throw made through a guarded snippet (shell.js beside these files, a section
//! per concern, self-contained; one module, so that a page fetches few) or a `catch` import. Nothing here decides anything, and nothing
//! here knows of an operation: it offers clocks, waits, requests, responses, sockets, stores and locks.
//!
//! ```text
//! values.rs ── shell.js     guarded get / call / construct / keys, JSON.parse, entropy
//!   errors.rs, loose.rs      TypeError/RangeError made; thrown values described; JsValue → Loose
//! waits.rs ─── shell.js     timers, abort listeners, settling values, the monotonic clock
//!   clock.rs                 now() and wall_now() (never backwards)
//!   wake.rs, latch.rs        one callback for every wake-up, a one-shot value
//!   settling.rs, alarm.rs    a JavaScript value's settling; one timer at an instant
//!   inbox.rs                 values posted by callbacks, taken in order by one task
//!   abort.rs, spawn.rs       the caller's signals, listened to; a Rust future as a task
//! response.rs ─ shell.js    an attempt's init; a response's head and face; its body's abort
//!   request.rs               the request kept for resending, its body read once
//!   fetch.rs                 a request on the wire: its AbortController, head, body rebuilt; a call's, by attempt
//! socket.rs                  a WebSocket: its events to one callback, closed quietly; a stream's, by link
//! store.rs                   where keyed state is kept (the caller's object, or memory); calls out
//! tabs.rs ── tab-locks.js   a budget's state shared across tabs: Web Locks, IndexedDB, BroadcastChannel;
//!                            a machine's locks, and its ear for news of a hold or ban
//! ```

pub mod abort;
pub mod alarm;
pub mod clock;
pub mod errors;
pub mod fetch;
pub mod inbox;
pub mod latch;
pub mod loose;
pub mod page;
pub mod request;
pub mod response;
pub mod settling;
pub mod socket;
pub mod spawn;
pub mod store;
pub mod tabs;
pub mod values;
pub mod waits;
pub mod wake;
