//! Sending on a session: at most `sendPerSecond` writes in any second (a sliding window, so that a
//! provider counting per second — Binance: 5 incoming messages a second, pings and subscriptions
//! alike — never sees more), the rest queued in order; and the heartbeat, a ping whenever nothing
//! was heard for its period.

use std::collections::VecDeque;

use super::{Session, SessionEffect};

/// A second, plus one millisecond: the shell's clock is rounded up.
const WINDOW_MS: u64 = 1001;

/// The sliding window of writes, and what waits for it.
#[derive(Clone, Debug, Default)]
pub(super) struct Pace {
    per_second: Option<u64>,
    /// When the last `per_second` writes went (monotonic ms), oldest first.
    sent: VecDeque<u64>,
    /// Messages waiting their turn: (id, socket).
    queue: VecDeque<(u32, u32)>,
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

    /// Drops what is queued (the stream stopped).
    pub(super) fn clear(&mut self) {
        self.queue.clear();
        self.due = None;
    }

    /// The messages that may go now, in order; `due` says when the next may.
    fn release(&mut self, now: u64) -> Vec<(u32, u32)> {
        let Some(limit) = self.per_second else { return self.queue.drain(..).collect() };
        let mut out = Vec::new();
        self.due = None;
        while let Some(&head) = self.queue.front() {
            if self.sent.len() as u64 >= limit {
                let oldest = self.sent.front().copied().unwrap_or(now);
                if now < oldest.saturating_add(WINDOW_MS) {
                    self.due = Some(oldest.saturating_add(WINDOW_MS));
                    break;
                }
                self.sent.pop_front();
                continue;
            }
            self.sent.push_back(now);
            self.queue.pop_front();
            out.push(head);
        }
        out
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
        self.pace.queue.push_back((id, link));
        if self.pace.due.is_none() {
            self.pace_due(now);
        }
    }

    pub(super) fn pace_due(&mut self, now: u64) {
        if self.pace.due.is_some_and(|due| now < due) {
            return;
        }
        for (id, link) in self.pace.release(now) {
            self.effects.push_back(SessionEffect::Write(id, link));
        }
    }

    /// The heartbeat's period ran: a ping if nothing was heard in it.
    pub(super) fn beat(&mut self, now: u64) {
        let (Some(at), Some(every)) = (self.beat_at, self.settings.heartbeat_ms) else { return };
        if now < at {
            return;
        }
        let silent = self.heard_at.is_none_or(|heard| now.saturating_sub(heard) >= every);
        if let (true, Some(link)) = (silent, self.current.filter(|l| l.ready && l.due.is_none())) {
            self.effects.push_back(SessionEffect::Ping(link.id));
        }
        self.beat_at = Some(now.saturating_add(every));
    }
}
