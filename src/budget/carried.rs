//! Coalesced reads across the realms of a shared budget (tabs): a read on the wire is written
//! into the shared state under its request's identity, so that the same read in another tab waits
//! for its answer (carried to it by the shell) instead of sending its own. An entry ends with its
//! attempt, so a tab that closes mid-request holds no one for longer than that.

use super::Budget;

impl Budget {
    /// Whether reads of this budget coalesce across realms: it is shared by tabs.
    pub fn carries(&self) -> bool {
        #[cfg(feature = "tabs")]
        return matches!(self.sharing, super::sharing::Sharing::Tabs);
        #[cfg(not(feature = "tabs"))]
        false
    }

    /// A new token for a flight: unique across the realms (grant ids are).
    pub fn flight_token(&mut self) -> u64 {
        let token = self.next_grant;
        self.next_grant = self.next_grant.saturating_add(1);
        token
    }

    /// Another flight of request `key` in `scope` (not `token`'s), on the wire at `now`: when its
    /// attempt ends at the latest.
    pub fn flight_of(&mut self, scope: &str, key: u64, token: u64, now: u64) -> Option<u64> {
        let s = self.scope_mut(scope);
        s.flights.retain(|&(_, _, due)| due > now);
        s.flights.iter().filter(|&&(k, t, _)| k == key && t != token).map(|&(_, _, due)| due).max()
    }

    /// Flight `token` of request `key` is on the wire until `due` at the latest.
    pub fn board_flight(&mut self, scope: &str, key: u64, token: u64, due: u64) {
        let s = self.scope_mut(scope);
        s.flights.retain(|&(_, t, _)| t != token);
        s.flights.push((key, token, due));
    }

    /// Flight `token` landed: later reads of its request send their own.
    pub fn land_flight(&mut self, scope: &str, token: u64) {
        self.scope_mut(scope).flights.retain(|&(_, t, _)| t != token);
    }
}
