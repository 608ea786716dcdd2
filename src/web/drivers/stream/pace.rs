//! `sendPerSecond`: a bucket of that many sends that refills over a second; what does not fit
//! waits its turn, in order (exchanges count subscriptions and pings alike).
//!
//! Counted in thousandths of a send, so the refill of each millisecond is a whole number.

use std::collections::VecDeque;

use crate::web::platform::socket::Message;

/// What one send costs, in thousandths.
const SEND: u64 = 1_000;

pub(super) struct Pace {
    per_second: u64,
    /// Thousandths of a send in the bucket (at most `per_second` sends).
    tokens: u64,
    at: u64,
    /// Each send with the socket it goes to.
    queue: VecDeque<(u32, Message)>,
}

impl Pace {
    pub(super) fn new(per_second: u64, now: u64) -> Pace {
        let per_second = per_second.max(1);
        Pace { per_second, tokens: per_second.saturating_mul(SEND), at: now, queue: VecDeque::new() }
    }

    pub(super) fn push(&mut self, link: u32, message: Message) {
        self.queue.push_back((link, message));
    }

    /// The sends whose turn has come at `now`, in order.
    pub(super) fn ready(&mut self, now: u64) -> Vec<(u32, Message)> {
        let refill = now.saturating_sub(self.at).saturating_mul(self.per_second);
        self.tokens = self.tokens.saturating_add(refill).min(self.per_second.saturating_mul(SEND));
        self.at = now.max(self.at);
        let mut ready = Vec::new();
        while self.tokens >= SEND {
            let Some(send) = self.queue.pop_front() else { break };
            self.tokens -= SEND;
            ready.push(send);
        }
        ready
    }

    /// When the next queued send's turn comes (monotonic ms), if one is queued.
    pub(super) fn next_at(&self) -> Option<u64> {
        if self.queue.is_empty() {
            return None;
        }
        let missing = SEND.saturating_sub(self.tokens);
        Some(self.at.saturating_add(missing.div_ceil(self.per_second)))
    }

    /// Drops what is queued (the stream is over).
    pub(super) fn clear(&mut self) {
        self.queue.clear();
    }
}
