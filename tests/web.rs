//! The shell in headless Chrome: `wasm-pack test --headless --chrome --test web`.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const RUNTIME: &str = "chrome";

mod shell;

/// The order lifecycle with the browser's own `localStorage` as the store.
mod local_storage {
    use js_sys::{Function, Promise, Reflect, JSON};
    use retryline::web::RetryClient;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn local_storage() -> JsValue {
        Reflect::get(&js_sys::global(), &"localStorage".into()).expect("a browser has localStorage")
    }

    fn stored(key: &str) -> JsValue {
        let storage = local_storage();
        let get: Function = Reflect::get(&storage, &"getItem".into()).unwrap().dyn_into().unwrap();
        get.call1(&storage, &format!("retryline:{key}").into()).unwrap()
    }

    #[wasm_bindgen_test]
    async fn an_unknown_order_survives_in_local_storage_until_reconciled() {
        let base = option_env!("RETRYLINE_MOCK_URL").expect("RETRYLINE_MOCK_URL");
        let key = format!("ls-{}", js_sys::Date::now() as u64);
        let script =
            format!(r#"{{"path":"/api/v3/order","method":"POST","behaviours":[{{"action":"execute-then-drop"}}]}}"#);
        let init = JSON::parse(&format!(
            r#"{{"method":"POST","body":{}}}"#,
            JSON::stringify(&script.into()).unwrap().as_string().unwrap()
        ))
        .unwrap();
        JsFuture::from(super::shell::fetch_promise(&format!("{base}/__mock/script"), &init)).await.unwrap();

        let options = js_sys::Object::new();
        Reflect::set(&options, &"store".into(), &local_storage()).unwrap();
        let client = RetryClient::new(options.into()).unwrap();
        let order = || {
            let init =
                JSON::parse(&format!(r#"{{"method":"POST","body":"{{\"newClientOrderId\":\"{key}\"}}"}}"#)).unwrap();
            let call = JSON::parse(&format!(r#"{{"operation":"order","key":"{key}"}}"#)).unwrap();
            JsFuture::from(client.fetch(format!("{base}/api/v3/order").into(), init, call))
        };
        let error = order().await.expect_err("the response was dropped");
        assert_eq!(Reflect::get(&error, &"reason".into()).unwrap().as_string().as_deref(), Some("unknown-outcome"));
        assert!(stored(&key).is_string(), "the unknown outcome is in localStorage");

        let again = order().await.expect_err("refused while unresolved");
        assert_eq!(Reflect::get(&again, &"reason".into()).unwrap().as_string().as_deref(), Some("unknown-outcome"));

        let query = Closure::<dyn FnMut(JsValue) -> Promise>::new(|_| Promise::resolve(&JsValue::from_str("filled")));
        let result = JsFuture::from(client.reconcile(key.clone().into(), query.as_ref().clone(), JsValue::UNDEFINED))
            .await
            .unwrap();
        assert_eq!(Reflect::get(&result, &"resolved".into()).unwrap().as_bool(), Some(true));
        assert!(stored(&key).is_null(), "resolved: the key is gone from localStorage");

        let log = super::shell::server_log("/api/v3/order").await;
        assert_eq!(log.len(), 1, "one order on the wire in all");
    }
}
