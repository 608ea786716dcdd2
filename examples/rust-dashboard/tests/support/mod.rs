//! What the consumer crate's tests share: the mock exchange's URL and its control routes.
#![allow(dead_code)]

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

#[allow(clippy::option_env_unwrap)] // a clear message when it was not set at build time
pub fn exchange() -> &'static str {
    option_env!("RETRYLINE_MOCK_URL").expect("RETRYLINE_MOCK_URL: the mock exchange's URL, at build time")
}

/// A plain `fetch` to the mock's control routes (not retried: this is the test's own wire).
pub async fn control(method: &str, path: &str, body: Option<String>) -> JsValue {
    let init = js_sys::Object::new();
    Reflect::set(&init, &"method".into(), &method.into()).unwrap();
    if let Some(body) = body {
        Reflect::set(&init, &"body".into(), &body.into()).unwrap();
    }
    let fetch: js_sys::Function = Reflect::get(&js_sys::global(), &"fetch".into()).unwrap().dyn_into().unwrap();
    let url = JsValue::from_str(&format!("{}{path}", exchange()));
    let promise: js_sys::Promise = fetch.call2(&JsValue::UNDEFINED, &url, &init).unwrap().dyn_into().unwrap();
    let response: web_sys::Response = JsFuture::from(promise).await.unwrap().dyn_into().unwrap();
    JsFuture::from(response.json().unwrap()).await.unwrap()
}
