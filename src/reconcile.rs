//! Reconciliation: what a status query can tell about an order whose outcome is unknown.
//!
//! A transmitted order whose answer was lost may have executed. It is never sent
//! again; instead the caller's status query runs under its own bounded policy (with
//! budget priority `reconcile`) until the evidence settles it. A fill, a documented
//! rejection, a cancel — or an open order, which is live exposure — resolves it.
//! `not-found` does not: an absent open-order row is not proof that nothing traded,
//! so the query is repeated, and exhausting the policy leaves the key unresolved and
//! escalated.

use serde::{Deserialize, Serialize};

use crate::input::{InvalidOption, Loose};
use crate::policy::Policy;

/// What a status query found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// The order executed in full.
    Filled,
    /// The order executed in part.
    PartiallyFilled,
    /// Resting on the book: resolved, as live exposure.
    Open,
    /// The order was canceled.
    Canceled,
    /// The provider rejected the order: it never executed.
    Rejected,
    /// Not among the orders the query could see: proves nothing, the query is repeated.
    NotFound,
}

impl Evidence {
    /// The accepted names, quoted, for an error that lists them.
    pub const NAMES: &'static str =
        "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\", \"not-found\"";

    /// The evidence a status query names; `None` for any other name.
    pub fn from_name(name: &str) -> Option<Evidence> {
        crate::json::position(Self::NAME_LIST, name).and_then(|at| Self::ALL.get(at).copied())
    }

    /// Whether this evidence settles the unknown outcome.
    pub fn resolves(self) -> bool {
        self != Evidence::NotFound
    }
}

/// What settling `key` runs as: reads at reconciliation priority, in a scope of their own
/// (`<what>:<key>`) until the order's own scope is known.
pub fn status_start(key: &str, policy: Policy, what: &str) -> crate::machine::Start {
    crate::machine::Start {
        policy,
        kind: crate::classify::OperationKind::Read,
        priority: crate::budget::Priority::Reconcile,
        scope: crate::text::join(&[what, ":", key]),
        weight: 1,
        key: Some(key.to_owned()),
        method: None,
        url: None,
    }
}

/// The default policy of reconciliation queries, before the caller's overrides.
///
/// # Default
/// 5 queries, each bounded by 5 s, within 60 s, with full jitter over windows of 1 s
/// doubling up to 8 s.
pub fn reconciliation_policy(overrides: &Loose) -> Result<Policy, InvalidOption> {
    Policy::reconciliation_default().with_options(overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_documented_options() {
        let number = |name: &str, x: f64| (name.to_owned(), Loose::Number(x));
        let documented = Loose::Map(vec![
            number("maxAttempts", 5.0),
            number("baseDelayMs", 1000.0),
            number("maxDelayMs", 8000.0),
            number("attemptTimeoutMs", 5000.0),
            number("deadlineMs", 60_000.0),
        ]);
        assert_eq!(reconciliation_policy(&Loose::Absent), Policy::from_options(&documented));
    }
}
