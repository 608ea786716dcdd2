//! The call loop: claim the key, buffer the body, take the budget step that starts the operation,
//! then attempt and sleep as the core decides until it stops, and settle.
//!
//! Every wait after preparation (store, lease, request body, fetch, response body) races the
//! deadline; every stop settles the call.

use wasm_bindgen::JsValue;

use super::call::Call;
use super::driver::Driver;
use super::failed::{redacted, Failed};
use super::keyed::Claimed;
use crate::failure::{Cut, Note};
use crate::machine::{Action, Operation};
use crate::reason::{Reason, Stop};
use crate::record::Pending;
use crate::text;
use crate::web::platform::clock;
use crate::web::platform::race::Race;
use crate::web::platform::request::Unread;
use crate::web::platform::store::Fault;

/// How a call settles when the driver gives up on a pending step.
pub(super) struct Interrupted {
    pub reason: Reason,
    pub pending: Pending,
    /// What the store said, for the record and the message.
    pub detail: Option<String>,
}

impl From<Fault> for Interrupted {
    fn from(fault: Fault) -> Self {
        match fault {
            Fault::Failed { pending, detail } => Interrupted { reason: Reason::Store, pending, detail: Some(detail) },
            Fault::Cut { pending, cut } => Interrupted { reason: cut.reason(), pending, detail: None },
        }
    }
}

impl Driver {
    /// Runs a prepared call to its end: the successful response, or how it failed.
    ///
    /// Each step's future is boxed while it runs, so that a pending call holds only its
    /// current step: 100 000 pending calls each kept every step's state inline before.
    pub async fn run(&self, mut call: Box<Call>) -> Result<JsValue, Failed> {
        if call.key.is_some() {
            if let Err(settled) = Box::pin(self.claim(&mut call)).await {
                return settled;
            }
        }
        // Only a body is read before the first attempt: no race (and no timer) without one.
        let buffered = match call.template.has_body() {
            true => Box::pin(call.template.buffer(&self.bounds(&call))).await,
            false => Ok(()),
        };
        match buffered {
            Ok(()) => {}
            Err(Unread::Failed(error)) => return Err(Failed::Thrown(error)),
            Err(Unread::Cut(cut)) => {
                let why = Interrupted { reason: cut.reason(), pending: Pending::RequestBody, detail: None };
                let stop = self.interrupt(&mut call, why);
                return Box::pin(self.settle(call, stop)).await;
            }
        }
        self.enter_budget(&call.op).await;
        let mut action = {
            let (now, wall) = (clock::now(), clock::wall_now());
            let (mut draws, mut budget) = (self.draws.borrow_mut(), self.budget.borrow_mut());
            if call.resumed {
                call.op.resume(now, wall, &mut draws, &mut budget)
            } else {
                call.op.start(now, &mut draws, &mut budget)
            }
        };
        self.leave_budget(&call.op);
        loop {
            if let Action::Stop(stop) = action {
                // The last records are reported by `settle`, once the store has had its say.
                return Box::pin(self.settle(call, stop)).await;
            }
            self.report(&call.op, &mut call.reported);
            // Saved before the request leaves and before each sleep, so a restart resumes from here.
            if let Some(stop) = Box::pin(self.save(&mut call)).await {
                action = Action::Stop(stop);
                continue;
            }
            action = match action {
                Action::Send { timeout_ms, .. } => Box::pin(self.attempt(&mut call, timeout_ms)).await,
                Action::Sleep { .. } => Box::pin(self.sleep(&mut call.op, &call.abort)).await,
                stop @ Action::Stop(_) => stop,
            };
        }
    }

    /// The races of this call's store calls and body reads: its deadline and the caller's abort.
    pub(super) fn bounds(&self, call: &Call) -> Race {
        let left = call.op.deadline_at().saturating_sub(clock::now());
        Race::new().cut_after(left, Cut::Deadline).cut_on_abort(&call.abort)
    }

    /// Claims the call's key; `Err` is how the call settles when it may not run.
    async fn claim(&self, call: &mut Call) -> Result<(), Result<JsValue, Failed>> {
        let key = call.key.clone().unwrap_or_default();
        let latest_start = call.op.deadline_at().saturating_sub(call.op.policy().admission_ms());
        let latest_start_wall = clock::wall_now().saturating_add(latest_start.saturating_sub(clock::now()));
        let claimed = self.keyed(&key).claim(&self.bounds(call), latest_start_wall).await;
        match claimed {
            Ok(Claimed::Fresh) => call.owns_key = true,
            Ok(Claimed::Resume(state)) => {
                let deadline = call.op.deadline_at();
                let (now, wall) = (clock::now(), clock::wall_now());
                match Operation::restore(*state, now, wall, &mut self.budget.borrow_mut()) {
                    Ok(mut op) => {
                        op.limit_deadline(deadline);
                        // Its earlier records were reported by the process that made them.
                        call.reported = op.records().len();
                        call.op = op;
                        call.resumed = true;
                        call.owns_key = true;
                    }
                    Err(e) => {
                        let detail =
                            text::join(&["the stored state of key \"", &key, "\" cannot be resumed: ", &e.message()]);
                        let why =
                            Interrupted { reason: Reason::Store, pending: Pending::StoreGet, detail: Some(detail) };
                        let stop = self.interrupt(call, why);
                        return Err(self.settle_now(call, stop));
                    }
                }
            }
            Ok(Claimed::Refused(refusal, records)) => {
                return Err(Err(Failed::Stopped(self.refused(&call.template, &key, refusal, &records))))
            }
            Err(fault) => {
                let stop = self.interrupt(call, fault.into());
                return Err(self.settle_now(call, stop));
            }
        }
        Ok(())
    }

    /// Saves a keyed operation before it sends or sleeps; `Some` if it must stop instead.
    async fn save(&self, call: &mut Call) -> Option<Stop> {
        let key = call.key.clone()?;
        let saved = self.keyed(&key).save(&call.op, &self.budget, &self.bounds(call)).await;
        match saved {
            Ok(()) => None,
            Err(fault) => Some(self.interrupt(call, fault.into())),
        }
    }

    /// Stops the operation at a step it could not take; the record says why.
    fn interrupt(&self, call: &mut Call, why: Interrupted) -> Stop {
        let now = clock::now();
        let stop = call.op.cancel(now, why.reason, Some(why.pending), &mut self.budget.borrow_mut());
        match why.detail {
            Some(detail) => {
                let detail = redacted(&detail);
                call.op.note_store_failure(detail.clone());
                call.note = Note::Store(detail);
            }
            None if why.reason == Reason::Deadline => call.note = Note::Pending(why.pending, Cut::Deadline),
            None => {}
        }
        stop
    }
}
