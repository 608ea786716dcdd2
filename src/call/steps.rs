//! A call's steps between its events: it begins, reads its body, sends its first attempt, does
//! what the operation decides (the caller's predicate first, for a retry), sleeps, wakes, is
//! aborted, hears news.

use super::{Call, Ctx, Done, Effect, Head, Next, Purpose, Stage};
use crate::classify::Observed;
use crate::machine::{Action, Outcome};
use crate::record::Pending;

impl Call {
    /// The call begins: its key claimed, else its body read, else its first attempt.
    pub(super) fn go(&mut self, ctx: &mut Ctx) {
        if !matches!(self.stage, Stage::Begun) {
            return;
        }
        match self.purpose() {
            Purpose::Reconcile | Purpose::Resolve(_) => self.look(),
            Purpose::Fetch if self.op.key().is_some() => self.claim(false),
            Purpose::Fetch if self.awaits_carried(ctx) => {}
            Purpose::Fetch => self.claimed(ctx),
        }
    }

    /// The key is the call's (or it has none): the request body is read, then the first attempt.
    pub(super) fn claimed(&mut self, ctx: &mut Ctx) {
        if self.settings.has_body {
            self.stage = Stage::Buffering;
            self.effects.push(Effect::ReadBody);
        } else {
            self.first(ctx);
        }
    }

    pub(super) fn body_read(&mut self, read: bool, ctx: &mut Ctx) {
        if !matches!(self.stage, Stage::Buffering) {
            return;
        }
        if read {
            return self.first(ctx);
        }
        self.stage = Stage::Done;
        self.effects.push(Effect::Done(Done::BodyThrew));
    }

    /// The first attempt is proposed (or a restored operation resumed).
    pub(super) fn first(&mut self, ctx: &mut Ctx) {
        let action = match self.resumed && super::keyed::KEYED {
            true => self.op.resume(ctx.now, ctx.wall, ctx.draws, ctx.budget),
            false => self.op.start(ctx.now, ctx.draws, ctx.budget),
        };
        self.act(action, false, ctx);
    }

    /// Does what the operation decided; `asks`: a retry an outcome proposed, which the caller's
    /// predicate sees first.
    pub(super) fn act(&mut self, action: Action, asks: bool, ctx: &mut Ctx) {
        let next = match action {
            Action::Stop(_) => return self.stopped(ctx),
            Action::Send { attempt, timeout_ms } => Next::Send { attempt, timeout_ms },
            Action::Sleep { .. } => Next::Sleep,
        };
        if asks && self.settings.asks {
            return self.ask(next);
        }
        self.proceed(next, ctx);
    }

    /// Puts the retry to the caller's predicate, with the attempt it follows.
    pub(super) fn ask(&mut self, next: Next) {
        let Some(record) = self.op.records().iter().rev().find(|r| r.is_sent()).cloned() else {
            return;
        };
        let error = match (&record.error, record.outcome) {
            (Some(words), _) => Some(words.clone()),
            (None, Some(Observed::Timeout)) => {
                let pending = record.pending.unwrap_or(Pending::Response);
                Some(crate::failure::still_pending(pending, crate::failure::Cut::Timeout))
            }
            _ => None,
        };
        let seq = self.next_seq();
        self.stage = Stage::Asking { seq, next };
        self.effects.push(Effect::Ask { seq, record: Box::new(record), error });
    }

    pub(super) fn answered(&mut self, seq: u32, answer: Result<bool, String>, ctx: &mut Ctx) {
        let Stage::Asking { seq: asked, next } = self.stage else { return };
        if asked != seq {
            return;
        }
        match answer {
            Ok(true) => self.proceed(next, ctx),
            Ok(false) => self.veto(None, ctx),
            Err(threw) => {
                let words =
                    self.settings.secrets.redact(&crate::text::join(&["policy.shouldRetry threw: ", &threw]), false);
                self.veto(Some(words), ctx)
            }
        }
    }

    pub(super) fn veto(&mut self, threw: Option<String>, ctx: &mut Ctx) {
        self.op.veto(ctx.now, threw, ctx.budget);
        self.stopped(ctx);
    }

    /// A retry stands: saved first (a keyed call), then sent or slept for.
    pub(super) fn proceed(&mut self, next: Next, ctx: &mut Ctx) {
        if self.owns_key {
            return self.save(next, ctx);
        }
        self.perform(next, ctx);
    }

    /// Sends or sleeps as planned.
    pub(super) fn perform(&mut self, next: Next, ctx: &mut Ctx) {
        self.announce();
        match next {
            Next::Send { attempt, timeout_ms } => self.send(attempt, timeout_ms, ctx),
            Next::Sleep => self.stage = Stage::Sleeping { wake_at: ctx.now.saturating_add(self.op.timer_ms(ctx.now)) },
        }
    }

