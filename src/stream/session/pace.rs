//! Sending on a session: at most `sendPerSecond` writes in any second (a sliding window, so that a
//! provider counting per second — Binance: 5 incoming messages a second, pings and subscriptions
//! alike — never sees more), the rest queued in order; and the heartbeat, a ping whenever nothing
//! was heard for its period.

use super::{Session, SessionEffect};

/// A second, plus one millisecond: the shell's clock is rounded up.
const WINDOW_MS: u64 = 1001;

/// The sliding window of writes, and what waits for it. `Vec`s, not `VecDeque`s: no slice-index
/// panics (with their formatting code) in the wasm.
#[derive(Clone, Debug, Default)]
pub(super) struct Pace {
    per_second: Option<u64>,
    /// When the writes of the last window went (monotonic ms), oldest first.
    sent: Vec<u64>,
    /// Messages waiting their turn: (id, socket).
    queue: Vec<(u32, u32)>,
    /// When the window next has room for the queue's head.
    due: Option<u64>,
}

impl Pace {
    pub(super) fn new(per_second: Option<u64>) -> Pace {
        Pace { per_second, ..Pace::default() }
    }

    pub(super) fn due(&self) -> Option<u64> {
        self.due
    }

    /// Drops what is queued (the stream stopped, or reconnects): their ids.
    pub(super) fn clear(&mut self) -> Vec<u32> {
        self.due = None;
        std::mem::take(&mut self.queue).into_iter().map(|(id, _)| id).collect()
    }

    /// Drops what is queued for socket `link` (it closed): their ids.
    pub(super) fn drop_link(&mut self, link: u32) -> Vec<u32> {
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.queue).into_iter().partition(|m| m.1 == link);
        self.queue = kept;
        if self.queue.is_empty() {
            self.due = None;
        }
        gone.into_iter().map(|(id, _)| id).collect()
    }

    /// What was queued for socket `from` goes on `to` (a rotation replaced it).
    pub(super) fn retarget(&mut self, from: u32, to: u32) {
        for m in self.queue.iter_mut().filter(|m| m.1 == from) {
            m.1 = to;
        }
    }

    /// The messages that may go now, in order; `due` says when the next may.
    fn release(&mut self, now: u64) -> Vec<(u32, u32)> {
        self.due = None;
        let mut go = self.queue.len();
        if let Some(limit) = self.per_second {
            // Writes a window old have left it; each write that goes now takes a place in it.
            self.sent.retain(|&at| now < at.saturating_add(WINDOW_MS));
            let room = usize::try_from(limit).unwrap_or(usize::MAX).saturating_sub(self.sent.len());
            go = go.min(room);
            self.sent.extend(std::iter::repeat(now).take(go));
            if go < self.queue.len() {
                let oldest = self.sent.first().copied().unwrap_or(now);
                self.due = Some(oldest.saturating_add(WINDOW_MS));
            }
        }
        let later = self.queue.get(go..).map(<[_]>::to_vec).unwrap_or_default();
        self.queue.truncate(go);
        std::mem::replace(&mut self.queue, later)
    }
}

impl Session {
    /// Message `id` for socket `link` (0: the current connection): written now if the window
    /// allows, else after those queued before it.
    pub(super) fn send(&mut self, id: u32, link: u32, now: u64) {
        let link = match link {
            0 => self.current.map_or(0, |c| c.id),
            link => link,
        };
        let live = [self.current, self.rotation].into_iter().flatten().any(|l| l.id == link);
        if !live {
            return self.effects.push(SessionEffect::Unsent(id, super::signals::UNSENT_CLOSED));
        }
        self.pace.queue.push((id, link));
        if self.pace.due.is_none() {
            self.pace_due(now);
        }
    }

    /// Tells the shell that messages `ids` will never be written, and why.
    pub(super) fn unsent(&mut self, ids: Vec<u32>, why: &'static str) {
        self.effects.extend(ids.into_iter().map(|id| SessionEffect::Unsent(id, why)));
    }

    pub(super) fn pace_due(&mut self, now: u64) {
        if self.pace.due.is_some_and(|due| now < due) {
            return;
        }
        for (id, link) in self.pace.release(now) {
            self.effects.push(SessionEffect::Write(id, link));
        }
    }

    /// The heartbeat's period ran: a ping if nothing was heard in it.
    pub(super) fn beat(&mut self, now: u64) {
        let (Some(at), Some(every)) = (self.beat_at, self.settings.heartbeat_ms) else { return };
        if now < at {
            return;
        }
        let silent = self.heard_at.map_or(true, |heard| now.saturating_sub(heard) >= every);
        if let (true, Some(link)) = (silent, self.current.filter(|l| l.ready && l.due.is_none())) {
            self.effects.push(SessionEffect::Ping(link.id));
        }
        self.beat_at = Some(now.saturating_add(every));
    }
}
