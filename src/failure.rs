//! Why an operation stopped, said as an operator reads it: the sentence a `RetryError` (or the
//! Rust API's `Error`) carries, built here once for every shell.
//!
//! `"POST https://…/order: unknown-outcome after 1 request: the order may have executed; reconcile
//! it, do not resubmit (the store's set was still pending at the deadline)"`.

use crate::budget::Limit;
use crate::durable::Refusal;
use crate::http_date::iso_time;
use crate::reason::Reason;
use crate::record::{wire_requests, AttemptRecord, HeldBy, Pending};
use crate::text::{join, number};

/// Why a shell stopped waiting for something before it settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The attempt's own timeout.
    Timeout,
    /// The operation's deadline.
    Deadline,
    /// The caller aborted.
    Aborted,
}

impl Cut {
    /// The stop reason of an operation whose pending step was cut.
    pub fn reason(self) -> Reason {
        match self {
            Cut::Aborted => Reason::Aborted,
            Cut::Timeout | Cut::Deadline => Reason::Deadline,
        }
    }
}

/// How each pending step reads in a message, in the order of [`Pending::ALL`].
pub const PENDING_PHRASES: [&str; 8] = [
    "the response",
    "the response body",
    "the request body",
    "the status query",
    "another owner's lease",
    "the store's get",
    "the store's set",
    "the store's delete",
];

/// How a pending step reads in a message.
pub fn pending_phrase(pending: Pending) -> &'static str {
    PENDING_PHRASES.get(pending as usize).copied().unwrap_or_default()
}

/// What a message says of a step that `cut` ended before it settled.
pub fn still_pending(pending: Pending, cut: Cut) -> String {
    let when = match cut {
        Cut::Deadline => "at the deadline",
        Cut::Timeout => "after an attempt timeout",
        Cut::Aborted => "when the caller aborted",
    };
    join(&[pending_phrase(pending), " was still pending ", when])
}

/// What an operator needs to read a stop without opening the records.
pub fn explain(reason: Reason, limit: Option<Limit>) -> &'static str {
    match reason {
        Reason::NonRetryable if limit == Some(Limit::ShouldRetry) => "policy.shouldRetry declined the retry",
        Reason::NonRetryable => "the response says repeating cannot help",
        Reason::Attempts => "every allowed attempt was used",
        Reason::Deadline => "the next attempt could not finish before the deadline",
        Reason::ProviderWait => "the provider's required wait does not fit before the deadline",
        Reason::Budget if limit == Some(Limit::RetryQuota) => {
            "the retry quota is spent: retries pause until successes pay it back"
        }
        Reason::Budget if limit == Some(Limit::InFlight) => {
            "the scope's maxInFlight requests were in flight until the deadline left no room"
        }
        Reason::Budget => "the shared budget has no room before the deadline",
        Reason::Banned => "the provider has banned this scope",
        Reason::RateLimited => "throttled again after the provider's wait was honoured",
        Reason::UnknownOutcome => "the order may have executed; reconcile it, do not resubmit",
        Reason::Aborted => "the caller aborted",
        Reason::Store => "the operation's state could not be kept in its store, so nothing more was sent",
        Reason::CircuitOpen => "the scope's circuit breaker is open: nothing is sent there until it is probed",
        Reason::Success | Reason::Retryable | Reason::Throttled => "",
    }
}

/// An unknown outcome of a call without a key: nothing can reconcile it, so the advice is the caller's own.
pub const UNKEYED_UNKNOWN: &str = "it may have been processed, and without a key nothing can reconcile it: check by your own means before sending it again";

/// Why a keyed call may not run now, in place of the standard explanation.
pub fn refusal_detail(refusal: Refusal, key: &str) -> String {
    match refusal {
        Refusal::Unresolved => join(&[
            "key \"",
            key,
            "\" has an order whose outcome is unknown; reconcile it (client.reconcile) or close it (client.resolve)",
        ]),
        Refusal::InUse => join(&["key \"", key, "\" is being run by another client sharing the store"]),
    }
}

