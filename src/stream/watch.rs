//! Watching an open connection: its uptime proven, silence marked stale and then replaced, and
//! rotation (make-before-break) when it grows old.

use super::{Link, Rotation, Stream};
use crate::budget::Budget;
use crate::draw::Draws;
use crate::machine::{Action, Operation, Outcome};
use crate::reason::Reason;

/// What the shell does about the open connection now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// It is delivering: nothing to do.
    Fresh,
    /// No message for `staleAfterMs`: show it as stale.
    Stale,
    /// No message for `reconnectAfterStaleMs`: close it and report the close (a timeout).
    Replace,
    /// Old enough to rotate: call [`Stream::rotate`] and open the next connection beside it.
    Rotate,
    /// No connection is open.
    Closed,
}

/// A check's verdict, and when to check again (monotonic ms; `None`: on the next event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watching {
    /// What to do now.
    pub check: Check,
    /// The next instant something can change without an event.
    pub next_at: Option<u64>,
}

impl Stream {
    /// Looks at the open connection at `now`; `heard_at` is when its last message came.
    pub fn check(
        &mut self,
        now: u64,
        wall_now: u64,
        heard_at: Option<u64>,
        draws: &mut Draws,
        budget: &mut Budget,
    ) -> Watching {
        let Link::Open { opened_at, proven } = self.link else {
            return Watching { check: Check::Closed, next_at: None };
        };
        let watch = &self.spec.watch;
        let proven_at = opened_at.saturating_add(watch.min_uptime_ms);
        if !proven && now >= proven_at {
            self.prove(now, wall_now, draws, budget);
        }
        let proven = proven || now >= proven_at;
        let watch = &self.spec.watch;
        let heard = heard_at.unwrap_or(opened_at).max(opened_at);
        let after = |ms: Option<u64>, from: u64| ms.map(|ms| from.saturating_add(ms));
        let (stale_at, replace_at) = (after(watch.stale_after_ms, heard), after(watch.reconnect_after_stale_ms, heard));
        let rotate_at = match self.rotation {
            None => after(watch.rotate_after_ms, opened_at).map(|at| at.max(self.rotate_not_before)),
            Some(_) => None,
        };
        let due = |at: Option<u64>| at.is_some_and(|at| now >= at);
        let check = match () {
            _ if due(replace_at) => Check::Replace,
            _ if proven && due(rotate_at) => Check::Rotate,
            _ if due(stale_at) => Check::Stale,
            _ => Check::Fresh,
        };
        let upcoming = [(!proven).then_some(proven_at), stale_at, replace_at, rotate_at];
        let next_at = upcoming.into_iter().flatten().filter(|&at| at > now).min();
        Watching { check, next_at }
    }

    /// Opens the rotation's connection attempt if the gate and the budget let it go now: `Send`,
    /// or `Stop` when it must wait (it is tried again later, and the connection stays).
    pub fn rotate(&mut self, now: u64, wall_now: u64, draws: &mut Draws, budget: &mut Budget) -> Action {
        if self.rotation.is_some() || self.stopped.is_some() {
            return Action::Stop(crate::reason::Stop { reason: Reason::Aborted, at_ms: 0 });
        }
        let mut op = self.outage_op(now, wall_now);
        match op.start(now, draws, budget) {
            action @ Action::Send { .. } => {
                self.rotation = Some(Rotation { op });
                action
            }
            Action::Sleep { until } => {
                // Not now: the tokens or a hold say when; nothing is recorded for a rotation put off.
                op.cancel(now, Reason::Aborted, None, budget);
                self.rotate_not_before = until;
                Action::Stop(crate::reason::Stop { reason: Reason::Budget, at_ms: 0 })
            }
            Action::Stop(stop) => {
                self.absorb(&op);
                self.rotate_not_before = now.saturating_add(self.spec.policy.base_delay_ms());
                Action::Stop(stop)
            }
        }
    }

    /// The rotation's connection delivered: it becomes the stream's, already proven; the shell
    /// closes the old one without reporting that close.
    pub fn on_rotation_open(&mut self, now: u64, wall_now: u64, draws: &mut Draws, budget: &mut Budget) {
        let Some(Rotation { mut op }) = self.rotation.take() else { return };
        op.on_outcome(now, wall_now, &Outcome::response(101), draws, budget);
        self.absorb(&op);
        self.link = Link::Open { opened_at: now, proven: true };
    }

    /// The rotation's attempt failed: the old connection stays; rotation is tried again later.
    pub fn on_rotation_close(
        &mut self,
        now: u64,
        wall_now: u64,
        outcome: &Outcome,
        draws: &mut Draws,
        budget: &mut Budget,
    ) {
        let Some(Rotation { mut op }) = self.rotation.take() else { return };
        let retry_at = match op.on_outcome(now, wall_now, outcome, draws, budget) {
            Action::Stop(_) => now.saturating_add(self.spec.policy.base_delay_ms()),
            Action::Sleep { until } => until,
            Action::Send { .. } => now,
        };
        op.cancel(now, Reason::Aborted, None, budget);
        self.absorb(&op);
        self.rotate_not_before = retry_at.max(now.saturating_add(1));
    }

    /// Reports every record of an operation that is done with (a rotation's).
    pub(crate) fn absorb(&mut self, op: &Operation) {
        self.collect();
        self.unreported.extend_from_slice(op.records());
    }
}
