//! How a call ends: its state finished in the store, its last records reported, its response
//! handed on or its failure described.

use wasm_bindgen::{JsCast, JsValue};

use super::call::Call;
use super::driver::Driver;
use super::failed::{redacted, Failed, Failure};
use crate::durable::Refusal;
use crate::failure::{refusal_detail, Cut, Note};
use crate::reason::{Reason, Stop};
use crate::record::AttemptRecord;
use crate::redact::redact_url;
use crate::web::platform::clock;
use crate::web::platform::race::Race;
use crate::web::platform::request::RequestTemplate;

impl Driver {
    /// The operation stopped: its state is finished in the store (within the deadline: a
    /// store that hangs is noted, not waited for), its records reported, the call settled.
    pub(super) async fn settle(&self, mut call: Box<Call>, stop: Stop) -> Result<JsValue, Failed> {
        if let (true, Some(key)) = (call.owns_key, call.key.clone()) {
            // Not cut by the caller's abort: an aborted order must still be kept unresolved.
            // Bounded like one attempt, and by the deadline: a hanging store delays no answer for long.
            let (to_deadline, timeout) =
                (call.op.deadline_at().saturating_sub(clock::now()), call.op.policy().attempt_timeout_ms());
            let race = match to_deadline <= timeout {
                true => Race::new().cut_after(to_deadline, Cut::Deadline),
                false => Race::new().cut_after(timeout, Cut::Timeout),
            };
            if let Err(fault) = self.keyed(&key).finish(&call.op, &self.budget, &race).await {
                let note = redacted(&fault.describe());
                call.op.note_store_failure(note.clone());
                if stop.reason != Reason::Success {
                    call.note = Note::NotSaved(note);
                }
            }
        }
        self.settle_now(&mut call, stop)
    }

    /// Reports the last records and settles, without touching the store.
    pub(super) fn settle_now(&self, call: &mut Call, stop: Stop) -> Result<JsValue, Failed> {
        self.report(&call.op, &mut call.reported);
        let response = call.last_response.take();
        if stop.reason == Reason::Success {
            let signals = call.abort.signals();
            return Ok(response.map(|r| r.for_caller(signals)).unwrap_or(JsValue::UNDEFINED));
        }
        let response = response.map(|r| r.for_error()).and_then(|r| r.dyn_into().ok());
        Err(Failed::Stopped(Box::new(Failure {
            reason: stop.reason,
            method: call.template.method.clone(),
            url: call.op.url().unwrap_or_default().to_owned(),
            key: call.op.key().map(str::to_owned),
            response,
            records: call.op.records().to_vec(),
            detail: None,
            note: std::mem::replace(&mut call.note, Note::None),
        })))
    }

    /// The failure for a key that may not run now; its records are the saved operation's.
    pub(super) fn refused(
        &self,
        template: &RequestTemplate,
        key: &str,
        refusal: Refusal,
        records: &[AttemptRecord],
    ) -> Box<Failure> {
        Box::new(Failure {
            reason: Reason::UnknownOutcome,
            method: template.method.clone(),
            url: redact_url(&template.url),
            key: Some(key.to_owned()),
            response: None,
            records: records.to_vec(),
            detail: Some(refusal_detail(refusal, key)),
            note: Note::None,
        })
    }
}
