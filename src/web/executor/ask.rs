//! The caller's `shouldRetry`, asked when the machine says (`Effect::Ask`): after the core's own
//! gate, budget, bans and unknown outcomes admitted a retry, so it can stop one, never widen one.
//! How long it may take is the machine's to bound (the deadline).

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use wasm_bindgen::JsCast;

use crate::call::Event;
use crate::record::AttemptRecord;
use crate::web::platform::response::Received;

/// What `shouldRetry` is asked about: the attempt the retry would follow.
#[derive(Clone, Debug)]
pub struct RetryContext {
    /// Its number (1: the initial request).
    pub attempt: u32,
    /// Its status, if a response came.
    pub status: Option<u16>,
    /// What went wrong with it, if no response came (a network error's words, or that the
    /// response was still pending when its attempt timed out: `record.outcome` says which).
    pub error: Option<String>,
    /// Its response (body unread, unless the call reads bodies), if one came.
    pub response: Option<web_sys::Response>,
    /// Its record.
    pub record: AttemptRecord,
}

/// Go on (`Ok(true)`) or decline (`Ok(false)`, or `Err` with why).
pub type Predicate = Rc<dyn Fn(RetryContext) -> Pin<Box<dyn Future<Output = Result<bool, String>>>>>;

/// The predicate's answer to come, for answer `seq`.
pub(super) struct Asking {
    seq: u32,
    answer: Pin<Box<dyn Future<Output = Result<bool, String>>>>,
}

impl Asking {
    /// Asks `predicate` about the attempt `record` describes (`received`: its response, if any).
    pub(super) fn new(
        predicate: &Predicate,
        seq: u32,
        record: AttemptRecord,
        error: Option<String>,
        received: Option<&Received>,
    ) -> Asking {
        let response = received.and_then(|r| r.original().clone().dyn_into::<web_sys::Response>().ok());
        let context = RetryContext { attempt: record.attempt, status: record.status, error, response, record };
        Asking { seq, answer: predicate(context) }
    }

    /// The answer, once the predicate has given it.
    pub(super) fn poll_answer(&mut self, cx: &mut Context<'_>) -> Poll<Event> {
        let seq = self.seq;
        self.answer.as_mut().poll(cx).map(|answer| Event::Answered(seq, answer))
    }
}
