//! Shells of the design's shape, each the least a retrying fetch of that shape does:
//! an exported async function (`future_to_promise`) that awaits the fetch (`JsFuture`).

use js_sys::{Function, Promise};
use retryline::{Action, Budget, Draws, Operation, OperationKind, Outcome, Policy, Priority, Start};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{AbortController, Response};

// The attempt's timer and init in one small module: no closure of ours per call.
#[wasm_bindgen(inline_js = "export function arm(c, ms) { return setTimeout(() => c.abort(), ms); }
export function disarm(t) { clearTimeout(t); }
export function init(signal) { return { signal }; }
export function now() { return performance.now(); }")]
extern "C" {
    fn arm(controller: &AbortController, ms: f64) -> JsValue;
    fn disarm(timer: &JsValue);
    fn init(signal: &web_sys::AbortSignal) -> JsValue;
    fn now() -> f64;
}

async fn awaited(called: Result<JsValue, JsValue>) -> Result<JsValue, JsValue> {
    JsFuture::from(called?.unchecked_into::<Promise>()).await
}

/// The shape alone: call `fetch(url)` and hand on what it settles to.
#[wasm_bindgen]
pub fn bare(fetch: Function, url: JsValue) -> Promise {
    future_to_promise(async move { awaited(fetch.call1(&JsValue::UNDEFINED, &url)).await })
}

/// One attempt with a timeout: an `AbortController`, its signal handed to `fetch`, a timer
/// that aborts it, cleared once the response is in.
async fn attempt(fetch: &Function, url: &JsValue, ms: f64) -> Result<JsValue, JsValue> {
    let controller = AbortController::new()?;
    let timer = arm(&controller, ms);
    let settled = awaited(fetch.call2(&JsValue::UNDEFINED, url, &init(&controller.signal()))).await;
    disarm(&timer);
    settled
}

/// [`attempt`] as an export.
#[wasm_bindgen(js_name = withTimeout)]
pub fn with_timeout(fetch: Function, url: JsValue, ms: f64) -> Promise {
    future_to_promise(async move { attempt(&fetch, &url, ms).await })
}

/// Up to three [`attempt`]s, until one answers 200: the retry path's floor (no decisions,
/// no wait between attempts).
#[wasm_bindgen]
pub fn thrice(fetch: Function, url: JsValue, ms: f64) -> Promise {
    future_to_promise(async move {
        let mut response = JsValue::UNDEFINED;
        for _ in 0..3 {
            response = attempt(&fetch, &url, ms).await?;
            if response.unchecked_ref::<Response>().status() == 200 {
                break;
            }
        }
        Ok(response)
    })
}

/// [`attempt`] decided by retryline's core: the operation begun, its first attempt admitted
/// (the attempt timeout comes from the policy), the response's status fed back.
#[wasm_bindgen]
pub fn decided(fetch: Function, url: JsValue) -> Promise {
    future_to_promise(async move {
        let start = Start {
            policy: Policy::default(),
            kind: OperationKind::Read,
            priority: Priority::Read,
            scope: String::new(),
            weight: 1,
            key: None,
            method: None,
            url: None,
        };
        let mut budget = Budget::unlimited();
        let mut draws = Draws::seeded(1);
        let at = now() as u64;
        let mut operation = Operation::begin(start, at, at);
        let Action::Send { timeout_ms, .. } = operation.start(at, &mut draws, &mut budget) else {
            return Err(JsValue::NULL);
        };
        let response = attempt(&fetch, &url, timeout_ms as f64).await?;
        let status = response.unchecked_ref::<Response>().status();
        let at = now() as u64;
        match operation.on_outcome(at, at, &Outcome::response(status), &mut draws, &mut budget) {
            Action::Stop(_) => Ok(response),
            _ => Err(JsValue::NULL),
        }
    })
}
