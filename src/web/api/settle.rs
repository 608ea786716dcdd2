//! How a call settled (`Effect::Done`), handed on as the core wrote it (`Call::outcome_json`): the
//! winning response; or the `RetryError`'s parts — reason, message, key, records — with the last
//! response, its URL redacted; or the reconciliation's result. A stream's stop is read the same way.

use wasm_bindgen::{JsCast, JsValue};

use crate::call::{Call, Done};
use crate::input::Loose;
use crate::json::Fields;
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::AttemptRecord;
use crate::web::executor::{Ended, Running};
use crate::web::platform::errors::type_error;
use crate::web::platform::loose::plain;
use crate::web::platform::values;

/// An operation that stopped without success: what `RetryError` carries in JavaScript.
#[derive(Debug)]
pub struct Stopped {
    /// Why it stopped.
    pub reason: Reason,
    /// "POST https://…/order: unknown-outcome after 1 request: the order may have executed; …"
    pub message: String,
    /// The order's key, if it had one.
    pub key: Option<String>,
    /// The provider's last response (body unread, URL redacted), if there was one.
    pub response: Option<web_sys::Response>,
    /// Every attempt, sent or refused, in order.
    pub records: Vec<AttemptRecord>,
}

/// How a reconciliation (or a resolution by hand) ended.
#[derive(Clone, Debug)]
pub struct Reconciled {
    /// The order's key.
    pub key: String,
    /// The evidence settled it: the key is gone from the store.
    pub resolved: bool,
    /// The last evidence the queries found, or the state given by hand.
    pub state: Option<Evidence>,
    /// The policy ran out unresolved: an operator must look (the store keeps the key, marked).
    pub escalated: bool,
    /// The queries, as attempt records.
    pub records: Vec<AttemptRecord>,
    /// The store could not be brought up to date: what it said.
    pub store_error: Option<String>,
}

/// How a call settled.
pub(super) enum Settled {
    /// The successful response (a fetch).
    Response(JsValue),
    /// The operation stopped.
    Stopped(Box<Stopped>),
    /// The reconciliation's (or the resolution's) result.
    Reconciled(Box<Reconciled>),
    /// What JavaScript threw (the request body could not be read), or a `TypeError` (a key still
    /// running may not be reconciled).
    Thrown(JsValue),
}

/// How the call `running` settles, once it has; dropping the future cancels the call.
pub(super) async fn settled(mut running: Running) -> Settled {
    let Ended { done, last, body_error, signals, stale, shared } = (&mut running).await;
    // Joined callers' copies are branches of its body: its caller's abort cancels none of them.
    let signals = if shared { Vec::new() } else { signals };
    let call = running.call();
    match done {
        // An unread body follows the caller's signals.
        Done::Success { .. } => Settled::Response(last.map_or(JsValue::UNDEFINED, |r| r.for_caller(&signals))),
        Done::BodyThrew => Settled::Thrown(body_error.unwrap_or(JsValue::UNDEFINED)),
        Done::Running => {
            let outcome = read_json(&call.outcome_json());
            let message = Fields::of(&outcome).and_then(|f| f.read::<String>("message"));
            Settled::Thrown(type_error(&message.unwrap_or_default()))
        }
        // The kept response, marked (none could be made: the failure, as it would have been).
        Done::Stale { age_ms } if stale.is_some() => {
            let response = stale.map_or(JsValue::UNDEFINED, JsValue::from);
            super::stale::mark(&response, age_ms, &call.outcome_json());
            Settled::Response(response)
        }
        // The Rust API does not carry another tab's answer (its Await is answered "failed").
        Done::Failed | Done::Stale { .. } | Done::Carried => {
            let response = last.and_then(|r| r.for_error().dyn_into::<web_sys::Response>().ok());
            Settled::Stopped(Box::new(stopped(&call, response)))
        }
        Done::Reconciled => match reconciled(&read_json(&call.outcome_json())) {
            Some(reconciled) => Settled::Reconciled(Box::new(reconciled)),
            None => Settled::Thrown(type_error("reconcile: its result could not be read")),
        },
    }
}

/// The stop as the core describes it, with the last response.
fn stopped(call: &Call, response: Option<web_sys::Response>) -> Stopped {
    let op = call.operation();
    // Never seen: the core wrote it. What the operation holds still says why.
    let reason = op.stopped().map_or(Reason::Aborted, |s| s.reason);
    let kept = || Stopped::bare(reason, op.key().map(str::to_owned), op.records().to_vec());
    Stopped { response, ..read_stopped(&call.outcome_json()).unwrap_or_else(kept) }
}

/// A stream's stop for `reason`, as its session wrote it (`json`).
pub(super) fn stream_stopped(reason: Reason, json: &str) -> Stopped {
    read_stopped(json).unwrap_or_else(|| Stopped::bare(reason, None, Vec::new()))
}

/// A stop the core wrote as `{ reason, message, key, records }`: a call's, or a stream's.
pub(super) fn read_stopped(json: &str) -> Option<Stopped> {
    let stop = read_json(json);
    let f = Fields::of(&stop).ok()?;
    let (reason, message) = (f.read("reason").ok()?, f.read("message").ok()?);
    Some(Stopped { reason, message, key: f.read("key").ok()?, response: None, records: f.read("records").ok()? })
}

impl Stopped {
    /// A stop told by its reason alone.
    fn bare(reason: Reason, key: Option<String>, records: Vec<AttemptRecord>) -> Stopped {
        Stopped { reason, message: reason.as_str().to_owned(), key, response: None, records }
    }
}

fn read_json(json: &str) -> Loose {
    let parsed = values::parse_json(json).ok();
    parsed.and_then(|value| plain(&value).ok()).unwrap_or(Loose::Absent)
}

/// `{ key, resolved, state, escalated, records, storeError? }`.
fn reconciled(outcome: &Loose) -> Option<Reconciled> {
    let f = Fields::of(outcome).ok()?;
    Some(Reconciled {
        key: f.read("key").ok()?,
        resolved: f.read("resolved").ok()?,
        state: f.read("state").ok()?,
        escalated: f.read("escalated").ok()?,
        records: f.read("records").ok()?,
        store_error: f.read("storeError").ok()?,
    })
}
