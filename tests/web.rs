//! The typed Rust shell in headless Chrome: `wasm-pack test --headless --chrome --test web`.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const RUNTIME: &str = "chrome";

mod shell;

/// The order lifecycle with the browser's own `localStorage` as the store.
mod local_storage {
    use js_sys::{Function, Reflect};
    use retryline::web::{CallOptions, Client};
    use retryline::{Evidence, Reason};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::shell::{script, server_log, url};

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
        let key = format!("ls-{}", js_sys::Date::now() as u64);
        script("/api/v3/order", Some("POST"), r#"[{"action":"execute-then-drop"}]"#).await;
        let before = server_log("/api/v3/order").await.len();

        let client = Client::builder().store(&local_storage()).expect("localStorage is a store").build();
        let body = format!(r#"{{"newClientOrderId":"{key}"}}"#);
        let target = url("/api/v3/order");
        let order = || client.send("POST", &target, &[], Some(&body), CallOptions::order(&key));
        let error = order().await.expect_err("the response was dropped");
        assert_eq!(error.reason(), Some(Reason::UnknownOutcome), "{error}");
        assert!(stored(&key).is_string(), "the unknown outcome is in localStorage");

        let again = order().await.expect_err("refused while unresolved");
        assert_eq!(again.reason(), Some(Reason::UnknownOutcome), "{again}");
        assert!(again.to_string().contains("reconcile it"), "{again}");

        let reconciled = client
            .reconcile(&key, |_attempt, _signal| async { Ok(Evidence::Filled) }, None, None)
            .await
            .expect("reconciled");
        assert!(reconciled.resolved);
        assert_eq!(reconciled.state, Some(Evidence::Filled));
        assert!(stored(&key).is_null(), "resolved: the key is gone from localStorage");

        assert_eq!(server_log("/api/v3/order").await.len(), before + 1, "one order on the wire in all");
    }
}

/// `SharedBudget::from_config(config, Some(name))`: budgets of one name share their state through
/// Web Locks and IndexedDB, as the origin's tabs and workers do. Two budgets of this page stand for
/// two tabs: each is its own core budget, and only the share carries what one learns to the other.
mod tabs {
    use retryline::budget::BudgetConfig;
    use retryline::web::{clock, CallOptions, Client, SharedBudget};
    use retryline::{Jitter, Policy, Reason};
    use wasm_bindgen::JsValue;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::shell::{runtime_path, script, server_log, url};

    fn share_name(test: &str) -> String {
        format!("rust-{test}-{}", js_sys::Date::now() as u64)
    }

