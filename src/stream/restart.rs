//! A stream begun again: the caller's `reconnect()`, and the page going offline and coming back.
//! The outage under way is given up first, so that its records say what became of its step.

use super::{Link, Stream};
use crate::budget::Budget;
use crate::draw::Draws;
use crate::machine::Action;
use crate::reason::Reason;

impl Stream {
    /// A fresh outage, its first attempt at once (after a stop by the policy too): the one under
    /// way is given up (`sent`: its attempt in flight left, and is aborted; else it never did).
    pub fn restart(&mut self, now: u64, wall_now: u64, sent: bool, draws: &mut Draws, budget: &mut Budget) -> Action {
        self.abandon(now, sent, None, budget);
        self.unstop();
        self.connect(now, wall_now, draws, budget)
    }

    /// A stream its policy stopped may connect again (the caller's `reconnect()`).
    pub fn unstop(&mut self) {
        self.stopped = None;
    }

    /// Gives up the outage under way and any rotation, without stopping the stream: an attempt in
    /// flight is aborted (`sent`) or taken back, a planned sleep refused; `why` goes in the refusal's
    /// record. The stream waits, down, for [`Stream::connect`] or [`Stream::restart`].
    pub fn abandon(&mut self, now: u64, sent: bool, why: Option<&str>, budget: &mut Budget) {
        if let Some(rotation) = self.rotation.take() {
            let mut op = rotation.op;
            op.abort(now, budget);
            self.absorb(&op);
        }
        if let Some(op) = self.outage.as_mut().filter(|op| op.stopped().is_none()) {
            match (sent, self.link) {
                (true, Link::Connecting | Link::Open { proven: false, .. }) => drop(op.abort(now, budget)),
                _ => {
                    op.cancel(now, Reason::Aborted, None, budget);
                    if let Some(why) = why {
                        op.note_refusal(why);
                    }
                }
            }
        }
        self.collect();
        (self.outage, self.collected, self.link) = (None, 0, Link::Down);
    }
}
