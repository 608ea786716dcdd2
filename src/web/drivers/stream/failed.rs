//! How a stream stopped, as the driver hands it up.

use crate::failure::{self, Note};
use crate::reason::Reason;
use crate::record::AttemptRecord;
use crate::redact::redact_text_with;

/// What the store or the platform said, redacted as records are (it may quote a URL).
pub fn redacted(detail: &str) -> String {
    redact_text_with(detail, &|_| false)
}

/// A stream that stopped: why, and what its last outage saw.
pub struct Failure {
    pub reason: Reason,
    pub method: String,
    /// Redacted (or `key "…"` for a reconciliation).
    pub url: String,
    pub key: Option<String>,
    /// The provider's last response, its URL redacted.
    pub response: Option<web_sys::Response>,
    pub records: Vec<AttemptRecord>,
    /// Replaces the standard explanation of the reason.
    pub detail: Option<String>,
    /// Added after the explanation: what was pending, what the store said.
    pub note: Note,
}

impl Failure {
    /// "POST https://…/order: unknown-outcome after 1 request: the order may have executed; …"
    pub fn message(&self) -> String {
        failure::Failure {
            method: &self.method,
            url: &self.url,
            reason: self.reason,
            records: &self.records,
            detail: self.detail.as_deref(),
            note: &self.note,
        }
        .message()
    }
}
