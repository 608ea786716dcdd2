//! The typed client against the loopback mock exchange, in headless Chrome. What reached the
//! server is read from its own log (`/__mock/requests`), with its own timestamps.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Reflect};
use retryline::web::{CallOptions, Client};
use retryline::{Evidence, Jitter, Policy, Reason};
use rust_dashboard::{last_price, PriceError};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod support;

use support::{control, exchange};

/// Queues the mock's answers for `path` (`behaviours` is its JSON list). The tests run
/// concurrently: each scripts and counts a path of its own.
async fn script(path: &str, method: &str, behaviours: &str) {
    control(
        "POST",
        "/__mock/script",
        Some(format!(r#"{{"path":"{path}","method":"{method}","behaviours":{behaviours}}}"#)),
    )
    .await;
}

/// The requests the server received at `path`: (method, received at, responded at) in ms of its clock.
async fn server_log(path: &str) -> Vec<(String, f64, f64)> {
    let log: Array = control("GET", &format!("/__mock/requests?path={path}"), None).await.dyn_into().unwrap();
    let field = |entry: &JsValue, name: &str| Reflect::get(entry, &name.into()).unwrap();
    log.iter()
        .map(|e| {
            (
                field(&e, "method").as_string().unwrap(),
                field(&e, "receivedAtMs").as_f64().unwrap(),
                field(&e, "respondedAtMs").as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect()
}

/// Short waits, no jitter: the tests' schedules are exact.
fn quick_policy() -> Policy {
    Policy::builder()
        .base_delay_ms(50)
        .max_delay_ms(50)
        .jitter(Jitter::None)
        .attempt_timeout_ms(2_000)
        .deadline_ms(10_000)
        .build()
        .unwrap()
}

#[wasm_bindgen_test]
async fn a_503_then_200_is_one_price_from_two_requests() {
    let path = "/api/v3/ticker/price";
    let before = server_log(path).await.len();
    script(path, "GET", r#"[{"status":503},{"status":200,"body":{"symbol":"BTCUSDT","price":"50000.00"}}]"#).await;
    let records = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let observed = records.clone();
    let client =
        Client::builder().policy(quick_policy()).on_attempt(move |r| observed.borrow_mut().push(r.clone())).build();
    let price = last_price(&client, exchange(), "BTCUSDT").await.expect("the retried price");
    assert_eq!(price, "50000.00");
    assert_eq!(server_log(path).await.len(), before + 2, "two requests at the server");
    let statuses: Vec<Option<u16>> = records.borrow().iter().filter(|r| r.is_sent()).map(|r| r.status).collect();
    assert_eq!(statuses, [Some(503), Some(200)], "the observer saw both attempts");
}

#[wasm_bindgen_test]
async fn retry_after_1_is_waited_out_as_the_server_measures_it() {
    let path = "/ra/ticker";
    let before = server_log(path).await.len();
    script(path, "GET", r#"[{"status":429,"retryAfter":1},{"status":200,"body":{"ok":true}}]"#).await;
    let client = Client::new(quick_policy());
    let response = client.get(&format!("{}{path}", exchange()), CallOptions::default()).await.expect("after the wait");
    assert_eq!(response.status(), 200);
    let log = server_log(path).await.split_off(before);
    assert_eq!(log.len(), 2);
    // Server-side: from the 429 leaving to the retry arriving. No slack is needed here: the client
    // starts its wait only after the 429 reached it, so the gap at the server is never shorter.
    let waited = log[1].1 - log[0].2;
    assert!(waited >= 1000.0, "the retry came {waited} ms after the 429");
}

#[wasm_bindgen_test]
async fn a_retry_that_cannot_finish_before_the_deadline_is_refused_with_reason_deadline() {
    let path = "/deadline/ticker";
    let before = server_log(path).await.len();
    script(path, "GET", r#"[{"status":503}]"#).await; // only what is used: nothing left for a rerun
                                                      // A 1 s backoff plus a 1 s attempt cannot fit in what is left of 1.5 s.
    let policy = Policy::builder()
        .base_delay_ms(1_000)
        .max_delay_ms(1_000)
        .jitter(Jitter::None)
        .attempt_timeout_ms(1_000)
        .deadline_ms(1_500)
        .build()
        .unwrap();
    let client = Client::new(policy);
    let error = client.get(&format!("{}{path}", exchange()), CallOptions::default()).await.expect_err("refused");
    match error.reason() {
        Some(Reason::Deadline) => {}
        other => panic!("expected Reason::Deadline, got {other:?}: {error}"),
    }
    assert_eq!(error.response().map(|r| r.status()), Some(503), "the last response comes with the error");
    assert_eq!(error.records().iter().filter(|r| r.is_sent()).count(), 1);
    assert_eq!(server_log(path).await.len(), before + 1, "the refused retry never left");
}

#[wasm_bindgen_test]
async fn a_ban_reaches_the_dashboard_as_its_own_error_with_the_reason() {
    // Its own "exchange" under the mock: the tests run concurrently, and each scripts its own path.
    let banned = format!("{}/banned", exchange());
    script("/banned/api/v3/ticker/price", "GET", r#"[{"status":418,"retryAfter":60}]"#).await;
    match last_price(&Client::new(quick_policy()), &banned, "ETHUSDT").await {
        Err(PriceError::Retry(error)) => assert_eq!(error.reason(), Some(Reason::Banned), "{error}"),
        other => panic!("expected a ban, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn an_order_whose_answer_is_lost_is_an_unknown_outcome_then_reconciled_never_resent() {
    let path = "/api/v3/order";
    let key = format!("rust-{}", js_sys::Date::now() as u64);
    let posted = || async { server_log(path).await.into_iter().filter(|(m, ..)| m == "POST").count() };
    let before = posted().await;
    script(path, "POST", r#"[{"action":"execute-then-drop"}]"#).await;
    let client = Client::new(quick_policy());
    let url = format!("{}{path}", exchange());
    let body = format!(r#"{{"symbol":"BTCUSDT","side":"BUY","quantity":"1","newClientOrderId":"{key}"}}"#);
    let sent =
        client.send("POST", &url, &[("content-type", "application/json")], Some(&body), CallOptions::order(&key)).await;
    let error = sent.expect_err("the answer was dropped");
    assert_eq!(error.reason(), Some(Reason::UnknownOutcome));

    // Placing it again is refused while its outcome is unknown: nothing is sent.
    let again = client.send("POST", &url, &[], Some(&body), CallOptions::order(&key)).await.expect_err("refused");
    assert_eq!(again.reason(), Some(Reason::UnknownOutcome));

    // Reconciled by the exchange's status query, which the test answers from the mock's book.
    let status_url = format!("{url}?origClientOrderId={key}");
    let query = move |_attempt: u32, _signal: web_sys::AbortSignal| {
        let status_url = status_url.clone();
        async move {
            let fetch: js_sys::Function = Reflect::get(&js_sys::global(), &"fetch".into()).unwrap().dyn_into().unwrap();
            let promise: js_sys::Promise =
                fetch.call1(&JsValue::UNDEFINED, &status_url.into()).map_err(|e| format!("{e:?}"))?.unchecked_into();
            let response: web_sys::Response =
                JsFuture::from(promise).await.map_err(|e| format!("{e:?}"))?.unchecked_into();
            let order =
                JsFuture::from(response.json().map_err(|e| format!("{e:?}"))?).await.map_err(|e| format!("{e:?}"))?;
            let status = Reflect::get(&order, &"status".into()).ok().and_then(|s| s.as_string());
            Ok(if status.as_deref() == Some("FILLED") { Evidence::Filled } else { Evidence::NotFound })
        }
    };
    let reconciled = client.reconcile(&key, query, None, None).await.expect("reconciled");
    assert!(reconciled.resolved);
    assert_eq!(reconciled.state, Some(Evidence::Filled));
    assert_eq!(posted().await, before + 1, "one order on the wire in all");
}

/// A promise that resolves after `ms`.
fn sleep(ms: i32) -> JsFuture {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout: js_sys::Function =
            Reflect::get(&js_sys::global(), &"setTimeout".into()).unwrap().dyn_into().unwrap();
        set_timeout.call2(&JsValue::UNDEFINED, &resolve, &ms.into()).unwrap();
    });
    JsFuture::from(promise)
}

#[wasm_bindgen_test]
async fn dropping_the_future_aborts_the_request_in_flight() {
    let path = "/cancel/ticker";
    let before = server_log(path).await.len();
    script(path, "GET", r#"[{"status":200,"delayMs":800}]"#).await;
    let client = Client::new(quick_policy());
    let url = format!("{}{path}", exchange());
    let call_won = {
        let mut call = std::pin::pin!(client.get(&url, CallOptions::default()));
        let mut timer = sleep(200);
        // Whichever is ready first: the call must not be (the server delays it 800 ms).
        std::future::poll_fn(|cx| {
            use std::future::Future;
            use std::task::Poll;
            if call.as_mut().poll(cx).is_ready() {
                return Poll::Ready(true);
            }
            std::pin::Pin::new(&mut timer).poll(cx).map(|_| false)
        })
        .await
    }; // the call's future is dropped here, its request in flight
    assert!(!call_won, "the server was told to answer late");
    let _ = sleep(1_000).await;
    let log: Array = control("GET", &format!("/__mock/requests?path={path}"), None).await.dyn_into().unwrap();
    assert_eq!(log.length() as usize, before + 1);
    let outcome = Reflect::get(&log.get(before as u32), &"outcome".into()).unwrap();
    assert_eq!(outcome.as_string().as_deref(), Some("aborted"), "the server saw the client go away before it answered");
}
