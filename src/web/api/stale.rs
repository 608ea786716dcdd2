//! [`staleness`]: whether a response a call resolved with is its read's last good answer, served
//! because the fresh read failed (`staleIfErrorMs`), as JavaScript's `staleness(response)`.

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::reason::Reason;
use crate::record::AttemptRecord;

#[wasm_bindgen(module = "/src/web/platform/shell.js")]
extern "C" {
    #[wasm_bindgen(js_name = markStale)]
    fn js_mark_stale(response: &JsValue, age_ms: f64, json: &str);
    #[wasm_bindgen(js_name = staleMark)]
    fn js_stale_mark(response: &JsValue) -> JsValue;
}

/// A stale answer: how old, why the fresh read failed, and the call's records (the last says it
/// served stale).
#[derive(Clone, Debug, PartialEq)]
pub struct Staleness {
    /// The kept response's age, ms.
    pub age_ms: u64,
    /// Why the fresh read failed.
    pub reason: Reason,
    /// Every record of the call.
    pub records: Vec<AttemptRecord>,
}

/// `None` for a fresh response; for one served stale, its [`Staleness`].
pub fn staleness(response: &web_sys::Response) -> Option<Staleness> {
    let mark = js_stale_mark(response);
    let age_ms = js_sys::Reflect::get_u32(&mark, 0).ok()?.as_f64()?;
    let json = js_sys::Reflect::get_u32(&mark, 1).ok()?.as_string()?;
    let stopped = super::settle::read_stopped(&json)?;
    Some(Staleness { age_ms: age_ms as u64, reason: stopped.reason, records: stopped.records })
}

/// Marks `response` as served stale, `age_ms` old, with the failure's JSON (the core's).
pub(super) fn mark(response: &JsValue, age_ms: u64, json: &str) {
    js_mark_stale(response, age_ms as f64, json);
}

/// What a joined call resolves with: its copy of the response (a stale one marked), or its error.
pub(super) fn joined(outcome: crate::web::executor::JoinOutcome) -> Result<web_sys::Response, super::Error> {
    use crate::web::executor::JoinOutcome;
    use wasm_bindgen::JsCast;
    let response = match outcome {
        JoinOutcome::Response(response) => response,
        JoinOutcome::Stale(response, age_ms, json) => {
            mark(&response, age_ms, &json);
            response
        }
        JoinOutcome::Stopped(json) => {
            let stopped = super::settle::read_stopped(&json);
            let invalid =
                || super::Error::Invalid(js_sys::TypeError::new("a coalesced read's outcome could not be read").into());
            return Err(stopped.map_or_else(invalid, |s| super::Error::Stopped(Box::new(s))));
        }
    };
    response.dyn_into::<web_sys::Response>().map_err(|_| {
        super::Error::Invalid(js_sys::TypeError::new("the coalesced read's response could not be copied").into())
    })
}