/// What a failure message adds after its explanation, in parentheses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Nothing was still pending, or the last attempt says what was (its timeout cut it).
    None,
    /// A step that was pending when the call was cut.
    Pending(Pending, Cut),
    /// What the store said when it failed (redacted).
    Store(String),
    /// The operation ended, but its state could not be saved: what the store said.
    NotSaved(String),
}

/// The message of an operation that stopped without success.
pub struct Failure<'a> {
    /// The request's method (or `reconcile`).
    pub method: &'a str,
    /// The redacted URL (or `key "…"`).
    pub url: &'a str,
    /// Why it stopped.
    pub reason: Reason,
    /// Every record, for the count of wire requests and the budget's limit.
    pub records: &'a [AttemptRecord],
    /// Replaces the standard explanation of the reason.
    pub detail: Option<&'a str>,
    /// Added after the explanation.
    pub note: &'a Note,
}

impl Failure<'_> {
    /// "POST https://…/order: unknown-outcome after 1 request: the order may have executed; …"
    pub fn message(&self) -> String {
        let sent = wire_requests(self.records);
        let plural = if sent == 1 { "" } else { "s" };
        let limit = self.records.last().and_then(|r| r.limit);
        let probe;
        let explanation = match (self.detail, self.reason) {
            (Some(detail), _) => detail,
            // When the scope is probed again: the refused record's planned wait.
            (None, Reason::CircuitOpen) => {
                let ms = self.records.last().map_or(0, |r| r.planned_wait_ms);
                probe = join(&["the scope's circuit breaker is open: it is probed again in ", &number(ms), " ms"]);
                probe.as_str()
            }
            (None, _) => explain(self.reason, limit),
        };
        let mut message = join(&[
            self.method,
            " ",
            self.url,
            ": ",
            self.reason.as_str(),
            " after ",
            &number(u64::from(sent)),
            // A stream's attempts are connection attempts (its `method` is "stream").
            if self.method == "stream" { " connection attempt" } else { " request" },
            plural,
            ": ",
            explanation,
        ]);
        // A refusal by a scope-wide hold, ban or open breaker says which response set it, and until when.
        if let Some(held) = self.records.last().and_then(|r| r.held_by.as_deref()) {
            let what = match self.reason {
                Reason::Banned => " (the scope was banned by ",
                Reason::CircuitOpen => " (the breaker opened after failures there; the last: ",
                _ => " (the scope is held by ",
            };
            message.push_str(&held_words(what, held));
        }
        // A refusal by the scope's tokens says when they would have come.
        let last = self.records.last().filter(|r| self.reason == Reason::Budget && r.limit == Some(Limit::Tokens));
        if let Some(r) = last.filter(|r| r.budget_wait_ms > 0) {
            let (wait, left) = (number(r.budget_wait_ms), number(r.remaining_ms));
            message.push_str(&join(&[" (the scope's tokens would come in ", &wait, " ms, with ", &left, " ms left)"]));
        }
        let note = match self.note {
            Note::Pending(pending, cut) => Some(still_pending(*pending, *cut)),
            Note::Store(detail) => Some(detail.clone()),
            Note::NotSaved(detail) => Some(join(&["its state was not saved: ", detail])),
            Note::None => self.cut_short(),
        };
        if let Some(note) = note {
            message.push_str(" (");
            message.push_str(&note);
            message.push(')');
        }
        message
    }

    /// An attempt cut by its timeout says what had not come.
    fn cut_short(&self) -> Option<String> {
        let pending = self.records.iter().rev().find(|r| r.is_sent())?.pending?;
        Some(join(&[pending_phrase(pending), " was still pending when the last attempt timed out"]))
    }
}

/// `what` and the response behind a hold, ban or open breaker: `{what}the 418 to GET url at …, until …)`.
pub(crate) fn held_words(what: &str, held: &HeldBy) -> String {
    let status = held.status.map_or_else(|| "failure".to_owned(), |s| number(u64::from(s)));
    let (at, until) = (iso_time(held.at_wall_ms), iso_time(held.until_wall_ms));
    let to = if held.status.is_some() { " to " } else { " of " };
    join(&[what, "the ", &status, to, &held.method, " ", &held.url, " at ", &at, ", until ", &until, ")"])
}
