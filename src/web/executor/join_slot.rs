//! A joined caller's place in a coalesced read of the Rust API (see `joined.rs`): the outcome it
//! gets, filled by the call it joined when that call releases it or settles.

use std::cell::RefCell;
use std::task::Waker;

use wasm_bindgen::JsValue;

/// What a joined caller gets: its own copy of the response (stale: its age and the failure's
/// JSON, to mark it), or the JSON of the `RetryError` it stops with.
pub enum JoinOutcome {
    Response(JsValue),
    Stale(JsValue, u64, String),
    Stopped(String),
}

/// A joined caller's place: its outcome once known, and whom to wake.
#[derive(Default)]
pub struct JoinSlot {
    outcome: RefCell<Option<JoinOutcome>>,
    waker: RefCell<Option<Waker>>,
}

impl JoinSlot {
    /// Fills it (once) and wakes its caller.
    pub fn fill(&self, outcome: JoinOutcome) {
        self.outcome.borrow_mut().get_or_insert(outcome);
        self.wake();
    }

    pub fn wake(&self) {
        if let Some(waker) = self.waker.borrow_mut().take() {
            waker.wake();
        }
    }

    /// Its caller, woken when it fills.
    pub fn listen(&self, waker: &Waker) {
        *self.waker.borrow_mut() = Some(waker.clone());
    }

    /// Its outcome, once (`None`: not yet).
    pub fn take(&self) -> Option<JoinOutcome> {
        self.outcome.borrow_mut().take()
    }

    pub fn is_filled(&self) -> bool {
        self.outcome.borrow().is_some()
    }
}

/// A joined caller's outcome of a call that settled `done`: its own copy of the last response
/// (kept under `key` for a stale one), or the call's failure `json`.
pub(super) fn outcome_for(
    done: crate::call::Done,
    last: Option<&crate::web::platform::response::Received>,
    key: Option<u64>,
    kept: &RefCell<super::kept::Kept>,
    json: &str,
) -> JoinOutcome {
    use crate::call::Done;
    let copied = match done {
        Done::Success { .. } => {
            last.and_then(|r| r.keepable()).and_then(|r| super::kept::copy(&r)).map(JoinOutcome::Response)
        }
        Done::Stale { age_ms } => key
            .and_then(|key| kept.borrow().serve(key, age_ms))
            .map(|r| JoinOutcome::Stale(r.into(), age_ms, json.to_owned())),
        _ => None,
    };
    copied.unwrap_or_else(|| JoinOutcome::Stopped(json.to_owned()))
}
