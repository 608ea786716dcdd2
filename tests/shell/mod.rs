//! The real shell against real timers and a real `fetch`, shared by `web.rs` (headless
//! Chrome) and `node.rs` (Node). The mock exchange runs in another process; its URL is
//! compiled in from `RETRYLINE_MOCK_URL` (scripts/test.mjs sets it).

use js_sys::{Array, Function, Object, Promise, Reflect, JSON};
use retryline::web::{clock, replay_js, RetryClient, SharedBudget};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

fn mock_url() -> &'static str {
    option_env!("RETRYLINE_MOCK_URL").expect("RETRYLINE_MOCK_URL: run the wasm tests through `npm test`")
}

fn get(value: &JsValue, name: &str) -> JsValue {
    Reflect::get(value, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

fn json(text: &str) -> JsValue {
    JSON::parse(text).expect("test JSON")
}

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

/// Queues behaviours for `path` at the mock.
async fn script(path: &str, behaviours: &str) {
    let body = format!(r#"{{"path":"{path}","behaviours":{behaviours}}}"#);
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

fn client(options: &str) -> RetryClient {
    RetryClient::new(json(options)).expect("valid options")
}

/// Runs `client.fetch(url)`; Ok(response) or Err(RetryError).
async fn run(client: &RetryClient, path: &str, call: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(client.fetch(format!("{}{path}", mock_url()).into(), JsValue::UNDEFINED, call)).await
}

fn reason(error: &JsValue) -> String {
    get(error, "reason").as_string().unwrap_or_default()
}

fn records(error: &JsValue) -> Array {
    get(error, "records").dyn_into().unwrap_or_default()
}

/// Blocks the thread: what a busy main thread or a throttled tab does to timers.
fn block_for(ms: f64) {
    let until = js_sys::Date::now() + ms;
    while js_sys::Date::now() < until {}
}

pub fn runtime_path(test: &str) -> String {
    format!("/wasm/{}/{test}", crate::RUNTIME)
}

#[wasm_bindgen_test]
async fn backoff_sleeps_for_real() {
    let path = runtime_path("backoff");
    script(&path, r#"[{"status":503},{"status":200}]"#).await;
    let c = client(r#"{"policy":{"jitter":"none","baseDelayMs":300,"maxDelayMs":300,"attemptTimeoutMs":2000}}"#);
    let response = run(&c, &path, JsValue::UNDEFINED).await.expect("succeeds on the second attempt");
    assert_eq!(get(&response, "status").as_f64(), Some(200.0));
    let log = server_log(&path).await;
    assert_eq!(log.len(), 2, "two requests on the wire");
    assert!(log[1].0 - log[0].1 >= 300.0 - 1.0, "waited {} ms", log[1].0 - log[0].1);
}

#[wasm_bindgen_test]
async fn a_hanging_request_times_out_by_the_attempt_timeout() {
    let path = runtime_path("hang");
    script(&path, r#"[{"action":"hang"}]"#).await;
    let c = client(r#"{"policy":{"maxAttempts":1,"attemptTimeoutMs":250,"deadlineMs":5000}}"#);
    let started = clock::now();
    let error = run(&c, &path, JsValue::UNDEFINED).await.expect_err("times out");
    assert!(clock::now() - started >= 250);
    assert_eq!(reason(&error), "attempts");
    let first = records(&error).get(0);
    assert_eq!(get(&first, "outcome").as_string().as_deref(), Some("timeout"));
    assert!(get(&first, "endMs").as_f64().unwrap() >= 250.0);
    assert_eq!(server_log(&path).await.len(), 1);
}

#[wasm_bindgen_test]
async fn an_abort_cancels_a_pending_sleep_at_once() {
    let path = runtime_path("abort-sleep");
    script(&path, r#"[{"status":503},{"status":200}]"#).await;
    let c = client(r#"{"policy":{"jitter":"none","baseDelayMs":20000,"maxDelayMs":20000,"deadlineMs":60000}}"#);
    let controller = web_sys::AbortController::new().unwrap();
    let call = Object::new();
    Reflect::set(&call, &"signal".into(), &controller.signal()).unwrap();
    let pending = JsFuture::from(c.fetch(format!("{}{path}", mock_url()).into(), JsValue::UNDEFINED, call.into()));
    let abort_later = {
        let controller = controller.clone();
        Closure::once_into_js(move || controller.abort())
    };
    let set_timeout: Function = get(&js_sys::global(), "setTimeout").dyn_into().unwrap();
    set_timeout.call2(&JsValue::UNDEFINED, &abort_later, &300.into()).unwrap();
    let started = clock::now();
    let error = pending.await.expect_err("aborted");
    assert_eq!(reason(&error), "aborted");
    assert!(clock::now() - started < 10_000, "the 20 s sleep was cancelled");
    let refused = records(&error).get(1);
    assert_eq!(get(&refused, "decision").as_string().as_deref(), Some("refused"));
    assert_eq!(server_log(&path).await.len(), 1, "nothing sent after the abort");
}

#[wasm_bindgen_test]
async fn an_abort_cancels_the_request_in_flight() {
    let path = runtime_path("abort-flight");
    script(&path, r#"[{"action":"hang"}]"#).await;
    let c = client(r#"{"policy":{"attemptTimeoutMs":20000,"deadlineMs":60000}}"#);
    let controller = web_sys::AbortController::new().unwrap();
    let call = Object::new();
    Reflect::set(&call, &"signal".into(), &controller.signal()).unwrap();
    let pending = JsFuture::from(c.fetch(format!("{}{path}", mock_url()).into(), JsValue::UNDEFINED, call.into()));
    let set_timeout: Function = get(&js_sys::global(), "setTimeout").dyn_into().unwrap();
    let abort = Closure::once_into_js(move || controller.abort());
    set_timeout.call2(&JsValue::UNDEFINED, &abort, &200.into()).unwrap();
    let error = pending.await.expect_err("aborted");
    assert_eq!(reason(&error), "aborted");
    assert_eq!(get(&records(&error).get(0), "outcome").as_string().as_deref(), Some("aborted"));
}

#[wasm_bindgen_test]
async fn a_late_wake_is_refused_by_the_gate() {
    let path = runtime_path("late-wake");
    script(&path, r#"[{"status":503},{"status":200}]"#).await;
    // Planned: 503 at ~0, sleep 200 ms, retry by 200 + 1000 ≤ 2500. The thread then stalls 1.6 s.
    let c = client(
        r#"{"policy":{"jitter":"none","baseDelayMs":200,"maxDelayMs":200,"attemptTimeoutMs":1000,"deadlineMs":2500}}"#,
    );
    let pending =
        JsFuture::from(c.fetch(format!("{}{path}", mock_url()).into(), JsValue::UNDEFINED, JsValue::UNDEFINED));
    let stall = Closure::once_into_js(move || block_for(1600.0));
    let set_timeout: Function = get(&js_sys::global(), "setTimeout").dyn_into().unwrap();
    set_timeout.call2(&JsValue::UNDEFINED, &stall, &60.into()).unwrap();
    let error = pending.await.expect_err("the wake comes too late");
    assert_eq!(reason(&error), "deadline");
    let refused = records(&error).get(1);
    assert_eq!(get(&refused, "decision").as_string().as_deref(), Some("refused"));
    assert!(get(&refused, "remainingMs").as_f64().unwrap() < 1000.0, "less than one attempt timeout was left");
    assert_eq!(server_log(&path).await.len(), 1);
}

#[wasm_bindgen_test]
async fn retry_after_holds_the_scope_for_every_client_of_a_budget() {
    let held = runtime_path("hold-a");
    let other = runtime_path("hold-b");
    script(&held, r#"[{"status":429,"retryAfter":"1"},{"status":200}]"#).await;
    let budget = SharedBudget::new(JsValue::UNDEFINED).unwrap();
    let options = Object::new();
    Reflect::set(&options, &"budget".into(), &JsValue::from(budget)).unwrap();
    let budget_js = get(&options, "budget");
    Reflect::set(&options, &"policy".into(), &json(r#"{"baseDelayMs":10,"maxDelayMs":10}"#)).unwrap();
    let a = RetryClient::new(options.clone().into()).unwrap();
    let b = RetryClient::new(options.into()).unwrap();
    let first = JsFuture::from(a.fetch(format!("{}{held}", mock_url()).into(), JsValue::UNDEFINED, JsValue::UNDEFINED));
    // Let A's 429 arrive, then start B in the same scope (the mock's origin).
    let log = loop {
        let log = server_log(&held).await;
        if log.first().is_some_and(|e| e.1.is_finite()) {
            break log;
        }
    };
    let snapshot = get(&budget_js, "snapshot").dyn_into::<Function>().unwrap().call0(&budget_js).unwrap();
    let scopes: Array = snapshot.dyn_into().unwrap();
    assert!(get(&scopes.get(0), "holdRemainingMs").as_f64().unwrap() > 0.0, "the scope is held");
    run(&b, &other, JsValue::UNDEFINED).await.expect("B succeeds after the hold");
    first.await.expect("A succeeds after its wait");
    let b_log = server_log(&other).await;
    assert!(b_log[0].0 - log[0].1 >= 1000.0 - 1.0, "B waited for A's boundary: {}", b_log[0].0 - log[0].1);
}

#[wasm_bindgen_test]
async fn a_ban_refuses_every_client_of_the_budget_without_sending() {
    let banned = runtime_path("ban-a");
    let other = runtime_path("ban-b");
    script(&banned, r#"[{"status":418,"retryAfter":"60"}]"#).await;
    let budget = JsValue::from(SharedBudget::new(JsValue::UNDEFINED).unwrap());
    let options = Object::new();
    Reflect::set(&options, &"budget".into(), &budget).unwrap();
    let a = RetryClient::new(options.clone().into()).unwrap();
    let b = RetryClient::new(options.into()).unwrap();
    assert_eq!(reason(&run(&a, &banned, JsValue::UNDEFINED).await.unwrap_err()), "banned");
    let error = run(&b, &other, JsValue::UNDEFINED).await.unwrap_err();
    assert_eq!(reason(&error), "banned");
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

#[wasm_bindgen_test]
fn the_worked_example_replays_in_wasm() {
    let spec = json(include_str!("../../examples/worked_example.json"));
    let report = replay_js(spec).unwrap();
    assert_eq!(get(&report, "wireRequests").as_f64(), Some(4.0));
    let stop = get(&report, "stop");
    assert_eq!(get(&stop, "reason").as_string().as_deref(), Some("deadline"));
    assert_eq!(get(&stop, "atMs").as_f64(), Some(8400.0));
    let starts: Vec<f64> = get(&report, "records")
        .dyn_into::<Array>()
        .unwrap()
        .iter()
        .map(|r| get(&r, "startMs").as_f64().unwrap())
        .collect();
    assert_eq!(starts, vec![0.0, 1900.0, 4200.0, 6900.0, 10800.0]);
}

#[wasm_bindgen_test]
fn invalid_options_throw_errors_that_name_the_field() {
    let error = RetryClient::new(json(r#"{"policy":{"maxAttempts":0}}"#)).err().expect("invalid");
    assert!(error.is_instance_of::<js_sys::RangeError>());
    assert!(get(&error, "message").as_string().unwrap().contains("policy.maxAttempts"));
    let error = RetryClient::new(json(r#"{"retries":3}"#)).err().expect("invalid");
    assert!(error.is_instance_of::<js_sys::TypeError>());
    assert!(get(&error, "message").as_string().unwrap().contains("retries"));
}

#[wasm_bindgen_test]
async fn a_token_budget_paces_concurrent_reads() {
    let path = runtime_path("paced");
    let options = Object::new();
    let budget = SharedBudget::new(json(r#"{"capacity":3,"refillPerSecond":5,"reserve":0}"#)).unwrap();
    Reflect::set(&options, &"budget".into(), &JsValue::from(budget)).unwrap();
    let c = RetryClient::new(options.into()).unwrap();
    let calls: Vec<JsFuture> = (0..13)
        .map(|_| {
            JsFuture::from(c.fetch(format!("{}{path}", mock_url()).into(), JsValue::UNDEFINED, JsValue::UNDEFINED))
        })
        .collect();
    for call in calls {
        call.await.expect("every read fits its 30 s deadline");
    }
    let mut arrivals: Vec<f64> = server_log(&path).await.iter().map(|e| e.0).collect();
    arrivals.sort_by(f64::total_cmp);
    assert_eq!(arrivals.len(), 13);
    // Three at once, then one every 200 ms: ten more take at least two seconds.
    let span = arrivals[12] - arrivals[0];
    assert!(span >= 2000.0 - 50.0, "13 reads reached the server within {span} ms");
    assert!(arrivals[3] - arrivals[0] >= 150.0, "the fourth waited for a token");
}

/// A browser hides a cross-origin response's `Retry-After` unless the server exposes it (CORS):
/// the record then says "unreadable", not that there was none. Node has no origins: the same
/// response's header is read there.
#[wasm_bindgen_test]
async fn a_retry_after_hidden_by_cors_is_recorded_as_unreadable() {
    let hidden = runtime_path("cors-hidden");
    let hide = r#""headers":{"access-control-expose-headers":"Date"}"#;
    script(&hidden, &format!(r#"[{{"status":503,"retryAfter":0,{hide}}},{{"status":503,{hide}}}]"#)).await;
    let c = client(r#"{"policy":{"maxAttempts":2,"baseDelayMs":10,"maxDelayMs":10}}"#);
    let error = run(&c, &hidden, JsValue::UNDEFINED).await.expect_err("two 503s");
    let form = get(&records(&error).get(1), "retryAfter").as_string();
    let expected = if crate::RUNTIME == "chrome" { "unreadable" } else { "seconds" };
    assert_eq!(form.as_deref(), Some(expected), "hidden Retry-After in {}", crate::RUNTIME);

    let exposed = runtime_path("cors-exposed");
    script(&exposed, r#"[{"status":503,"retryAfter":0},{"status":503}]"#).await;
    let error = run(&c, &exposed, JsValue::UNDEFINED).await.expect_err("two 503s");
    let form = get(&records(&error).get(1), "retryAfter").as_string();
    assert_eq!(form.as_deref(), Some("seconds"), "exposed Retry-After in {}", crate::RUNTIME);
}
