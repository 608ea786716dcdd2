//! A cap on a scope's requests on the wire at once (`maxInFlight`, after Polly's concurrency
//! limiter and Envoy's `max_requests`): which grants are on the wire and until when, and which
//! wait for room, served in priority order, then first come.
//!
//! Every entry ends by itself: one on the wire at its attempt's end (its timeout), a waiter at the
//! latest start its deadline allows. A tab or process that goes away mid-request can hold a slot
//! no longer than that, and no state can stay stuck.

use super::Priority;

/// What [`Room::admit`] decided for one grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// There is room, and no one waiting goes first: send now.
    Go,
    /// No room yet: wait, woken when a slot frees, until `until` (the latest start, or the end of
    /// the first request on the wire, whichever comes first).
    Wait {
        /// When to look again: at the latest start it goes or is refused.
        until: u64,
    },
    /// No room by the latest start: refuse with `budget`.
    Full,
}

/// One grant waiting for room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiter {
    /// The grant's id: first come, first served within a priority.
    pub id: u64,
    /// Who goes first.
    pub priority: Priority,
    /// Its latest start (monotonic ms): it leaves the queue then.
    pub latest: u64,
}

impl Waiter {
    fn goes_before(&self, priority: Priority, id: u64) -> bool {
        self.id != id && (self.priority > priority || (self.priority == priority && self.id < id))
    }
}

/// A scope's requests on the wire and its queue for room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Room {
    /// Grant id and when its attempt ends at the latest (monotonic ms).
    pub on_wire: Vec<(u64, u64)>,
    /// Grants waiting for room.
    pub waiting: Vec<Waiter>,
    /// A slot freed (or a waiter left) while others waited: they must be told to look again.
    pub freed: bool,
}

impl Room {
    /// Entries whose end has come are gone.
    fn expire(&mut self, now: u64) {
        let before = (self.on_wire.len(), self.waiting.len());
        self.on_wire.retain(|&(_, due)| due > now);
        self.waiting.retain(|w| w.latest >= now);
        if before != (self.on_wire.len(), self.waiting.len()) && !self.waiting.is_empty() {
            self.freed = true;
        }
    }

    /// Whether grant `id` of `priority` may go on the wire now, with `max` at once, or waits
    /// until its latest start `latest`.
    pub fn admit(&mut self, max: u64, id: u64, priority: Priority, now: u64, latest: u64) -> Admit {
        self.expire(now);
        let ahead = self.waiting.iter().filter(|w| w.goes_before(priority, id)).count() as u64;
        if (self.on_wire.len() as u64).saturating_add(ahead) < max {
            self.forget(id);
            return Admit::Go;
        }
        if now >= latest {
            self.forget(id);
            return Admit::Full;
        }
        match self.waiting.iter_mut().find(|w| w.id == id) {
            Some(waiter) => waiter.latest = latest,
            None => self.waiting.push(Waiter { id, priority, latest }),
        }
        // A request whose holder is gone (a closed tab) frees its slot when its attempt ends: look then.
        let expiry = self.on_wire.iter().map(|&(_, due)| due).min().unwrap_or(latest);
        Admit::Wait { until: latest.min(expiry) }
    }

    /// Grant `id` went on the wire; its attempt ends by `due` at the latest.
    pub fn board(&mut self, id: u64, due: u64) {
        self.on_wire.retain(|&(on, _)| on != id);
        self.on_wire.push((id, due));
    }

    /// Grant `id`'s attempt ended (or never left): its slot frees.
    pub fn leave(&mut self, id: u64) {
        let before = self.on_wire.len();
        self.on_wire.retain(|&(on, _)| on != id);
        if self.on_wire.len() != before && !self.waiting.is_empty() {
            self.freed = true;
        }
    }

    /// Grant `id` no longer waits (it went, was refused or let go).
    pub fn forget(&mut self, id: u64) {
        let before = self.waiting.len();
        self.waiting.retain(|w| w.id != id);
        if self.waiting.len() != before && !self.waiting.is_empty() {
            self.freed = true;
        }
    }

    /// Requests on the wire at `now`.
    pub fn on_wire_at(&self, now: u64) -> usize {
        self.on_wire.iter().filter(|&&(_, due)| due > now).count()
    }

    /// Grants waiting at `now`.
    pub fn waiting_at(&self, now: u64) -> usize {
        self.waiting.iter().filter(|w| w.latest >= now).count()
    }
}