    /// A retry the gate admitted is told to observers once, before its sleep or its send.
    fn announce(&mut self) {
        let Some(planned) = self.op.planned().filter(|r| r.attempt > self.announced) else { return };
        self.announced = planned.attempt;
        if !self.settings.observed {
            return;
        }
        let after = self.op.records().iter().rev().find(|r| r.is_sent()).and_then(|r| r.reason).map(|r| r.as_str());
        self.effects.push(Effect::Retrying { record: Box::new(planned.clone()), after });
    }

    pub(super) fn timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let deadline = self.op.deadline_at();
        match self.stage {
            Stage::Flying => self.flights_due(ctx),
            Stage::Sleeping { wake_at } if now >= wake_at => {
                let action = self.op.on_wake(now, ctx.budget);
                self.act(action, false, ctx);
            }
            Stage::LeaseWait { until } if now >= until.min(deadline) && until > deadline => {
                self.interrupt(crate::reason::Reason::Deadline, Some(Pending::Lease), None, ctx)
            }
            Stage::LeaseWait { until } if now >= until => self.claim(true),
            Stage::Finishing { until, deadline, .. } if now >= until => self.finish_cut(deadline),
            Stage::Awaiting { until } if now >= until && now >= deadline => {
                self.interrupt(crate::reason::Reason::Deadline, Some(Pending::Response), None, ctx)
            }
            // The other realm's attempt must have ended: look again (it retried, or it is gone).
            Stage::Awaiting { until } if now >= until => {
                self.stage = Stage::Begun;
                self.go(ctx);
            }
            _ if now < deadline => {}
            Stage::Claiming { .. } => {
                self.interrupt(crate::reason::Reason::Deadline, Some(Pending::StoreGet), None, ctx)
            }
            Stage::Buffering => self.interrupt(crate::reason::Reason::Deadline, Some(Pending::RequestBody), None, ctx),
            Stage::Saving { .. } => self.interrupt(crate::reason::Reason::Deadline, Some(Pending::StoreSet), None, ctx),
            Stage::Asking { .. } => {
                self.veto(Some("policy.shouldRetry did not answer before the deadline".to_owned()), ctx)
            }
            Stage::Looking { .. } | Stage::Keeping { .. } => self.reconcile_cut(false, ctx),
            _ => {}
        }
    }

    /// The caller aborted: what is pending is cut, an attempt in flight abandoned.
    pub(super) fn abort(&mut self, ctx: &mut Ctx) {
        use crate::reason::Reason::Aborted;
        match self.stage {
            Stage::Begun => self.interrupt(Aborted, None, None, ctx),
            Stage::Claiming { .. } => self.interrupt(Aborted, Some(Pending::StoreGet), None, ctx),
            Stage::LeaseWait { .. } => self.interrupt(Aborted, Some(Pending::Lease), None, ctx),
            Stage::Buffering => self.interrupt(Aborted, Some(Pending::RequestBody), None, ctx),
            Stage::Awaiting { .. } => self.interrupt(Aborted, Some(Pending::Response), None, ctx),
            Stage::Saving { .. } => self.interrupt(Aborted, Some(Pending::StoreSet), None, ctx),
            // Nothing is on the wire: the planned attempt is taken back (its quota too), not abandoned.
            Stage::Asking { .. } | Stage::Sleeping { .. } => {
                self.op.cancel(ctx.now, Aborted, None, ctx.budget);
                self.stopped(ctx);
            }
            Stage::Flying => self.flights_aborted(ctx),
            Stage::Looking { .. } => self.reconcile_cut(true, ctx),
            // What was learnt is kept: the store's update is not cut by the caller.
            Stage::Finishing { .. } | Stage::Keeping { .. } | Stage::Stale { .. } | Stage::Done => {}
        }
    }

    /// A sleeper hears of a hold or ban another realm published: it looks at it now.
    pub(super) fn news(&mut self, ctx: &mut Ctx) {
        if let Stage::Sleeping { .. } = self.stage {
            let action = self.op.on_wake(ctx.now, ctx.budget);
            self.act(action, false, ctx);
        }
    }

    /// The outcome of a status query or a request, as the core reads it.
    pub(super) fn outcome_of(&self, head: &Head) -> Outcome {
        let mut outcome = Outcome::failure(Observed::Response);
        match crate::classify::response_status(head.status) {
            Ok(status) => {
                outcome.status = Some(status);
                outcome.retry_after = head.retry_after.clone();
                outcome.retry_after_unreadable = head.hidden;
                outcome.date = head.date.clone();
                outcome.reset = head.reset.as_ref().and_then(|(at, value)| {
                    let (_, form) = crate::retry_after::RESET_HEADERS.get(*at)?;
                    Some((*form, value.clone()))
                });
            }
            Err(why) => {
                outcome.observed = Observed::NetworkError;
                outcome.error = Some(why);
            }
        }
        outcome
    }
}