    #[wasm_bindgen_test]
    async fn a_ban_learnt_through_one_budget_refuses_the_other_of_its_share_without_sending() {
        let (banned, other) = (runtime_path("tabs-ban-a"), runtime_path("tabs-ban-b"));
        script(&banned, None, r#"[{"status":418,"retryAfter":"60"}]"#).await;
        let name = share_name("ban");
        let (first, second) = (
            SharedBudget::from_config(BudgetConfig::default(), Some(&name)),
            SharedBudget::from_config(BudgetConfig::default(), Some(&name)),
        );
        let a = Client::builder().budget(&first).build();
        let b = Client::builder().budget(&second).build();
        let error = a.get(&url(&banned), CallOptions::default()).await.expect_err("banned");
        assert_eq!(error.reason(), Some(Reason::Banned), "{error}");
        let error = b.get(&url(&other), CallOptions::default()).await.expect_err("the share knows the ban");
        assert_eq!(error.reason(), Some(Reason::Banned), "{error}");
        assert_eq!(server_log(&other).await.len(), 0, "nothing reached the server");
    }

    #[wasm_bindgen_test]
    async fn a_ban_published_by_one_budget_wakes_a_sleeper_of_the_other_and_refuses_it() {
        let (sleeper, banned) = (runtime_path("tabs-wake-a"), runtime_path("tabs-wake-b"));
        script(&sleeper, None, r#"[{"status":503},{"status":200}]"#).await;
        script(&banned, None, r#"[{"status":418,"retryAfter":"60"}]"#).await;
        let name = share_name("wake");
        let (first, second) = (
            SharedBudget::from_config(BudgetConfig::default(), Some(&name)),
            SharedBudget::from_config(BudgetConfig::default(), Some(&name)),
        );
        let slow = Policy::builder()
            .jitter(Jitter::None)
            .base_delay_ms(3_000)
            .max_delay_ms(3_000)
            .attempt_timeout_ms(2_000)
            .deadline_ms(20_000)
            .build()
            .unwrap();
        let b = Client::builder().policy(slow).budget(&second).build();
        let started = clock::now();
        let sleeping = {
            let target = url(&sleeper);
            JsFuture::from(wasm_bindgen_futures::future_to_promise(async move {
                match b.get(&target, CallOptions::default()).await {
                    Ok(_) => Err(JsValue::from_str("the sleeper was not refused")),
                    Err(error) => Ok(JsValue::from_str(error.reason().map_or("invalid", |r| r.as_str()))),
                }
            }))
        };
        // Once the sleeper's 503 has come back, the other budget learns of a ban.
        while !server_log(&sleeper).await.first().is_some_and(|e| e.1.is_finite()) {}
        let a = Client::builder().budget(&first).build();
        assert_eq!(a.get(&url(&banned), CallOptions::default()).await.unwrap_err().reason(), Some(Reason::Banned));
        let reason = sleeping.await.expect("refused");
        assert_eq!(reason.as_string().as_deref(), Some("banned"));
        let slept = clock::now() - started;
        assert!(slept < 2_500, "woken by the ban, not by its 3 s timer: {slept} ms");
        assert_eq!(server_log(&sleeper).await.len(), 1, "the sleeper sent nothing more");
    }
}

/// A Rust stream in a browser page hears the page (issue 32): the page's `offline` and `online`,
/// sent here as the browser sends them.
mod page {
    use retryline::record::Decision;
    use retryline::web::{Client, StreamOptions, StreamState};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    use super::shell::streams::{is_trade, read_until, reconnects, sleep, tag, upgrades};
    use super::shell::{observed, url};

    fn page_says(kind: &str) {
        let event = web_event(kind);
        let global: JsValue = js_sys::global().into();
        let dispatch: js_sys::Function =
            js_sys::Reflect::get(&global, &"dispatchEvent".into()).unwrap().dyn_into().unwrap();
        dispatch.call1(&global, &event).unwrap();
    }

    fn web_event(kind: &str) -> JsValue {
        let class: js_sys::Function =
            js_sys::Reflect::get(&js_sys::global(), &"Event".into()).unwrap().dyn_into().unwrap();
        js_sys::Reflect::construct(&class, &js_sys::Array::of1(&kind.into())).unwrap()
    }

    #[wasm_bindgen_test]
    async fn offline_holds_every_attempt_and_online_makes_one_at_once() {
        let run = tag("offline");
        let (records, observer) = observed();
        let client = Client::builder().on_attempt(observer).build();
        let options =
            StreamOptions { policy: Some(reconnects(100)), min_uptime_ms: Some(0), ..StreamOptions::default() };
        let stream = client.stream(&url(&format!("/ws/ticker?run={run}")), options).unwrap();
        page_says("offline");
        sleep(500).await;
        assert_eq!(stream.state(), StreamState::Waiting);
        assert!(upgrades("/ws/ticker", &run).await.is_empty(), "no attempt while offline");
        let held = records
            .borrow()
            .iter()
            .any(|r| r.decision == Decision::Refused && r.error.as_deref().is_some_and(|e| e.contains("offline")));
        assert!(held, "a refused record says the page is offline");
        page_says("online");
        read_until(&stream, is_trade).await;
        assert_eq!(upgrades("/ws/ticker", &run).await.len(), 1);
    }
}
