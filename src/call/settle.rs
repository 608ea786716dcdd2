//! How a call stops — a step it could not take, the operation's own stop — and what its settling
//! says: the response of the winning request, or the error an operator reads.

use super::{Call, Ctx, Done, Effect, Purpose, Stage};
use crate::failure::{refusal_detail, Cut, Failure, Note, UNKEYED_UNKNOWN};
use crate::json::{to_json, Object, ToJson};
use crate::reason::Reason;
use crate::record::{AttemptRecord, Pending};
use crate::text::join;

impl Call {
    /// Stops the operation at a step it could not take: `reason` says why (aborted, deadline, the
    /// store), `pending` what was pending, `detail` what the store said.
    pub(super) fn interrupt(
        &mut self,
        reason: Reason,
        pending: Option<Pending>,
        detail: Option<String>,
        ctx: &mut Ctx,
    ) {
        self.cut(reason, pending, detail, ctx);
        self.stopped(ctx);
    }

    /// Cancels the operation's pending step and notes why, for the records and the message.
    pub(super) fn cut(&mut self, reason: Reason, pending: Option<Pending>, detail: Option<String>, ctx: &mut Ctx) {
        self.op.cancel(ctx.now, reason, pending, ctx.budget);
        match detail {
            Some(detail) => {
                let words = self.settings.secrets.redact(&detail, false);
                self.op.note_store_failure(words.clone());
                self.cause = Some(words.clone());
                self.note = Note::Store(words);
            }
            None if reason == Reason::Deadline => {
                self.note = Note::Pending(pending.unwrap_or(Pending::Response), Cut::Deadline);
            }
            None => {}
        }
    }

    /// The operation stopped: the key finished in the store (or, reconciling, brought up to
    /// date), then the call settles.
    pub(super) fn stopped(&mut self, ctx: &mut Ctx) {
        self.flights.clear();
        self.hedge_at = None;
        self.land_flight(ctx);
        match self.purpose() {
            Purpose::Reconcile => self.keep(),
            _ if self.keyed() => self.finish(ctx),
            _ => self.done(),
        }
    }

    /// Settles: the records not reported yet, then `Done`.
    pub(super) fn done(&mut self) {
        if self.look_stale() {
            return;
        }
        self.stage = Stage::Done;
        self.report();
        let done = match (self.purpose(), &self.refused, self.op.stopped()) {
            (_, Some(_), _) => Done::Failed,
            (Purpose::Fetch, None, Some(stop)) if stop.reason == Reason::Success => {
                let winner = self.op.records().iter().rev().find(|r| r.is_sent() && r.reason == Some(Reason::Success));
                if let Some(key) = self.keeps() {
                    self.effects.push(Effect::Keep { key });
                }
                Done::Success { attempt: winner.map_or(0, |r| r.attempt) }
            }
            (Purpose::Fetch, ..) => Done::Failed,
            _ if self.store_failed => Done::Failed,
            _ => {
                if let Some(words) = self.store_error.clone() {
                    self.op.note_store_failure(words);
                }
                Done::Reconciled
            }
        };
        self.effects.push(Effect::Done(done));
    }

    /// The JSON a settled call's shell hands on: `{ reason, message, records, key? }` for a
    /// `RetryError`, `{ message }` for a key still running, the reconciliation's result.
    pub fn outcome_json(&self) -> String {
        if let Some(message) = &self.running {
            let mut out = String::new();
            Object::new(&mut out).field("message", message).end();
            return out;
        }
        if !matches!(self.purpose(), Purpose::Fetch) && !self.store_failed {
            return to_json(&self.reconciled());
        }
        let key = self.op.key();
        let target;
        let (method, url) = match self.purpose() {
            Purpose::Fetch => (self.op.method().unwrap_or("GET"), self.op.url().unwrap_or_default()),
            _ => {
                target = join(&["key \"", key.unwrap_or_default(), "\""]);
                ("reconcile", target.as_str())
            }
        };
        let (reason, records, detail) = match &self.refused {
            Some((refusal, records)) => {
                (Reason::UnknownOutcome, records.as_slice(), Some(refusal_detail(*refusal, key.unwrap_or_default())))
            }
            None => {
                let reason = self.op.stopped().map_or(Reason::Aborted, |s| s.reason);
                // Without a key nothing can reconcile it: say what the caller can do instead.
                let detail = (reason == Reason::UnknownOutcome && key.is_none()).then(|| UNKEYED_UNKNOWN.to_owned());
                (reason, self.op.records(), detail)
            }
        };
        let message = Failure { method, url, reason, records, detail: detail.as_deref(), note: &self.note }.message();
        to_json(&Stopped { reason, message, records, key, cause: self.cause.as_deref() })
    }
}

/// What a `RetryError` (or a stream's stop) carries: `{ reason, message, records, key }`.
pub struct Stopped<'a> {
    /// Why it stopped.
    pub reason: Reason,
    /// What an operator reads.
    pub message: String,
    /// Every record.
    pub records: &'a [AttemptRecord],
    /// The operation's key, if it has one.
    pub key: Option<&'a str>,
    /// What went wrong last (redacted), for the error's `cause`.
    pub cause: Option<&'a str>,
}

impl ToJson for Stopped<'_> {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        object.field("reason", &self.reason).field("message", &self.message).field("records", &self.records);
        if let Some(key) = self.key {
            object.field("key", &key);
        }
        if let Some(cause) = self.cause {
            object.field("cause", &cause);
        }
        object.end();
    }
}
