//! The shared budget: what every operation in a scope must ask before it sends.
//!
//! A scope (by default the URL origin) is where a provider's limits apply. The
//! budget keeps, per scope, the provider's holds (a throttle's `Retry-After`
//! covers the whole scope) and bans (a 418 suspends it until expiry). Many
//! operations — and many clients — share one `Budget`; the core passes it to every
//! call that decides, so nothing here reads a clock: `now` is always given.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::classify::OperationKind;

/// Who goes first when capacity is short: reconciliation never starves behind refreshes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Priority {
    /// Optional dashboard refreshes: the first to be refused.
    Refresh,
    #[default]
    Read,
    Order,
    /// Status queries that investigate an unknown outcome.
    Reconcile,
}

impl Priority {
    /// Orders go before reads; everything else is a read unless the caller says otherwise.
    pub fn for_kind(kind: OperationKind) -> Priority {
        if kind.is_order() {
            Priority::Order
        } else {
            Priority::Read
        }
    }
}

/// What an operation asks of the budget before an attempt.
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    pub scope: &'a str,
    pub weight: u32,
    pub priority: Priority,
    /// Whether this attempt repeats an earlier one.
    pub retry: bool,
    /// The earliest instant the attempt may start (after provider minimum and draw).
    pub earliest: u64,
    /// The latest instant it may start and still finish before the deadline.
    pub latest: u64,
}

/// Capacity granted for one attempt: when it may start. Give it back with [`Budget::release`]
/// if the attempt is never sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub start_at: u64,
}

/// One scope of a [`Budget::snapshot`]. Ends are wall-clock Unix ms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeSnapshot {
    pub scope: String,
    pub held_until: Option<u64>,
    pub hold_remaining_ms: u64,
    pub banned_until: Option<u64>,
    pub ban_remaining_ms: u64,
}

#[derive(Clone, Debug, Default)]
struct ScopeState {
    hold_until: u64,
    ban_until: u64,
}

/// Holds and bans per scope, shared by every operation that holds the budget.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    scopes: BTreeMap<String, ScopeState>,
}

impl Budget {
    /// No token limit: only the provider's holds and bans constrain traffic.
    pub fn unlimited() -> Self {
        Budget::default()
    }

    fn scope_mut(&mut self, scope: &str) -> &mut ScopeState {
        self.scopes.entry(scope.to_owned()).or_default()
    }

    /// Holds the scope until `until` (monotonic ms); an existing longer hold stays.
    pub fn hold(&mut self, scope: &str, until: u64) {
        let s = self.scope_mut(scope);
        s.hold_until = s.hold_until.max(until);
    }

    /// Bans the scope until `until`; nothing is sent there meanwhile.
    pub fn ban(&mut self, scope: &str, until: u64) {
        let s = self.scope_mut(scope);
        s.ban_until = s.ban_until.max(until);
    }

    /// How long the scope is still held at `now` (0 when free).
    pub fn hold_remaining(&self, scope: &str, now: u64) -> u64 {
        self.scopes
            .get(scope)
            .map_or(0, |s| s.hold_until.saturating_sub(now))
    }

    /// How long the scope is still banned at `now` (0 when not banned).
    pub fn ban_remaining(&self, scope: &str, now: u64) -> u64 {
        self.scopes
            .get(scope)
            .map_or(0, |s| s.ban_until.saturating_sub(now))
    }

    /// Each known scope as an operator would read it, at monotonic `now` / wall clock `wall_now`.
    pub fn snapshot(&self, now: u64, wall_now: u64) -> Vec<ScopeSnapshot> {
        self.scopes
            .iter()
            .map(|(scope, s)| {
                let held = s.hold_until.saturating_sub(now);
                let banned = s.ban_until.saturating_sub(now);
                ScopeSnapshot {
                    scope: scope.clone(),
                    held_until: (held > 0).then(|| wall_now.saturating_add(held)),
                    hold_remaining_ms: held,
                    banned_until: (banned > 0).then(|| wall_now.saturating_add(banned)),
                    ban_remaining_ms: banned,
                }
            })
            .collect()
    }

    /// Grants capacity for one attempt, or refuses it if none fits before `ask.latest`.
    pub fn admit(&mut self, ask: &Ask) -> Option<Grant> {
        (ask.earliest <= ask.latest).then_some(Grant {
            start_at: ask.earliest,
        })
    }

    /// Returns capacity granted to an attempt that was never sent.
    pub fn release(&mut self, _scope: &str, _grant: Grant, _now: u64) {}

    /// Tells the budget how a sent attempt ended, for the retry quota.
    pub fn settle(&mut self, _scope: &str, _retry: bool, _success: bool, _timed_out: bool) {}
}
