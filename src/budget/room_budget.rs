//! The budget's side of `maxInFlight` ([`super::room`]): each scope's room asked, boarded and
//! watched for a freed slot.

use super::room::Admit;
use super::{Budget, Grant};

impl Budget {
    /// Whether granted attempt `grant` may go on the wire now under the scope's `maxInFlight`, or
    /// waits for room until its latest start `latest`.
    pub fn room(&mut self, scope: &str, grant: &Grant, now: u64, latest: u64) -> Admit {
        let Some(max) = self.limits(scope).max_in_flight else { return Admit::Go };
        match &mut self.scope_mut(scope).room {
            Some(room) => room.admit(max, grant.id, grant.priority, now, latest),
            None => Admit::Go,
        }
    }

    /// Whether `grant` waits for room in its scope (a sleep a freed slot ends early).
    pub fn waits_for_room(&self, scope: &str, grant: &Grant) -> bool {
        let room = self.scopes.get(scope).and_then(|s| s.room.as_ref());
        room.is_some_and(|room| room.waiting.iter().any(|w| w.id == grant.id))
    }

    /// The granted attempt went on the wire; it ends by `due` (monotonic ms) at the latest.
    pub fn board(&mut self, scope: &str, grant: &Grant, due: u64) {
        if let Some(room) = &mut self.scope_mut(scope).room {
            room.board(grant.id, due);
        }
    }

    /// Whether a slot freed while others waited for room since the last call (then they must look
    /// again: the shell tells every machine of the budget).
    pub fn take_freed(&mut self) -> bool {
        let mut freed = false;
        for (_, s) in self.scopes.iter_mut() {
            if let Some(room) = &mut s.room {
                freed |= core::mem::take(&mut room.freed);
            }
        }
        freed
    }

    /// Whether a slot freed while others waited, without clearing it (news for other realms).
    pub fn freed(&self) -> bool {
        self.scopes.values().any(|s| s.room.as_ref().is_some_and(|room| room.freed))
    }
}
