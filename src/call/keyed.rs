//! A keyed call's life in the caller's store: claimed before it starts (resumed if its owner is
//! gone, refused if it is unresolved or running), saved before every send and sleep, kept while
//! unresolved and deleted when it ends. Each store call is bounded by the deadline.

use super::{Call, Ctx, Effect, Next, Purpose, Stage, Stored};
use crate::durable::{self, Claim, Saved};
use crate::failure::{Cut, Note};
use crate::json::{to_json, FromLoose};
use crate::machine::Operation;
use crate::reason::Reason;
use crate::record::Pending;
use crate::text::join;

/// Whether this build has keyed calls: a lean one leaves their code out (and refuses a key).
pub(super) const KEYED: bool = cfg!(feature = "keyed");

impl Call {
    /// Asks the store what it holds under the key (`waited`: one lease was waited out already).
    pub(super) fn claim(&mut self, waited: bool) {
        if !KEYED {
            return;
        }
        let seq = self.next_seq();
        self.stage = Stage::Claiming { seq, waited };
        self.effects.push(Effect::Get { seq, key: self.key() });
    }

    pub(super) fn key(&self) -> String {
        self.op.key().unwrap_or_default().to_owned()
    }

    /// What the store answered, to whichever request is waiting for it.
    pub(super) fn stored(&mut self, seq: u32, answer: Stored, ctx: &mut Ctx) {
        if !KEYED {
            return;
        }
        match self.stage {
            Stage::Claiming { seq: asked, waited } if asked == seq => match read_saved(answer, &self.key()) {
                Ok(saved) => self.claim_answered(saved, waited, ctx),
                Err(words) => self.interrupt(Reason::Store, Some(Pending::StoreGet), Some(words), ctx),
            },
            Stage::Saving { seq: asked, next } if asked == seq => match answer {
                Stored::Failed(words) => self.interrupt(Reason::Store, Some(Pending::StoreSet), Some(words), ctx),
                _ => self.perform(next, ctx),
            },
            Stage::Finishing { seq: asked, .. } if asked == seq => {
                if let Stored::Failed(words) = answer {
                    self.not_kept(self.settings.secrets.redact(&words, false));
                }
                self.done();
            }
            Stage::Looking { seq: asked } if asked == seq => self.looked(answer, ctx),
            Stage::Keeping { seq: asked, update } if asked == seq => self.kept(answer, update, ctx),
            _ => {}
        }
    }

    /// Decides what the call may do with what the store holds under its key.
    fn claim_answered(&mut self, saved: Option<Saved>, waited: bool, ctx: &mut Ctx) {
        let key = self.key();
        let records = saved.as_ref().map(|s| s.state.records.clone()).unwrap_or_default();
        let latest_start = self.op.deadline_at().saturating_sub(self.op.policy().admission_ms());
        let latest_start_wall = ctx.wall.saturating_add(latest_start.saturating_sub(ctx.now));
        match durable::claim(saved, &self.settings.owner, ctx.wall, latest_start_wall) {
            Claim::Fresh => {
                self.owns_key = true;
                self.claimed(ctx);
            }
            Claim::WaitUntil(_) if waited => self.refuse_key(durable::Refusal::InUse, records),
            Claim::WaitUntil(until_wall) => {
                let until = ctx.now.saturating_add(until_wall.saturating_sub(ctx.wall));
                self.stage = Stage::LeaseWait { until };
            }
            Claim::Refuse(refusal) => self.refuse_key(refusal, records),
            Claim::Resume(state) => match Operation::restore(*state, ctx.now, ctx.wall, ctx.budget) {
                Ok(mut op) => {
                    op.limit_deadline(self.op.deadline_at());
                    // Its earlier records were reported by the process that made them.
                    self.reported = op.records().len();
                    self.op = op;
                    self.resumed = true;
                    self.owns_key = true;
                    self.claimed(ctx);
                }
                Err(e) => {
                    let why = join(&["the stored state of key \"", &key, "\" cannot be resumed: ", &e.message()]);
                    self.interrupt(Reason::Store, Some(Pending::StoreGet), Some(why), ctx)
                }
            },
        }
    }

    /// The key may not run: the call settles without touching the wire.
    fn refuse_key(&mut self, refusal: durable::Refusal, records: Vec<crate::record::AttemptRecord>) {
        self.refused = Some((refusal, records));
        self.done();
    }

    /// Saves the operation before it sends or sleeps, so that a restart resumes from here.
    pub(super) fn save(&mut self, next: Next, ctx: &mut Ctx) {
        if !KEYED {
            return self.perform(next, ctx);
        }
        let seq = self.next_seq();
        let value = to_json(&Saved::of(&self.op, &self.settings.owner, ctx.now, ctx.wall, ctx.budget));
        self.stage = Stage::Saving { seq, next };
        self.effects.push(Effect::Set { seq, key: self.key(), value });
    }

    /// The operation stopped: an unresolved order stays in the store (refusing the key), anything
    /// else is deleted. Not cut by the caller's abort; bounded like one attempt and by the deadline.
    pub(super) fn finish(&mut self, ctx: &mut Ctx) {
        if !KEYED {
            return self.done();
        }
        let seq = self.next_seq();
        let left = self.op.deadline_at().saturating_sub(ctx.now);
        let timeout = self.op.policy().attempt_timeout_ms();
        let (bound, deadline) = if left <= timeout { (left, true) } else { (timeout, false) };
        self.stage = Stage::Finishing { seq, until: ctx.now.saturating_add(bound), deadline };
        let key = self.key();
        let effect = match self.op.is_unresolved() {
            true => {
                let value = to_json(&Saved::of(&self.op, &self.settings.owner, ctx.now, ctx.wall, ctx.budget));
                Effect::Set { seq, key, value }
            }
            false => Effect::Delete { seq, key },
        };
        self.effects.push(effect);
    }

    /// The store did not finish the key in time.
    pub(super) fn finish_cut(&mut self, deadline: bool) {
        let pending = if self.op.is_unresolved() { Pending::StoreSet } else { Pending::StoreDelete };
        let cut = if deadline { Cut::Deadline } else { Cut::Timeout };
        self.not_kept(crate::failure::still_pending(pending, cut));
        self.done();
    }

    /// The outcome stands, but its state could not be kept: its last record and the message say so.
    fn not_kept(&mut self, words: String) {
        self.op.note_store_failure(words.clone());
        if self.op.stopped().is_some_and(|s| s.reason != Reason::Success) {
            self.note = Note::NotSaved(words);
        }
    }

    /// Whether the call holds its key (reconciliation reads it too).
    pub(super) fn keyed(&self) -> bool {
        matches!(self.purpose(), Purpose::Fetch) && self.owns_key
    }
}

/// What a store answered under `key`, read: the saved operation (`None`: nothing), or `Err` with
/// what the store said, or why what it holds is unreadable.
pub(super) fn read_saved(answer: Stored, key: &str) -> Result<Option<Saved>, String> {
    let unreadable = |why: &str| join(&["the stored state of key \"", key, "\" is unreadable: ", why]);
    match answer {
        Stored::Failed(words) => Err(words),
        Stored::Unreadable(why) => Err(unreadable(&join(&["state.", &why]))),
        Stored::Value(value) if value.is_absent() => Ok(None),
        Stored::Value(value) => {
            Saved::read_loose(&value).map(Some).map_err(|e| unreadable(&crate::input::At::at(e, "state").message()))
        }
    }
}
