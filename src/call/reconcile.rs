//! `client.reconcile(key, query)` and `client.resolve(key, state)` as calls: the store read
//! before, the status queries (an operation of reads at `reconcile` priority, fed evidence instead
//! of statuses), and the store brought up to date after — resolved keys deleted, what was learnt
//! kept. The deadline bounds every wait; only the first read is cut by the caller's abort.

use super::keyed::read_saved;
use super::{Call, Ctx, Effect, Purpose, Settings, Stage, Stored};
use crate::failure::{still_pending, Cut};
use crate::json::{to_json, Object, ToJson};
use crate::machine::{Operation, Outcome};
use crate::policy::Policy;
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::{AttemptRecord, Pending};
use crate::text::join;

impl Call {
    /// A call that settles `key`'s unknown outcome from `now`: `Purpose::Reconcile` queries under
    /// `policy` (the reconciliation policy); `Purpose::Resolve` by hand bounds its store calls like
    /// one attempt of `policy` (the client's).
    pub fn settling(key: &str, purpose: Purpose, policy: Policy, settings: Settings, now: u64, wall: u64) -> Call {
        let (policy, what) = match purpose {
            Purpose::Resolve(_) => {
                let timeout = policy.attempt_timeout_ms();
                (policy.with_call_deadline("deadlineMs", timeout).unwrap_or_default(), "resolve")
            }
            _ => (policy, "reconcile"),
        };
        let start = crate::reconcile::status_start(key, policy, what);
        Call::new(Operation::begin(start, now, wall), purpose, settings, now, wall)
    }

    /// Reads what the store holds under the key, before anything else.
    pub(super) fn look(&mut self) {
        if !cfg!(feature = "reconcile") {
            return;
        }
        let seq = self.next_seq();
        self.stage = Stage::Looking { seq };
        self.effects.push(Effect::Get { seq, key: self.key() });
    }

    /// What the store held: a key still running is refused; otherwise the queries begin (in the
    /// scope the order was sent to), or `resolve` deletes the key.
    pub(super) fn looked(&mut self, answer: Stored, ctx: &mut Ctx) {
        let key = self.key();
        let saved = match read_saved(answer, &key) {
            Ok(saved) => saved,
            Err(words) => return self.store_failure(Reason::Store, Pending::StoreGet, words, ctx),
        };
        if saved.as_ref().is_some_and(|s| s.is_running()) {
            self.running = Some(match self.purpose() {
                Purpose::Resolve(_) => join(&["resolve: key \"", &key, "\" is still running, not unresolved"]),
                _ => join(&["reconcile: key \"", &key, "\" is still running; reconcile it once it has ended"]),
            });
            self.stage = Stage::Done;
            return self.effects.push(Effect::Done(super::Done::Running));
        }
        if let Purpose::Resolve(_) = self.purpose() {
            let seq = self.next_seq();
            self.stage = Stage::Keeping { seq, update: true };
            return self.effects.push(Effect::Delete { seq, key });
        }
        if let Some(saved) = saved {
            // Its queries spend the budget of the scope the order was sent to.
            let mut start = self.op.start.clone();
            start.scope = saved.state.scope;
            let (now, wall) = self.called_at;
            self.op = Operation::begin(start, now, wall);
        }
        let action = self.op.start(ctx.now, ctx.draws, ctx.budget);
        self.act(action, false, ctx);
    }

    pub(super) fn query_answer(&mut self, attempt: u32, answer: Result<Evidence, String>, ctx: &mut Ctx) {
        match answer {
            Ok(evidence) => {
                if matches!(self.stage, Stage::Flying) && self.flights.iter().any(|f| f.attempt == attempt) {
                    self.flights.retain(|f| f.attempt != attempt);
                    let action =
                        self.op.on_outcome(ctx.now, ctx.wall, &Outcome::evidence(evidence), ctx.draws, ctx.budget);
                    self.act(action, false, ctx);
                }
            }
            Err(words) => self.failed(attempt, crate::classify::Observed::NetworkError, Some(words), ctx),
        }
    }

    /// The queries stopped: what the store holds now is read, to be brought up to date.
    pub(super) fn keep(&mut self) {
        let seq = self.next_seq();
        self.stage = Stage::Keeping { seq, update: false };
        self.effects.push(Effect::Get { seq, key: self.key() });
    }

