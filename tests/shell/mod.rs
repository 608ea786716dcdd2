//! The typed Rust shell (`retryline::web`) against real timers and a real `fetch`, shared by
//! `web.rs` (headless Chrome) and `node.rs` (Node). The mock exchange runs in another process;
//! its URL is compiled in from `RETRYLINE_MOCK_URL` (scripts/test.mjs sets it). What reached the
//! server is read from its own log, with its own timestamps.
//!
//! What the JavaScript shell alone does (option objects, `RetryError`, `Budget` look-alikes,
//! `replay()` from JavaScript) is proved by tests/js/*.test.mjs.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect, JSON};
use retryline::budget::{BudgetConfig, Limit};
use retryline::classify::Observed;
use retryline::record::Decision;
use retryline::retry_after::RetryAfterForm;
use retryline::web::{clock, CallOptions, Client, Error, Family, Match, SharedBudget, ShouldRetry};
use retryline::{replay, AttemptRecord, Jitter, Loose, Policy, Reason, ReplaySpec};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

mod coalesce;
mod stale;
mod stream_restart;
pub mod streams;

#[allow(clippy::option_env_unwrap)] // a clear message when it was not set at build time
pub fn mock_url() -> &'static str {
    option_env!("RETRYLINE_MOCK_URL").expect("RETRYLINE_MOCK_URL: run the wasm tests through `npm test`")
}

