//! A failed read may serve its last good response, marked stale (`staleIfErrorMs`, in the spirit
//! of RFC 5861's `stale-if-error`): the shell keeps the response of each successful read and says
//! when it kept it; whether it may be served, and the record that says so, are decided here.

use super::{Call, Done, Effect, Purpose, Stage};

impl Call {
    /// The call is about to reject: a read with `staleIfErrorMs` first asks for its kept response.
    /// `true`: it asked, and settles on the answer.
    pub(super) fn look_stale(&mut self) -> bool {
        let Some(stop) = self.op.stopped() else { return false };
        if self.settings.stale_ms == 0 || !matches!(self.purpose(), Purpose::Fetch) || self.refused.is_some() {
            return false;
        }
        let Some(key) = self.identity().filter(|_| self.op.may_serve_stale(stop.reason)) else { return false };
        let seq = self.next_seq();
        self.stage = Stage::Stale { seq };
        self.effects.push(Effect::LookStale { seq, key });
        true
    }

    /// The shell answered: a response kept at `kept` (wall ms) no older than `staleIfErrorMs` is
    /// served; anything else, and the call rejects as it would have.
    pub(super) fn stale_kept(&mut self, seq: u32, kept: Option<u64>, now: u64, wall: u64) {
        let Stage::Stale { seq: asked } = self.stage else { return };
        if asked != seq {
            return;
        }
        self.stage = Stage::Done;
        let reason = self.op.stopped().map(|s| s.reason);
        let age = kept.map(|at| wall.saturating_sub(at)).filter(|age| *age <= self.settings.stale_ms);
        let done = match (age, reason) {
            (Some(age_ms), Some(reason)) => {
                self.op.note_stale(now, reason, age_ms);
                Done::Stale { age_ms }
            }
            _ => Done::Failed,
        };
        self.report();
        self.effects.push(Effect::Done(done));
    }

    /// A read that succeeded is kept for later failures, by its identity, if it may serve them.
    pub(super) fn keeps(&self) -> Option<u64> {
        let may = self.settings.stale_ms > 0 && self.op.may_serve_stale(crate::reason::Reason::Deadline);
        self.identity().filter(|_| may)
    }
}
