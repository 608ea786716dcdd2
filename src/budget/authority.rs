//! The coordinator's side of a visit (a Durable Object, or a fleet process answering from Redis):
//! what the visiting realm told is taken up, its lease answered, and whether the state changed, so
//! that a visit that took, told and was granted nothing is not stored (nor contends for the store).

use super::breaker_shared::PROBE_ASK;
use super::{Budget, Priority};

/// What a realm tells the coordinator of a scope (wall ms; see [`super::contact::Visit`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Told {
    /// Tokens to lease (0: news only).
    pub weight: u32,
    /// The priority they are for (none: unreadable, and nothing is leased).
    pub priority: Option<Priority>,
    /// The earliest and latest instants they may start.
    pub earliest: u64,
    /// See `earliest`.
    pub latest: u64,
    /// Tokens of an expired lease never started.
    pub returned: u64,
    /// The realm's hold and ban ends (0: none).
    pub hold: u64,
    /// See `hold`.
    pub ban: u64,
    /// The realm's breaker's open end (0: nothing new) and its word on the probe slot.
    pub breaker: u64,
    /// See `breaker` ([`super::breaker_shared`]).
    pub probe: u64,
    /// Tokens it spent of its own bucket while it could not visit.
    pub spent: u64,
}

/// The answer: `[tokens, from, hold, ban, breaker, probe]` (wall ms), and whether it changed the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answered {
    /// `[tokens, from, hold, ban, breaker, probe]`.
    pub answer: [u64; 6],
    /// Whether the scope's state changed: false, and it needs no storing.
    pub changed: bool,
}

impl Budget {
    /// Answers `told` on `scope` at (`now`, `wall`).
    pub fn answer_visit(&mut self, scope: &str, told: Told, now: u64, wall: u64) -> Answered {
        let to_mono = |at: u64| now.saturating_add(at.saturating_sub(wall));
        let before = (self.waits_wall(scope, now, wall), self.breaker_open_wall(scope, now, wall));
        self.hold(scope, to_mono(told.hold));
        self.ban(scope, to_mono(told.ban));
        if told.returned > 0 {
            self.lease_returned(scope, told.returned);
        }
        if told.spent > 0 {
            self.lease_spent(scope, told.spent, now);
        }
        let (mut tokens, mut from) = (0, 0);
        if let (weight @ 1.., Some(priority)) = (told.weight, told.priority) {
            let out = self.lease_out(scope, weight, priority, now, (to_mono(told.earliest), to_mono(told.latest)));
            tokens = out.tokens;
            from = wall.saturating_add(out.from.saturating_sub(now));
        }
        let (open, slot) = self.breaker_visited(scope, told.breaker, told.probe, now, wall);
        let (hold, ban) = self.waits_wall(scope, now, wall);
        let after = ((hold, ban), self.breaker_open_wall(scope, now, wall));
        // A probe's outcome (closed, failed) and a grant change the breaker even where its end does not.
        let told_some = told.returned > 0 || told.spent > 0 || told.probe > PROBE_ASK;
        let changed = told_some || tokens > 0 || slot == PROBE_ASK || after != before;
        Answered { answer: [tokens, from, hold, ban, open, slot], changed }
    }
}
