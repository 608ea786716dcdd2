//! Why an operation stopped, and what each attempt's outcome meant.

use core::fmt;

use serde::{Deserialize, Serialize};

/// One vocabulary for decisions. An operation stops with `success` or one of the
/// `RetryError` reasons; a sent attempt's record also uses `retryable` and
/// `throttled` for outcomes that led to a retry proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The request succeeded (2xx or 3xx), or a status query found evidence that settles the order.
    Success,
    /// Transient failure: a retry was proposed.
    Retryable,
    /// A 429: a retry was proposed, and a second one after an honoured wait stops the operation.
    Throttled,
    /// The response says repeating cannot help (400, 401, 403, 404, 422, …).
    NonRetryable,
    /// `maxAttempts` requests have been made.
    Attempts,
    /// The next attempt could not finish before the deadline.
    Deadline,
    /// The provider's minimum wait cannot fit before the deadline; it is never shortened.
    ProviderWait,
    /// The shared budget has no room for the attempt before the deadline.
    Budget,
    /// The scope is banned (418) until its expiry.
    Banned,
    /// Throttled again after a provider wait was honoured: escalate, don't loop.
    RateLimited,
    /// An order was transmitted and its result is unknown: reconcile, never resubmit.
    UnknownOutcome,
    /// The caller aborted.
    Aborted,
    /// The operation's state could not be read or saved in its store, so nothing more was sent.
    Store,
    /// The scope's circuit breaker is open: nothing is sent there until it is probed.
    CircuitOpen,
}

impl Reason {
    /// Every reason, in declaration order.
    pub const ALL: [Reason; 14] = [
        Reason::Success,
        Reason::Retryable,
        Reason::Throttled,
        Reason::NonRetryable,
        Reason::Attempts,
        Reason::Deadline,
        Reason::ProviderWait,
        Reason::Budget,
        Reason::Banned,
        Reason::RateLimited,
        Reason::UnknownOutcome,
        Reason::Aborted,
        Reason::Store,
        Reason::CircuitOpen,
    ];

    /// Every reason's name, in the order of [`ALL`](Self::ALL) (the codes across the wasm boundary).
    pub const NAME_LIST: [&'static str; 14] = [
        "success",
        "retryable",
        "throttled",
        "non-retryable",
        "attempts",
        "deadline",
        "provider-wait",
        "budget",
        "banned",
        "rate-limited",
        "unknown-outcome",
        "aborted",
        "store",
        "circuit-open",
    ];

    /// The names, for an error that lists them.
    pub const NAMES: &'static str = "\"success\" \"retryable\" \"throttled\" \"non-retryable\" \"attempts\" \"deadline\" \"provider-wait\" \"budget\" \"banned\" \"rate-limited\" \"unknown-outcome\" \"aborted\" \"store\" \"circuit-open\" ";

    /// Its kebab-case name, as records and `RetryError.reason` carry it.
    pub fn as_str(self) -> &'static str {
        Self::NAME_LIST.get(self as usize).copied().unwrap_or_default()
    }

    /// Whether an outcome with this verdict leads to a retry proposal (banned and rate-limited
    /// ones are refused at once, but still recorded with the wait they would have had).
    pub fn proposes_retry(self) -> bool {
        matches!(self, Reason::Retryable | Reason::Throttled | Reason::Banned | Reason::RateLimited)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How and when an operation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stop {
    /// Why it ended.
    pub reason: Reason,
    /// Milliseconds since the operation started.
    pub at_ms: u64,
}
