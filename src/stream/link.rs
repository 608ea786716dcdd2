//! What happens to the stream's connection: it opens, it closes, a planned sleep ends, the caller
//! closes the stream.

use super::{Link, Stream};
use crate::budget::Budget;
use crate::draw::Draws;
use crate::machine::{Action, Outcome};
use crate::reason::{Reason, Stop};

/// What the shell does after a connection closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// As the outage decided: connect now, sleep first, or stop.
    Act(Action),
    /// The rotation's connection in flight becomes the current attempt: nothing new is opened.
    Adopted,
}

impl Stream {
    /// The attempt in flight opened its connection (and the shell's `onOpen` finished on it).
    pub fn on_open(&mut self, now: u64, wall_now: u64, draws: &mut Draws, budget: &mut Budget) {
        if self.link != Link::Connecting {
            return;
        }
        self.link = Link::Open { opened_at: now, proven: false };
        if self.spec.watch.min_uptime_ms == 0 {
            self.prove(now, wall_now, draws, budget);
        }
    }

    /// The open connection stayed up `minUptimeMs`: the outage is over, with a success.
    pub(crate) fn prove(&mut self, now: u64, wall_now: u64, draws: &mut Draws, budget: &mut Budget) {
        let Link::Open { opened_at, proven: false } = self.link else { return };
        if let Some(op) = self.outage.as_mut() {
            op.on_outcome(now, wall_now, &Outcome::response(101), draws, budget);
        }
        self.collect();
        self.outage = None;
        self.collected = 0;
        self.link = Link::Open { opened_at, proven: true };
    }

    /// The current connection closed, or its attempt failed (`outcome`: a refused upgrade's
    /// status and `Retry-After`, a timeout, a network error); `code` is the close code, if any.
    pub fn on_close(
        &mut self,
        now: u64,
        wall_now: u64,
        outcome: &Outcome,
        code: Option<u16>,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Closed {
        if let Some(stop) = self.stopped {
            return Closed::Act(Action::Stop(stop));
        }
        let was = self.link;
        if let Some(rotation) = self.rotation.take() {
            // Make-before-break: the old connection went first; the new one is the reconnect.
            let action = rotation.op.pending_action();
            self.enter_outage(rotation.op, action);
            return Closed::Adopted;
        }
        let stops = code.is_some_and(|c| self.spec.watch.stop_codes.contains(&c));
        let action = match (was, self.outage.as_mut()) {
            (Link::Connecting | Link::Open { proven: false, .. }, Some(op)) => {
                let action = op.on_outcome(now, wall_now, outcome, draws, budget);
                self.after(action)
            }
            (Link::Open { proven: true, .. }, _) => {
                let mut op = self.outage_op(now, wall_now);
                let action = match stops {
                    true => Action::Sleep { until: now },
                    false => op.start_after_drop(now, draws, budget),
                };
                self.enter_outage(op, action)
            }
            // Nothing was in flight: the event is late, and changes nothing.
            _ => return Closed::Act(self.pending()),
        };
        let action = match (stops, action) {
            (true, Action::Stop(_)) | (false, _) => action,
            (true, _) => Action::Stop(self.halt(now, Reason::NonRetryable, budget)),
        };
        if let (Link::Open { proven: true, .. }, Some(words)) = (was, outcome.error.as_deref()) {
            self.note_drop(words);
        }
        Closed::Act(action)
    }

    /// Puts how the last connection ended on the first record of the outage it began.
    fn note_drop(&mut self, words: &str) {
        let Some(op) = self.outage.as_mut() else { return };
        op.note_drop(words);
        // A refusal made at once was collected already.
        if !op.records().is_empty() {
            if let Some(record) = self.unreported.last_mut() {
                record.dropped = Some(words.to_owned());
            }
        }
    }

    /// The timer of a planned sleep fired: the gate is checked again.
    pub fn on_wake(&mut self, now: u64, budget: &mut Budget) -> Action {
        let action = match self.outage.as_mut() {
            Some(op) if self.stopped.is_none() && self.link == Link::Down => op.on_wake(now, budget),
            _ => return self.pending(),
        };
        self.after(action)
    }

    /// The caller closed the stream: an attempt in flight is abandoned, a sleep cancelled.
    pub fn close(&mut self, now: u64, budget: &mut Budget) -> Stop {
        if let Some(rotation) = self.rotation.take() {
            let mut op = rotation.op;
            op.abort(now, budget);
            self.absorb(&op);
        }
        self.halt(now, Reason::Aborted, budget)
    }

    /// Stops the stream with `reason`: the outage's pending step is refused (or abandoned).
    pub(crate) fn halt(&mut self, now: u64, reason: Reason, budget: &mut Budget) -> Stop {
        if let Some(stop) = self.stopped {
            return stop;
        }
        let stop = match (self.outage.as_mut(), self.link) {
            (Some(op), Link::Connecting | Link::Open { proven: false, .. }) if reason == Reason::Aborted => {
                op.abort(now, budget)
            }
            (Some(op), _) => op.cancel(now, reason, None, budget),
            (None, _) => Stop { reason, at_ms: 0 },
        };
        self.link = Link::Down;
        self.stopped = Some(stop);
        self.collect();
        stop
    }

    /// What the stream is waiting on, for an event out of order.
    pub(crate) fn pending(&self) -> Action {
        match (self.stopped, &self.outage) {
            (Some(stop), _) => Action::Stop(stop),
            (None, Some(op)) => op.pending_action(),
            (None, None) => Action::Sleep { until: 0 },
        }
    }
}
