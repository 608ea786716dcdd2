//! A scope's holds (a provider's `Retry-After` over the whole scope) and bans (a 418), and the
//! response behind each, so that a refusal can say which response set it and until when.

use super::{Budget, ScopeState};
use crate::record::HeldBy;

/// The response behind a scope's hold or ban, and when it came (monotonic and wall-clock ms).
#[derive(Clone, Debug)]
pub struct Cause {
    /// The request's method.
    pub method: String,
    /// The request's URL, redacted.
    pub url: String,
    /// The response's status (`None`: a timeout or a network error).
    pub status: Option<u16>,
    /// When it came, monotonic ms.
    pub at: u64,
    /// When it came, wall-clock ms.
    pub at_wall: u64,
}

impl Cause {
    /// What a refused record says of it: the hold or ban ends at `until` (monotonic ms).
    fn held_by(&self, until: u64) -> HeldBy {
        let until_wall_ms = self.at_wall.saturating_add(until.saturating_sub(self.at));
        let (method, url, status, at_wall_ms) = (self.method.clone(), self.url.clone(), self.status, self.at_wall);
        HeldBy { method, url, status, at_wall_ms, until_wall_ms }
    }
}

impl Budget {
    /// Holds the scope until `until` (monotonic ms); an existing longer hold stays.
    pub fn hold(&mut self, scope: &str, until: u64) {
        let s = self.scope_mut(scope);
        if until > s.hold_until {
            s.hold_cause = None; // a longer hold learnt elsewhere: its cause is not known here
        }
        s.hold_until = s.hold_until.max(until);
    }

    /// Bans the scope until `until`; nothing is sent there meanwhile.
    pub fn ban(&mut self, scope: &str, until: u64) {
        let s = self.scope_mut(scope);
        if until > s.ban_until {
            s.ban_cause = None;
        }
        s.ban_until = s.ban_until.max(until);
    }

    /// Holds the scope until `until`, as the response `cause` asked; the longest hold keeps its cause.
    pub fn hold_for(&mut self, scope: &str, until: u64, cause: Cause) {
        let s = self.scope_mut(scope);
        if until >= s.hold_until {
            s.hold_cause = Some(Box::new(cause));
        }
        s.hold_until = s.hold_until.max(until);
    }

    /// The last failure the scope's breaker counted, for a refusal while it is open to name.
    /// `cause` is made only for a scope with a breaker: most have none.
    pub fn breaker_failed(&mut self, scope: &str, cause: impl FnOnce() -> Cause) {
        let s = self.scope_mut(scope);
        if s.breaker.is_some() {
            s.breaker_cause = Some(Box::new(cause()));
        }
    }

    /// The last failure before the scope's breaker opened, held until `until` (monotonic ms).
    pub fn breaker_held_by(&self, scope: &str, until: u64) -> Option<Box<HeldBy>> {
        let cause = self.scopes.get(scope)?.breaker_cause.as_ref()?;
        Some(Box::new(cause.held_by(until)))
    }

    /// Bans the scope until `until`, as the response `cause` asked; the longest ban keeps its cause.
    pub fn ban_for(&mut self, scope: &str, until: u64, cause: Cause) {
        let s = self.scope_mut(scope);
        if until >= s.ban_until {
            s.ban_cause = Some(Box::new(cause));
        }
        s.ban_until = s.ban_until.max(until);
    }

    /// The response behind the scope's ban at `now` (or, with `banned` false, its hold), if this
    /// realm saw it and it still sets the end.
    pub fn held_by(&self, scope: &str, now: u64, banned: bool) -> Option<Box<HeldBy>> {
        let s = self.scopes.get(scope)?;
        let (until, cause) = s.hold_or_ban(banned);
        let cause = cause.as_ref().filter(|c| until > now && c.at <= until)?;
        Some(Box::new(cause.held_by(until)))
    }

    /// How long the scope is still held at `now` (0 when free).
    pub fn hold_remaining(&self, scope: &str, now: u64) -> u64 {
        self.scopes.get(scope).map_or(0, |s| s.hold_until.saturating_sub(now))
    }

    /// How long the scope is still banned at `now` (0 when not banned).
    pub fn ban_remaining(&self, scope: &str, now: u64) -> u64 {
        self.scopes.get(scope).map_or(0, |s| s.ban_until.saturating_sub(now))
    }
}

impl ScopeState {
    /// The end and the cause of its ban (`banned`) or its hold.
    fn hold_or_ban(&self, banned: bool) -> (u64, &Option<Box<Cause>>) {
        if banned {
            (self.ban_until, &self.ban_cause)
        } else {
            (self.hold_until, &self.hold_cause)
        }
    }
}
