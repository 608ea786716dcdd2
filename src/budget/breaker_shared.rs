//! A scope's breaker kept with a coordinator (isolates, a fleet on Redis), like its holds and bans:
//! a realm tells the coordinator when its breaker opened, takes up an opening told by another, and
//! asks for the probe slot when its breaker is half-open, so that one probe goes among all realms.
//!
//! ```text
//! visit:  breaker = this realm's open end (wall ms; 0: nothing new)  probe = 0 | 1 ask | 2 my probe closed it | 3 it failed
//! answer: breaker = the coordinator's open end (0: not open)         probe = 0 | 1 granted | 2 closed
//! ```

use super::breaker::BreakerState;
use super::Budget;

/// How long the coordinator holds the scope open for the others while a probe it granted is out:
/// the default attempt timeout. A probe that answers sooner reports at once.
pub const PROBE_HOLD_MS: u64 = 10_000;

/// What a visit asks of the probe slot, and what the answer says of it.
pub const PROBE_NONE: u64 = 0;
/// A visit asks for it; an answer grants it.
pub const PROBE_ASK: u64 = 1;
/// A visit says its probe closed the breaker; an answer says the breaker is closed.
pub const PROBE_CLOSED: u64 = 2;
/// A visit says its probe failed: the scope is open until the visit's end, not the probe's hold.
pub const PROBE_FAILED: u64 = 3;

impl Budget {
    fn breaker_state(&mut self, scope: &str, now: u64) -> Option<BreakerState> {
        self.scope_mut(scope).breaker.as_mut().map(|b| b.state(now))
    }

    /// The scope's breaker's open end, wall ms (0: not open, or no breaker).
    pub fn breaker_open_wall(&mut self, scope: &str, now: u64, wall: u64) -> u64 {
        match self.breaker_state(scope, now) {
            Some(BreakerState::Open { until }) => wall.saturating_add(until.saturating_sub(now)),
            _ => 0,
        }
    }

    /// Whether the scope's breaker is half-open with no probe out: its next attempt needs the slot.
    pub fn breaker_probe_due(&mut self, scope: &str, now: u64) -> bool {
        matches!(self.breaker_state(scope, now), Some(BreakerState::HalfOpen { in_flight: 0, .. }))
    }

    /// Whether the scope's breaker is half-open (a probe out or not).
    pub fn breaker_half_open(&mut self, scope: &str, now: u64) -> bool {
        matches!(self.breaker_state(scope, now), Some(BreakerState::HalfOpen { .. }))
    }

    /// Whether the scope's breaker is closed (false without one).
    pub fn breaker_closed(&mut self, scope: &str, now: u64) -> bool {
        self.breaker_state(scope, now) == Some(BreakerState::Closed)
    }

    /// Opens the scope's breaker until `until` (monotonic) at least.
    pub fn breaker_open_to(&mut self, scope: &str, until: u64) {
        if let Some(b) = self.scope_mut(scope).breaker.as_mut() {
            b.open_to(until);
        }
    }

    /// A closed breaker of the scope becomes half-open: the coordinator granted it the probe.
    pub fn breaker_half_open_now(&mut self, scope: &str) {
        if let Some(b) = self.scope_mut(scope).breaker.as_mut() {
            b.half_open();
        }
    }

    /// Closes the scope's breaker: a probe succeeded (here, or in another realm).
    pub fn breaker_close(&mut self, scope: &str) {
        if let Some(b) = self.scope_mut(scope).breaker.as_mut() {
            b.close();
        }
    }

    /// The coordinator's side of a visit: what the realm told (`opened`, its open end in wall ms,
    /// and `probe`), and the answer `(open end wall ms, probe)`. No breaker: `(0, PROBE_NONE)`.
    pub fn breaker_visited(&mut self, scope: &str, opened: u64, probe: u64, now: u64, wall: u64) -> (u64, u64) {
        let to_mono = |at: u64| now.saturating_add(at.saturating_sub(wall));
        if self.breaker_state(scope, now).is_none() {
            return (0, PROBE_NONE);
        }
        if probe == PROBE_CLOSED || probe == PROBE_FAILED {
            self.breaker_close(scope);
        }
        // An end still to come: one that is now or past opens nothing.
        if opened > wall {
            self.breaker_open_to(scope, to_mono(opened));
        }
        match self.breaker_state(scope, now) {
            // The slot is this realm's; the others are held open while its probe is out.
            Some(BreakerState::HalfOpen { .. }) if probe == PROBE_ASK => {
                self.breaker_open_to(scope, now.saturating_add(PROBE_HOLD_MS));
                (0, PROBE_ASK)
            }
            Some(BreakerState::Closed) => (0, PROBE_CLOSED),
            _ => (self.breaker_open_wall(scope, now, wall), PROBE_NONE),
        }
    }
}
