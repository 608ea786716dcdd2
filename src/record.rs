//! Attempt records: one per request sent and one per retry proposed and refused.
//!
//! A record carries the wait that *preceded* its attempt (window, draw, provider
//! minimum, planned wait), like the rows of the reference article's table, so an
//! operator can read why each request went out when it did — or why it never did.

use serde::{Deserialize, Serialize};

use crate::budget::Limit;
use crate::classify::{Observed, OperationKind};
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::retry_after::RetryAfterForm;

/// Whether the proposed attempt went on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// The request went on the wire.
    Sent,
    /// It was never sent; the record's `reason` says why.
    Refused,
    /// The read failed (its `reason` says why) and its last good response was served instead,
    /// marked stale (`staleIfErrorMs`).
    Stale,
}

/// What was still pending when a timeout, the deadline or a store failure cut an attempt short.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pending {
    /// The response's headers never came.
    Response,
    /// The headers came; the body never finished.
    Body,
    /// The caller's request body was still being read.
    RequestBody,
    /// A reconciliation query had not answered.
    Query,
    /// Another owner's lease on the key had not run out.
    Lease,
    /// The store's `get` had not settled.
    StoreGet,
    /// The store's `set` had not settled.
    StoreSet,
    /// The store's `delete` had not settled.
    StoreDelete,
}

/// One attempt, sent or refused. Times are milliseconds since the operation started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptRecord {
    /// 1 for the initial request; a refused proposal has the number it would have had.
    pub attempt: u32,
    /// Whether it went on the wire.
    pub decision: Decision,
    /// The operation's kind (read, idempotent, order).
    pub operation: OperationKind,
    /// The operation's identity (e.g. the client order id), when it has one.
    pub key: Option<String>,
    /// The budget scope it counted against.
    pub scope: Option<String>,
    /// The HTTP method, if the shell gave one.
    pub method: Option<String>,
    /// Redacted: no credentials, no secret query values, no fragment.
    pub url: Option<String>,
    /// When the attempt was admitted or refused.
    pub decided_at_ms: u64,
    /// When it started (sent) or would have started (refused).
    pub start_ms: u64,
    /// When it ended (sent), or when its full timeout would have ended (refused).
    pub end_ms: Option<u64>,
    /// What the shell observed of a sent attempt (`None` for a refused one).
    pub outcome: Option<Observed>,
    /// The HTTP status of its response, if one came.
    pub status: Option<u16>,
    /// The backoff window of the preceding wait (none before the initial request).
    pub window_ms: Option<u64>,
    /// The delay drawn from that window.
    pub sampled_delay_ms: Option<u64>,
    /// The provider's minimum still to wait when the wait was planned (Retry-After, scope hold).
    pub provider_wait_ms: u64,
    /// How the `Retry-After` behind `providerWaitMs` was read, when there was one.
    pub retry_after: Option<RetryAfterForm>,
    /// Wait imposed by the shared budget (tokens, retry quota).
    pub budget_wait_ms: u64,
    /// `max(provider minimum + spread, draw) + budget wait`: the wait before this attempt.
    pub planned_wait_ms: u64,
    /// Time left before the deadline when the decision was made.
    pub remaining_ms: u64,
    /// What a reconciliation query found (reconciliation records only).
    #[serde(default)]
    pub evidence: Option<Evidence>,
    /// For a sent attempt, what its outcome meant; for a refused one, why it was refused.
    pub reason: Option<Reason>,
    /// What the platform said of a failed attempt (redacted), or why its response was unusable.
    #[serde(default)]
    pub error: Option<String>,
    /// What was still pending when a timeout, the deadline or a store failure cut it short.
    #[serde(default)]
    pub pending: Option<Pending>,
    /// A store failure after this attempt; the attempt's outcome stands.
    #[serde(default)]
    pub store_error: Option<String>,
    /// Which part of the budget refused it (`reason: "budget"` only).
    #[serde(default)]
    pub limit: Option<Limit>,
    /// A hedge: a second request of a read whose first was late ([`crate::hedging`]).
    #[serde(default)]
    pub hedge: bool,
    /// Of the requests of one hedged race, the attempt whose answer was used (`None`: no race).
    #[serde(default)]
    pub winner: Option<u32>,
    /// The response that set the scope-wide hold or ban that refused it (`None`: not refused by
    /// one, or it was learnt from another tab or process).
    #[serde(default)]
    pub held_by: Option<Box<HeldBy>>,
    /// For the first attempt of a stream's reconnect: how the connection before it ended (the
    /// server's close code and reason, or why it was replaced), redacted.
    #[serde(default)]
    pub dropped: Option<String>,
    /// Of the record that says a read served its last good response (`staleIfErrorMs`): that
    /// response's age, ms. Absent on every other record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale_age_ms: Option<u64>,
}

/// A response that set a scope-wide hold or ban, or the last failure that opened its breaker: which
/// request, its status, when, and until when the scope is held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldBy {
    /// The request's method.
    pub method: String,
    /// The request's URL, redacted as its records are.
    pub url: String,
    /// The status that asked for the wait (429, 418, 503, …); `None` for a failure without a
    /// response (a timeout or a network error that opened a breaker).
    pub status: Option<u16>,
    /// Wall-clock ms since the Unix epoch when the response came.
    pub at_wall_ms: u64,
    /// Wall-clock ms since the Unix epoch when the hold or ban ends.
    pub until_wall_ms: u64,
}

impl AttemptRecord {
    /// Whether it went on the wire.
    pub fn is_sent(&self) -> bool {
        self.decision == Decision::Sent
    }
}

/// How many records went on the wire.
pub fn wire_requests(records: &[AttemptRecord]) -> u32 {
    records.iter().filter(|r| r.is_sent()).count() as u32
}