fn get(value: &JsValue, name: &str) -> JsValue {
    Reflect::get(value, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

/// The test's own wire: a plain `fetch`, not retried.
pub fn fetch_promise(url: &str, init: &JsValue) -> Promise {
    let fetch: Function = get(&js_sys::global(), "fetch").dyn_into().expect("a global fetch");
    fetch.call2(&JsValue::UNDEFINED, &url.into(), init).expect("fetch").dyn_into().unwrap()
}

async fn global_fetch(url: &str, init: &JsValue) -> JsValue {
    JsFuture::from(fetch_promise(url, init)).await.expect("the mock answers")
}

async fn response_json(response: JsValue) -> JsValue {
    let text: Function = get(&response, "json").dyn_into().unwrap();
    JsFuture::from(text.call0(&response).unwrap().dyn_into::<Promise>().unwrap()).await.unwrap()
}

/// Queues behaviours for `path` (and `method`, if given) at the mock.
pub async fn script(path: &str, method: Option<&str>, behaviours: &str) {
    let method = method.map(|m| format!(r#","method":"{m}""#)).unwrap_or_default();
    let body = format!(r#"{{"path":"{path}"{method},"behaviours":{behaviours}}}"#);
    let init = Object::new();
    Reflect::set(&init, &"method".into(), &"POST".into()).unwrap();
    Reflect::set(&init, &"body".into(), &body.into()).unwrap();
    global_fetch(&format!("{}/__mock/script", mock_url()), &init).await;
}

/// The mock's log of requests to `path`: (receivedAtMs, respondedAtMs or endedAtMs).
pub async fn server_log(path: &str) -> Vec<(f64, f64)> {
    let response = global_fetch(&format!("{}/__mock/requests?path={path}", mock_url()), &JsValue::UNDEFINED).await;
    let entries: Array = response_json(response).await.dyn_into().unwrap();
    entries
        .iter()
        .map(|e| {
            let received = get(&e, "receivedAtMs").as_f64().unwrap_or(f64::NAN);
            let ended = get(&e, "respondedAtMs").as_f64().or_else(|| get(&e, "endedAtMs").as_f64()).unwrap_or(f64::NAN);
            (received, ended)
        })
        .collect()
}

pub fn runtime_path(test: &str) -> String {
    format!("/wasm/{}/{test}", crate::RUNTIME)
}

pub fn url(path: &str) -> String {
    format!("{}{path}", mock_url())
}

/// A policy from the builder with `jitter: none`, or what the builder refuses.
fn policy(build: impl FnOnce(retryline::builders::PolicyBuilder) -> retryline::builders::PolicyBuilder) -> Policy {
    build(Policy::builder().jitter(Jitter::None)).build().expect("a valid policy")
}

fn stopped(result: Result<web_sys::Response, Error>) -> Error {
    match result {
        Ok(response) => panic!("expected the call to stop, got status {}", response.status()),
        Err(error) => error,
    }
}

/// Calls `f` after `ms` on the global `setTimeout` (what a caller's UI event would do).
pub fn later(ms: i32, f: impl FnOnce() + 'static) {
    let set_timeout: Function = get(&js_sys::global(), "setTimeout").dyn_into().unwrap();
    set_timeout.call2(&JsValue::UNDEFINED, &Closure::once_into_js(f), &ms.into()).unwrap();
}

/// Blocks the thread: what a busy main thread or a throttled tab does to timers.
fn block_for(ms: f64) {
    let until = js_sys::Date::now() + ms;
    while js_sys::Date::now() < until {}
}

#[wasm_bindgen_test]
async fn backoff_sleeps_for_real() {
    let path = runtime_path("backoff");
    script(&path, None, r#"[{"status":503},{"status":200}]"#).await;
    let c = Client::new(policy(|p| p.base_delay_ms(300).max_delay_ms(300).attempt_timeout_ms(2000)));
    let response = c.get(&url(&path), CallOptions::default()).await.expect("succeeds on the second attempt");
    assert_eq!(response.status(), 200);
    let log = server_log(&path).await;
    assert_eq!(log.len(), 2, "two requests on the wire");
    assert!(log[1].0 - log[0].1 >= 300.0 - 1.0, "waited {} ms", log[1].0 - log[0].1);
}

#[wasm_bindgen_test]
async fn a_hanging_request_times_out_by_the_attempt_timeout() {
    let path = runtime_path("hang");
    script(&path, None, r#"[{"action":"hang"}]"#).await;
    let c = Client::new(policy(|p| p.max_attempts(1).attempt_timeout_ms(250).deadline_ms(5000)));
    let started = clock::now();
    let error = stopped(c.get(&url(&path), CallOptions::default()).await);
    assert!(clock::now() - started >= 250);
    assert_eq!(error.reason(), Some(Reason::Attempts), "{error}");
    let first = &error.records()[0];
    assert_eq!(first.outcome, Some(Observed::Timeout));
    assert!(first.end_ms.unwrap() >= 250);
    assert!(error.to_string().contains("the response was still pending when the last attempt timed out"), "{error}");
    assert_eq!(server_log(&path).await.len(), 1);
}

#[wasm_bindgen_test]
async fn an_abort_cancels_a_pending_sleep_at_once() {
    let path = runtime_path("abort-sleep");
    script(&path, None, r#"[{"status":503},{"status":200}]"#).await;
    let c = Client::new(policy(|p| p.base_delay_ms(20_000).max_delay_ms(20_000).deadline_ms(60_000)));
    let controller = web_sys::AbortController::new().unwrap();
    let options = CallOptions { signal: Some(controller.signal()), ..CallOptions::default() };
    later(300, move || controller.abort());
    let started = clock::now();
    let error = stopped(c.get(&url(&path), options).await);
    assert_eq!(error.reason(), Some(Reason::Aborted), "{error}");
    assert!(clock::now() - started < 10_000, "the 20 s sleep was cancelled");
    assert_eq!(error.records()[1].decision, Decision::Refused);
    assert_eq!(server_log(&path).await.len(), 1, "nothing sent after the abort");
}

#[wasm_bindgen_test]
async fn an_abort_cancels_the_request_in_flight() {
    let path = runtime_path("abort-flight");
    script(&path, None, r#"[{"action":"hang"}]"#).await;
    let c = Client::new(policy(|p| p.attempt_timeout_ms(20_000).deadline_ms(60_000)));
    let controller = web_sys::AbortController::new().unwrap();
    let options = CallOptions { signal: Some(controller.signal()), ..CallOptions::default() };
    later(200, move || controller.abort());
    let error = stopped(c.get(&url(&path), options).await);
    assert_eq!(error.reason(), Some(Reason::Aborted), "{error}");
    assert_eq!(error.records()[0].outcome, Some(Observed::Aborted));
}

#[wasm_bindgen_test]
async fn a_late_wake_is_refused_by_the_gate() {
    let path = runtime_path("late-wake");
    script(&path, None, r#"[{"status":503},{"status":200}]"#).await;
    // Planned: 503 at ~0, sleep 200 ms, retry by 200 + 1000 ≤ 2500. The thread then stalls 1.6 s.
    let c = Client::new(policy(|p| p.base_delay_ms(200).max_delay_ms(200).attempt_timeout_ms(1000).deadline_ms(2500)));
    later(60, || block_for(1600.0));
    let error = stopped(c.get(&url(&path), CallOptions::default()).await);
    assert_eq!(error.reason(), Some(Reason::Deadline), "the wake comes too late: {error}");
    let refused = &error.records()[1];
    assert_eq!(refused.decision, Decision::Refused);
    assert!(refused.remaining_ms < 1000, "less than one attempt timeout was left");
    assert_eq!(server_log(&path).await.len(), 1);
}

#[wasm_bindgen_test]
async fn retry_after_holds_the_scope_for_every_client_of_a_budget() {
    let held = runtime_path("hold-a");
    let other = runtime_path("hold-b");
    script(&held, None, r#"[{"status":429,"retryAfter":"1"},{"status":200}]"#).await;
    let budget = SharedBudget::from_config(BudgetConfig::default(), None);
    let quick = policy(|p| p.base_delay_ms(10).max_delay_ms(10));
    // B starts once A's client has taken in the 429 (its record), not when the server sent it.
    let a_heard = Rc::new(RefCell::new(false));
    let heard = a_heard.clone();
    let a = Client::builder()
        .policy(quick.clone())
        .budget(&budget)
        .on_attempt(move |r| *heard.borrow_mut() |= r.status == Some(429))
        .build();
    let b_records = Rc::new(RefCell::new(Vec::<AttemptRecord>::new()));
    let seen = b_records.clone();
    let b =
        Client::builder().policy(quick).budget(&budget).on_attempt(move |r| seen.borrow_mut().push(r.clone())).build();
    let first = {
        let (a, held) = (a.clone(), url(&held));
        wasm_bindgen_futures::future_to_promise(async move {
            a.get(&held, CallOptions::default()).await.map(JsValue::from).map_err(|e| e.to_string().into())
        })
    };
    // Let A's 429 arrive and be recorded, then start B in the same scope (the mock's origin).
    let log = loop {
        let log = server_log(&held).await;
        if *a_heard.borrow() && log.first().is_some_and(|e| e.1.is_finite()) {
            break log;
        }
    };
    b.get(&url(&other), CallOptions::default()).await.expect("B succeeds after the hold");
    JsFuture::from(first).await.expect("A succeeds after its wait");
    let b_log = server_log(&other).await;
    assert!(b_log[0].0 - log[0].1 >= 1000.0 - 1.0, "B waited for A's boundary: {}", b_log[0].0 - log[0].1);
    let first_of_b = &b_records.borrow()[0];
    assert!(first_of_b.provider_wait_ms > 0, "B's first request waited for the scope's hold: {first_of_b:?}");
}

#[wasm_bindgen_test]
async fn a_ban_refuses_every_client_of_the_budget_without_sending() {
    let banned = runtime_path("ban-a");
    let other = runtime_path("ban-b");
    script(&banned, None, r#"[{"status":418,"retryAfter":"60"}]"#).await;
    let budget = SharedBudget::from_config(BudgetConfig::default(), None);
    let a = Client::builder().budget(&budget).build();
    let b = Client::builder().budget(&budget).build();
    assert_eq!(stopped(a.get(&url(&banned), CallOptions::default()).await).reason(), Some(Reason::Banned));
    let error = stopped(b.get(&url(&other), CallOptions::default()).await);
    assert_eq!(error.reason(), Some(Reason::Banned), "{error}");
    assert_eq!(error.records().iter().filter(|r| r.is_sent()).count(), 0);
    assert_eq!(server_log(&other).await.len(), 0, "nothing reached the server");
}

#[wasm_bindgen_test]
fn the_monotonic_clock_never_goes_back() {
    let mut last = clock::now();
    for _ in 0..10_000 {
        let now = clock::now();
        assert!(now >= last);
        last = now;
    }
    assert!(clock::wall_now() > 1_700_000_000_000);
}

/// JSON parsed by the platform, as plain data (what `replay` reads its spec from).
fn loose(value: &JsValue) -> Loose {
    if value.is_null() || value.is_undefined() {
        Loose::Absent
    } else if let Some(b) = value.as_bool() {
        Loose::Bool(b)
    } else if let Some(x) = value.as_f64() {
        Loose::Number(x)
    } else if let Some(s) = value.as_string() {
        Loose::Text(s)
    } else if Array::is_array(value) {
        Loose::List(Array::from(value).iter().map(|v| loose(&v)).collect())
    } else {
        let keys = Object::keys(value.unchecked_ref::<Object>());
        Loose::Map(keys.iter().map(|k| (k.as_string().unwrap(), loose(&get(value, &k.as_string().unwrap())))).collect())
    }
}

#[wasm_bindgen_test]
fn the_worked_example_replays_in_wasm() {
    let spec = JSON::parse(include_str!("../../examples/worked_example.json")).expect("test JSON");
    let report = replay(ReplaySpec::from_options(&loose(&spec)).expect("the worked example's spec"));
    assert_eq!(report.wire_requests, 4);
    assert_eq!(report.stop.reason, Reason::Deadline);
    assert_eq!(report.stop.at_ms, 8400);
    let starts: Vec<u64> = report.records.iter().map(|r| r.start_ms).collect();
    assert_eq!(starts, vec![0, 1900, 4200, 6900, 10800]);
}

fn invalid_message(result: Result<web_sys::Response, Error>) -> (JsValue, String) {
    match result {
        Err(Error::Invalid(error)) => {
            let message = get(&error, "message").as_string().unwrap_or_default();
            (error, message)
        }
        other => panic!("expected an invalid call, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn invalid_options_are_errors_that_name_the_field_and_send_nothing() {
    let path = runtime_path("invalid");
    let c = Client::new(Policy::default());
    let (error, message) =
        invalid_message(c.get(&url(&path), CallOptions { weight: Some(0), ..CallOptions::default() }).await);
    assert!(error.is_instance_of::<js_sys::RangeError>() && message.contains("weight"), "{message}");
    let empty_key = CallOptions { key: Some(String::new()), ..CallOptions::default() };
    let (error, message) = invalid_message(c.get(&url(&path), empty_key).await);
    assert!(error.is_instance_of::<js_sys::RangeError>() && message.contains("key"), "{message}");
    // A URL `fetch` refuses is refused as `fetch` refuses it: the platform's own TypeError.
    let (error, _) = invalid_message(c.get("http://[", CallOptions::default()).await);
    assert!(error.is_instance_of::<js_sys::TypeError>(), "{error:?}");
    match Client::builder().store(&Object::new().into()) {
        Err(Error::Invalid(error)) => {
            let message = get(&error, "message").as_string().unwrap_or_default();
            assert!(error.is_instance_of::<js_sys::TypeError>() && message.contains("store"), "{message}");
        }
        _ => panic!("an object without get/set/delete is no store"),
    }
    assert_eq!(server_log(&path).await.len(), 0, "nothing was sent");
}

#[wasm_bindgen_test]
async fn a_token_budget_paces_concurrent_reads() {
    let path = runtime_path("paced");
    let config = BudgetConfig::builder().capacity(3).refill_per_second(5.0).reserve(0.0).build().unwrap();
    let c = Client::builder().budget(&SharedBudget::from_config(config, None)).build();
    // Before the first can be sent: delays on a busy machine only make the server's times later.
    let started = js_sys::Date::now();
    let calls: Vec<JsFuture> = (0..13)
        .map(|_| {
            let (c, target) = (c.clone(), url(&path));
            JsFuture::from(wasm_bindgen_futures::future_to_promise(async move {
                c.get(&target, CallOptions::default()).await.map(JsValue::from).map_err(|e| e.to_string().into())
            }))
        })
        .collect();
    for call in calls {
        call.await.expect("every read fits its 30 s deadline");
    }
    let mut arrivals: Vec<f64> = server_log(&path).await.iter().map(|e| e.0).collect();
    arrivals.sort_by(f64::total_cmp);
    assert_eq!(arrivals.len(), 13);
    // Three at once, then one every 200 ms: ten more take at least two seconds (the server's
    // clock and ours may differ by a few ms).
    let span = arrivals[12] - started;
    assert!(span >= 2000.0 - 25.0, "13 reads reached the server within {span} ms of the first call");
    assert!(arrivals[3] - started >= 200.0 - 25.0, "the fourth waited for a token");
}

/// A browser hides a cross-origin response's `Retry-After` unless the server exposes it (CORS):
/// the record then says "unreadable", not that there was none. Node has no origins: the same
/// response's header is read there.
#[wasm_bindgen_test]
async fn a_retry_after_hidden_by_cors_is_recorded_as_unreadable() {
    let hidden = runtime_path("cors-hidden");
    let hide = r#""headers":{"access-control-expose-headers":"Date"}"#;
    script(&hidden, None, &format!(r#"[{{"status":503,"retryAfter":0,{hide}}},{{"status":503,{hide}}}]"#)).await;
    let c = Client::new(policy(|p| p.max_attempts(2).base_delay_ms(10).max_delay_ms(10)));
    let error = stopped(c.get(&url(&hidden), CallOptions::default()).await);
    let expected = if crate::RUNTIME == "chrome" { RetryAfterForm::Unreadable } else { RetryAfterForm::Seconds };
    assert_eq!(error.records()[1].retry_after, Some(expected), "hidden Retry-After in {}", crate::RUNTIME);

    let exposed = runtime_path("cors-exposed");
    script(&exposed, None, r#"[{"status":503,"retryAfter":0},{"status":503}]"#).await;
    let error = stopped(c.get(&url(&exposed), CallOptions::default()).await);
    assert_eq!(
        error.records()[1].retry_after,
        Some(RetryAfterForm::Seconds),
        "exposed Retry-After in {}",
        crate::RUNTIME
    );
}

/// A JavaScript value made by `source` (the body of a function that returns it).
fn made(source: &str) -> JsValue {
    Function::new_no_args(source).call0(&JsValue::UNDEFINED).expect("test JavaScript")
}

/// Runs `call` with `globalThis.fetch` replaced by `fake` (tests run one at a time), then puts the
/// platform's back before anything is asserted.
async fn with_fetch<F: std::future::Future>(fake: &str, call: F) -> F::Output {
    let global = js_sys::global();
    let original = get(&global, "fetch");
    Reflect::set(&global, &"fetch".into(), &made(&format!("return () => {fake}"))).unwrap();
    let out = call.await;
    Reflect::set(&global, &"fetch".into(), &original).unwrap();
    out
}

/// Whatever `fetch` resolves with is read through guards: a getter or method that throws, or a
/// value that is no response, makes a failed attempt whose record says why — never a throw
/// through wasm, never a crashed instance.
#[wasm_bindgen_test]
async fn a_response_that_throws_as_it_is_read_is_a_failed_attempt_that_says_why() {
    let c = Client::new(policy(|p| p.max_attempts(1)));
    let cases = [
        ("Promise.resolve({ get status() { throw new Error('status boom') } })", "reading the response's status threw Error: status boom", false),
        ("Promise.resolve({ status: 503, headers: { get() { throw new TypeError('header boom') } } })", "reading the response's retry-after header threw TypeError: header boom", false),
        ("Promise.resolve(42)", "fetch resolved with a number, not a Response", false),
        ("Promise.resolve({ status: 0, headers: new Headers() })", "an opaque response (status 0) tells nothing of the outcome", false),
        ("Promise.resolve({ status: 200, headers: new Headers(), arrayBuffer: () => Promise.resolve(new ArrayBuffer(2)), get statusText() { throw new Error('face boom') } })", "reading the response's statusText threw Error: face boom", true),
        ("Promise.reject(new TypeError('offline', { cause: new Error('ECONNREFUSED') }))", "TypeError: offline (cause: Error: ECONNREFUSED)", false),
    ];
    for (fake, expected, read_body) in cases {
        let options = CallOptions { read_body: Some(read_body), ..CallOptions::default() };
        let error = stopped(with_fetch(fake, c.get("https://hostile.example/x", options)).await);
        let record = &error.records()[0];
        assert_eq!(error.reason(), Some(Reason::Attempts), "{fake}: {error}");
        assert_eq!(record.outcome, Some(Observed::NetworkError), "{fake}");
        assert_eq!(record.error.as_deref(), Some(expected), "{fake}");
    }
    // The instance is intact: a plain call still works.
    let path = runtime_path("after-hostile");
    c.get(&url(&path), CallOptions::default()).await.expect("the shell still works");
}

/// A store is the caller's object: what its methods throw (or a getter on them) is the call's
/// `store` reason or an invalid store, and an order whose state cannot be claimed is never sent.
#[wasm_bindgen_test]
async fn a_store_that_throws_stops_the_order_before_it_is_sent() {
    let unreadable = made("return { get get() { throw new Error('getter boom') }, set() {}, delete() {} }");
    match Client::builder().store(&unreadable) {
        Err(Error::Invalid(error)) => {
            let message = get(&error, "message").as_string().unwrap_or_default();
            assert!(message.contains("store.get") && message.contains("getter boom"), "{message}");
        }
        _ => panic!("a store whose get cannot be read is refused"),
    }
    let throwing = made("return { get() { throw new Error('get boom') }, set() {}, delete() {} }");
    let c = Client::builder().store(&throwing).expect("a store by its shape").build();
    let path = runtime_path("store-throws");
    let error = stopped(c.send("POST", &url(&path), &[], Some("{}"), CallOptions::order("store-throws")).await);
    assert_eq!(error.reason(), Some(Reason::Store), "{error}");
    assert!(error.to_string().contains("store.get failed: Error: get boom"), "{error}");
    assert_eq!(server_log(&path).await.len(), 0, "nothing was sent");
}

/// A late read is hedged after its delay: the hedge's answer wins, the slow request is dropped
/// (which aborts it), and the records say which won. In Chrome the hedge skips the HTTP cache,
/// whose lock would hold it behind the first request of the same URL until that one ended.
#[wasm_bindgen_test]
async fn a_late_read_is_hedged_and_the_faster_answer_wins() {
    let path = runtime_path("hedge");
    let slow_then_fast =
        r#"[{"status":200,"delayMs":1500,"body":{"price":"slow"}},{"status":200,"body":{"price":"fast"}}]"#;
    script(&path, None, slow_then_fast).await;
    let seen = Rc::new(RefCell::new(Vec::<AttemptRecord>::new()));
    let records = seen.clone();
    let c = Client::builder()
        .policy(policy(|p| p.max_hedges(1).hedge_after_ms(150)))
        .on_attempt(move |r| records.borrow_mut().push(r.clone()))
        .build();
    let response = c.get(&url(&path), CallOptions::default()).await.expect("the hedge answers");
    let body = response_json(response.into()).await;
    assert_eq!(get(&body, "price").as_string().as_deref(), Some("fast"), "in {}", crate::RUNTIME);
    let mut sent: Vec<_> =
        seen.borrow().iter().filter(|r| r.is_sent()).map(|r| (r.attempt, r.hedge, r.winner, r.start_ms)).collect();
    sent.sort_unstable();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!((sent[0].1, sent[0].2, sent[1].1, sent[1].2), (false, Some(2), true, Some(2)));
    assert!(sent[1].3 >= sent[0].3 + 150, "the hedge went after its delay: {sent:?}");
    assert_eq!(server_log(&path).await.len(), 2);
}

/// Records as the client's observer hands them out, and the observer that keeps them.
pub fn observed() -> (Rc<RefCell<Vec<AttemptRecord>>>, impl Fn(&AttemptRecord) + 'static) {
    let records = Rc::new(RefCell::new(Vec::new()));
    let kept = records.clone();
    (records, move |record: &AttemptRecord| kept.borrow_mut().push(record.clone()))
}

/// `should_retry` is asked only about a retry the core admitted, with the attempt's record, status
/// and response; `false` stops the call `non-retryable`, the refused record's limit `should-retry`.
/// 400, 400, 200 with one retry of a 400 allowed: two requests (the README's example).
#[wasm_bindgen_test]
async fn should_retry_may_decline_a_retry_the_core_admitted() {
    let path = runtime_path("should-retry");
    script(&path, None, r#"[{"status":400},{"status":400},{"status":200}]"#).await;
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    let c = Client::builder()
        .policy(policy(|p| p.base_delay_ms(5).max_delay_ms(5).max_attempts(5).retry_on(&[400, 429, 503])))
        .should_retry(move |context| {
            let status = context.response.as_ref().map(web_sys::Response::status);
            seen.borrow_mut().push((context.attempt, context.status, context.record.decision, status));
            async move { Ok(context.attempt < 2) }
        })
        .build();
    let error = stopped(c.get(&url(&path), CallOptions::default()).await);
    assert_eq!(error.reason(), Some(Reason::NonRetryable), "{error}");
    assert_eq!(server_log(&path).await.len(), 2);
    let sent = Decision::Sent;
    assert_eq!(*asked.borrow(), [(1, Some(400), sent, Some(400)), (2, Some(400), sent, Some(400))]);
    let last = error.records().last().cloned().expect("records");
    assert_eq!(
        (last.decision, last.reason, last.limit),
        (Decision::Refused, Some(Reason::NonRetryable), Some(Limit::ShouldRetry))
    );
    assert!(error.to_string().contains("policy.shouldRetry declined the retry"), "{error}");
}

/// A call's predicate wins over its family's, which wins over the client's; an `Err` declines with
/// its words in the record, and a predicate that never answers is cut by the deadline.
#[wasm_bindgen_test]
async fn a_calls_should_retry_wins_over_its_familys_and_one_that_hangs_is_cut_by_the_deadline() {
    let path = runtime_path("should-retry-layers");
    script(&path, None, r#"[{"status":503},{"status":503},{"status":200}]"#).await;
    let family = Family::new("vetoed", Match::url(&url(&path)))
        .should_retry(|_| async { Err("no retries on Fridays".to_owned()) });
    let c = Client::builder()
        .policy(policy(|p| p.base_delay_ms(5).max_delay_ms(5)))
        .should_retry(|_| async { Ok(true) })
        .families([family])
        .expect("a valid family")
        .build();
    let error = stopped(c.get(&url(&path), CallOptions::default()).await);
    assert_eq!(error.reason(), Some(Reason::NonRetryable), "the family's veto: {error}");
    let words = error.records().last().and_then(|r| r.error.clone()).unwrap_or_default();
    assert!(words.contains("no retries on Fridays"), "{words}");
    assert_eq!(server_log(&path).await.len(), 1);
    let own = CallOptions { should_retry: Some(ShouldRetry::new(|_| async { Ok(true) })), ..CallOptions::default() };
    c.get(&url(&path), own).await.expect("the call's own yes: 503, then 200");
    assert_eq!(server_log(&path).await.len(), 3);

    let hanging = runtime_path("should-retry-hangs");
    script(&hanging, None, r#"[{"status":503},{"status":200}]"#).await;
    let never = ShouldRetry::new(|_| std::future::pending::<Result<bool, String>>());
    let own = CallOptions {
        deadline_ms: Some(600),
        policy_fields: Some(Policy::builder().attempt_timeout_ms(200)),
        should_retry: Some(never),
        ..CallOptions::default()
    };
    let error = stopped(c.get(&url(&hanging), own).await);
    assert_eq!(error.reason(), Some(Reason::NonRetryable), "{error}");
    let words = error.records().last().and_then(|r| r.error.clone()).unwrap_or_default();
    assert!(words.contains("did not answer before the deadline"), "{words}");
    assert_eq!(server_log(&hanging).await.len(), 1);
}

/// A 429 with `RateLimit-Reset: 1` (exposed to a page by CORS) and no Retry-After: the retry waits
/// out the reset, and its record names the header. A family whose `provider_wait_headers` are
/// `["Retry-After"]` does not read it; a header the core does not read is refused, named.
#[wasm_bindgen_test]
async fn reset_headers_are_provider_waits_and_a_family_narrows_them() {
    let expose = r#""access-control-expose-headers":"RateLimit-Reset, Retry-After, Date""#;
    let reset_of = |seconds: u32| {
        format!(r#"[{{"status":429,"headers":{{"RateLimit-Reset":"{seconds}",{expose}}}}},{{"status":200}}]"#)
    };
    let quick = policy(|p| p.base_delay_ms(10).max_delay_ms(10));
    let path = runtime_path("reset");
    script(&path, None, &reset_of(1)).await;
    let (records, observer) = observed();
    let c = Client::builder().policy(quick.clone()).on_attempt(observer).build();
    c.get(&url(&path), CallOptions::default()).await.expect("after the reset");
    let log = server_log(&path).await;
    assert!(log[1].0 - log[0].1 >= 1000.0 - 1.0, "retried {} ms after a reset of 1 s", log[1].0 - log[0].1);
    assert_eq!(records.borrow()[1].retry_after, Some(RetryAfterForm::RateLimitReset));

    let narrowed = runtime_path("reset-narrowed");
    script(&narrowed, None, &reset_of(2)).await;
    let family =
        Family::new("trust Retry-After alone", Match::url(&url(&narrowed))).provider_wait_headers(&["Retry-After"]);
    let (records, observer) = observed();
    let c = Client::builder().policy(quick).on_attempt(observer).families([family]).expect("valid").build();
    c.get(&url(&narrowed), CallOptions::default()).await.expect("after the backoff");
    let log = server_log(&narrowed).await;
    assert!(log[1].0 - log[0].1 < 1500.0, "{} ms: the reset header is not the family's", log[1].0 - log[0].1);
    // A page cannot tell a Retry-After a cross-origin response lacks from one it hides.
    let unseen = if crate::RUNTIME == "chrome" { Some(RetryAfterForm::Unreadable) } else { None };
    assert_eq!(records.borrow()[1].retry_after, unseen, "in {}", crate::RUNTIME);
    assert_eq!(c.worksheet().rows[0].provider_wait_headers, ["retry-after"]);

    let unread = Family::new("x", Match::url("https://x.test/*")).provider_wait_headers(&["X-Wait-Ms"]);
    let error = Client::builder().families([unread]).err().expect("not a provider wait header");
    let message = error.to_string();
    assert!(message.contains(r#"providerWaitHeaders: "x-wait-ms" is not a header retryline reads"#), "{message}");
}

/// A family's policy and a call's are merged field by field over the client's: the family's 2
/// attempts with the call's 400 ms wait. A whole policy replaces every field; a merge that does
/// not hold names the field.
#[wasm_bindgen_test]
async fn a_familys_policy_and_a_calls_are_merged_field_by_field() {
    let path = runtime_path("merged");
    script(&path, None, r#"[{"status":503},{"status":503},{"status":503},{"status":503}]"#).await;
    let family = Family::new("two attempts", Match::url(&url(&path))).policy(Policy::builder().max_attempts(2));
    let client_policy = policy(|p| p.max_attempts(5).base_delay_ms(10).max_delay_ms(10));
    let c = Client::builder().policy(client_policy).families([family]).expect("valid").build();
    let slower = CallOptions {
        policy_fields: Some(Policy::builder().base_delay_ms(400).max_delay_ms(400)),
        ..CallOptions::default()
    };
    let error = stopped(c.get(&url(&path), slower).await);
    assert_eq!(error.reason(), Some(Reason::Attempts), "{error}");
    let log = server_log(&path).await;
    assert_eq!(log.len(), 2, "the family's 2 attempts");
    assert!(log[1].0 - log[0].1 >= 400.0 - 1.0, "the call's 400 ms wait: {} ms", log[1].0 - log[0].1);

    let whole = CallOptions { policy: Some(policy(|p| p.max_attempts(1))), ..CallOptions::default() };
    stopped(c.get(&url(&path), whole).await);
    assert_eq!(server_log(&path).await.len(), 3, "a whole policy: its one attempt");

    let below = CallOptions { policy_fields: Some(Policy::builder().max_delay_ms(1)), ..CallOptions::default() };
    let (error, message) = invalid_message(c.get(&url(&path), below).await);
    assert!(error.is_instance_of::<js_sys::RangeError>(), "{message}");
    assert!(message.starts_with(r#"fetch: family "two attempts": policy.maxDelayMs"#), "{message}");
    assert_eq!(server_log(&path).await.len(), 3, "nothing sent");
}
