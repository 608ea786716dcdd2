//! A Rust client's last good response of each read (`staleIfErrorMs`), by the request's identity
//! the core names: the core says when to keep one and whether a kept one may be served; this holds
//! a copy whose body it reads apart from the caller's. Bounded as the JavaScript client's is.

use std::collections::VecDeque;

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

#[wasm_bindgen(module = "/src/web/platform/shell.js")]
extern "C" {
    #[wasm_bindgen(js_name = keepCopy)]
    fn js_keep_copy(response: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = cloneResponse)]
    fn js_clone_response(response: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = serveKept)]
    fn js_serve_kept(kept: &JsValue, age_ms: f64) -> JsValue;
}

/// A clone of `response`, a branch of its body for a joined caller (`None`: it cannot be cloned).
pub fn copy(response: &JsValue) -> Option<JsValue> {
    Some(js_clone_response(response)).filter(|copy| !copy.is_undefined())
}

/// Entries kept per client at most (as js/platform/kept.js).
pub const MAX_KEPT: usize = 256;

/// Kept copies, oldest first: identity, when kept (wall ms), the copy.
#[derive(Default)]
pub struct Kept(VecDeque<(u64, u64, JsValue)>);

impl Kept {
    /// Keeps a copy of `response` under `key`, kept at `wall`; the oldest goes past [`MAX_KEPT`].
    pub fn keep(&mut self, key: u64, response: &JsValue, wall: u64) {
        let copy = js_keep_copy(response);
        if copy.is_undefined() {
            return;
        }
        self.0.retain(|(k, ..)| *k != key);
        self.0.push_back((key, wall, copy));
        if self.0.len() > MAX_KEPT {
            self.0.pop_front();
        }
    }

    /// When the response under `key` was kept (wall ms), if one is.
    pub fn kept_at(&self, key: u64) -> Option<u64> {
        self.0.iter().find(|(k, ..)| *k == key).map(|(_, at, _)| *at)
    }

    /// A new response from the one under `key`, `age_ms` old (its `Age` header says so).
    pub fn serve(&self, key: u64, age_ms: u64) -> Option<web_sys::Response> {
        use wasm_bindgen::JsCast;
        let (.., copy) = self.0.iter().find(|(k, ..)| *k == key)?;
        js_serve_kept(copy, age_ms as f64).dyn_into::<web_sys::Response>().ok()
    }
}
