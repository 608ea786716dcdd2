//! # retryline
//!
//! A retry-policy core that performs no I/O and reads no clock. It decides, attempt
//! by attempt, whether to **send**, **sleep** or **stop**; a thin shell (`web`, built
//! only for `wasm32`) turns those decisions into real `fetch` calls and timers.
//!
//! ```text
//!   JS caller ─▶ js/ entry ─▶ web shell: fetch, performance.now(), Date.now(),
//!                              │          setTimeout, AbortController
//!                              ▼
//!        core (this crate without `web`): Operation, Policy, Budget, records
//! ```
//!
//! ## Calling order
//! 1. Build a [`Policy`] ([`Policy::from_options`]) and a [`Start`]; [`Operation::begin`]
//!    fixes the deadline at `now + deadlineMs`.
//! 2. [`Operation::start`] proposes the initial attempt and returns an [`Action`].
//! 3. On `Send`, make the request (abort it after `timeout_ms`) and feed the result to
//!    [`Operation::on_outcome`]. On `Sleep`, wait until `until` and call
//!    [`Operation::on_wake`]. On `Stop`, the operation is over: read
//!    [`Operation::records`].
//! 4. [`Operation::abort`] at any time when the caller gives up.
//!
//! Always pass `now` (monotonic ms) and, where HTTP-dates or durable state are
//! involved, `wall_now` (Unix ms). Random delays come from [`Draws`], which the
//! caller seeds. [`replay`] runs the same machine on a virtual clock.

pub mod backoff;
pub mod budget;
pub mod builders;
pub mod canonical_url;
pub mod classify;
pub mod contention;
pub mod draw;
pub mod durable;
pub mod gate;
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
pub mod sorted_map;
pub mod state;

#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod web;

pub use budget::{Budget, Limit, Priority};
pub use classify::{Observed, OperationKind};
pub use draw::{Draws, Rng};
pub use input::{InvalidOption, Loose, Problem};
pub use machine::{Action, Operation, Outcome, Start};
pub use policy::{Jitter, Policy};
pub use reason::{Reason, Stop};
pub use reconcile::Evidence;
pub use record::{AttemptRecord, Decision, Pending};
pub use replay::{replay, ReplayReport, ReplaySpec, ScriptedOutcome};
pub use state::{OperationState, RestoreError};