    /// The store's answer after the queries (`update`: to the write that brings it up to date).
    pub(super) fn kept(&mut self, answer: Stored, update: bool, ctx: &mut Ctx) {
        let key = self.key();
        if let Purpose::Resolve(_) = self.purpose() {
            return match answer {
                Stored::Failed(words) => self.store_failure(Reason::Store, Pending::StoreDelete, words, ctx),
                _ => self.done(),
            };
        }
        if update {
            return match answer {
                Stored::Failed(words) => self.store_not_updated(words),
                _ => self.done(),
            };
        }
        let saved = match read_saved(answer, &key) {
            Ok(saved) => saved,
            Err(words) => return self.store_not_updated(words),
        };
        let (resolved, escalated, evidence) = self.ending();
        let seq = self.next_seq();
        let effect = match saved {
            // Still being submitted by its owner: that operation's own outcome decides the key.
            None => return self.done(),
            Some(saved) if saved.is_running() => return self.done(),
            Some(_) if resolved => Effect::Delete { seq, key },
            Some(mut saved) => {
                saved.escalated |= escalated;
                saved.last_evidence = evidence.or(saved.last_evidence);
                Effect::Set { seq, key, value: to_json(&saved) }
            }
        };
        self.stage = Stage::Keeping { seq, update: true };
        self.effects.push(effect);
    }

    /// A store call of reconciliation cut by the deadline (or, before the queries, the caller).
    pub(super) fn reconcile_cut(&mut self, aborted: bool, ctx: &mut Ctx) {
        let cut = if aborted { Cut::Aborted } else { Cut::Deadline };
        let reason = if aborted { Reason::Aborted } else { Reason::Deadline };
        match self.stage {
            Stage::Looking { .. } => {
                self.store_failure(reason, Pending::StoreGet, still_pending(Pending::StoreGet, cut), ctx)
            }
            Stage::Keeping { update: true, .. } if matches!(self.purpose(), Purpose::Resolve(_)) => {
                self.store_failure(reason, Pending::StoreDelete, still_pending(Pending::StoreDelete, cut), ctx)
            }
            Stage::Keeping { update, .. } => {
                let pending = match (update, self.ending().0) {
                    (false, _) => Pending::StoreGet,
                    (true, true) => Pending::StoreDelete,
                    (true, false) => Pending::StoreSet,
                };
                self.store_not_updated(still_pending(pending, cut));
            }
            _ => {}
        }
    }

    /// Reconciliation failed at the store: reason `store` (or the cut's), a `RetryError`.
    fn store_failure(&mut self, reason: Reason, pending: Pending, words: String, ctx: &mut Ctx) {
        self.cut(reason, Some(pending), Some(words), ctx);
        self.store_failed = true;
        self.done();
    }

    /// What was learnt could not be written back: the result says so, and stands.
    fn store_not_updated(&mut self, words: String) {
        self.store_error = Some(self.settings.secrets.redact(&words, false));
        self.done();
    }

    /// Resolved, escalated, and the last evidence found.
    fn ending(&self) -> (bool, bool, Option<Evidence>) {
        if let Purpose::Resolve(given) = self.purpose() {
            return (true, false, Some(given));
        }
        let reason = self.op.stopped().map_or(Reason::Aborted, |s| s.reason);
        let resolved = reason == Reason::Success;
        let evidence = self.op.records().iter().rev().find_map(|r| r.evidence);
        (resolved, !resolved && reason != Reason::Aborted, evidence)
    }

    /// Whether the reconciliation ended escalated.
    pub fn escalated(&self) -> bool {
        matches!(self.purpose(), Purpose::Reconcile) && self.ending().1
    }

    /// `{ key, resolved, state, escalated, records, storeError? }`.
    pub(super) fn reconciled(&self) -> Reconciled<'_> {
        let (resolved, escalated, state) = self.ending();
        let records: &[AttemptRecord] = match self.purpose() {
            Purpose::Resolve(_) => &[],
            _ => self.op.records(),
        };
        let key = self.op.key().unwrap_or_default();
        Reconciled { key, resolved, state, escalated, records, store_error: self.store_error.as_deref() }
    }
}

/// What `client.reconcile` and `client.resolve` resolve with.
pub(super) struct Reconciled<'a> {
    key: &'a str,
    resolved: bool,
    state: Option<Evidence>,
    escalated: bool,
    records: &'a [AttemptRecord],
    store_error: Option<&'a str>,
}

impl ToJson for Reconciled<'_> {
    fn write_json(&self, out: &mut String) {
        let mut object = Object::new(out);
        object
            .field("key", &self.key)
            .field("resolved", &self.resolved)
            .field("state", &self.state)
            .field("escalated", &self.escalated)
            .field("records", &self.records);
        if let Some(error) = self.store_error {
            object.field("storeError", &error);
        }
        object.end();
    }
}
