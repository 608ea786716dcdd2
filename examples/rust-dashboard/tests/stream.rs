//! The typed client's streams against the mock exchange's WebSocket endpoint, in headless Chrome.
//! What reached the server is read from its own log (`/__mock/streams/connections`), with its own
//! timestamps: each test tags its connections (a query, or a path of its own) and counts only those.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Reflect};
use retryline::web::{Client, Message, Stream, StreamEvent, StreamOptions, StreamState};
use retryline::{Jitter, Observed, Policy, Reason};
use rust_dashboard::{trade, trades};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[allow(clippy::option_env_unwrap)] // a clear message when it was not set at build time
fn exchange() -> &'static str {
    option_env!("RETRYLINE_MOCK_URL").expect("RETRYLINE_MOCK_URL: the mock exchange's URL, at build time")
}

/// A plain `fetch` to the mock's control routes (not retried: this is the test's own wire).
async fn control(method: &str, path: &str, body: Option<&str>) -> JsValue {
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

/// One upgrade as the server logged it.
#[derive(Debug)]
struct Upgrade {
    outcome: String,
    status: Option<f64>,
    at: f64,
    closed_at: Option<f64>,
    close_code: Option<f64>,
}

/// The upgrades the server received at `path` whose query has `run=tag` (any, when `tag` is empty).
async fn upgrades(path: &str, tag: &str) -> Vec<Upgrade> {
    let log: Array =
        control("GET", &format!("/__mock/streams/connections?path={path}"), None).await.dyn_into().unwrap();
    let field = |entry: &JsValue, name: &str| Reflect::get(entry, &name.into()).unwrap();
    log.iter()
        .filter(|e| tag.is_empty() || field(&field(e, "query"), "run").as_string().as_deref() == Some(tag))
        .map(|e| Upgrade {
            outcome: field(&e, "outcome").as_string().unwrap(),
            status: field(&e, "status").as_f64(),
            at: field(&e, "at").as_f64().unwrap(),
            closed_at: field(&e, "closedAt").as_f64(),
            close_code: field(&e, "closeCode").as_f64(),
        })
        .collect()
}

/// Waits `ms` on the page's own timer.
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout: js_sys::Function =
            Reflect::get(&js_sys::global(), &"setTimeout".into()).unwrap().dyn_into().unwrap();
        set_timeout.call2(&JsValue::UNDEFINED, &resolve, &ms.into()).unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// Reads events until `done` says so (a stream that ends first fails the test).
async fn read_until(stream: &Stream, mut done: impl FnMut(&StreamEvent) -> bool) {
    while let Some(event) = stream.next().await {
        if done(&event) {
            return;
        }
    }
    panic!("the stream ended first");
}

/// A tag no other run of these tests uses.
fn tag(name: &str) -> String {
    format!("{name}-{}", js_sys::Date::now() as u64)
}

/// No jitter and one backoff length: the tests' schedules are exact.
fn reconnect_policy(backoff_ms: u64) -> Policy {
    Policy::builder()
        .base_delay_ms(backoff_ms)
        .max_delay_ms(backoff_ms)
        .jitter(Jitter::None)
        .attempt_timeout_ms(2_000)
        .deadline_ms(10_000)
        .build()
        .unwrap()
}

#[wasm_bindgen_test]
async fn ticks_arrive_a_server_drop_is_followed_by_one_reconnect_and_dropping_the_stream_closes_it() {
    let run = tag("drop");
    let options =
        StreamOptions { policy: Some(reconnect_policy(300)), min_uptime_ms: Some(200), ..StreamOptions::default() };
    let stream = trades(&Client::new(reconnect_policy(50)), exchange(), &format!("?run={run}"), options).unwrap();

    let mut seqs = Vec::new();
    read_until(&stream, |event| {
        if let StreamEvent::Message(message) = event {
            seqs.extend(trade(message).map(|t| t.seq));
        }
        seqs.len() >= 3
    })
    .await;
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "ticks in order: {seqs:?}");
    assert_eq!(stream.state(), StreamState::Open);
    assert!(stream.last_message_at().is_some());
    let first = upgrades("/ws/ticker", &run).await;
    assert_eq!(first.len(), 1, "one connection at the server: {first:?}");
    assert_eq!(first[0].outcome, "accepted");

    // Past minUptimeMs the connection is proven: its drop begins a new outage, a backoff first.
    sleep(300).await;
    let dropped = control("POST", "/__mock/streams/drop", Some(r#"{"code":1012}"#)).await;
    assert!(Reflect::get(&dropped, &"dropped".into()).unwrap().as_f64().unwrap() >= 1.0);
    let mut states = Vec::new();
    let mut after = Vec::new();
    read_until(&stream, |event| {
        match event {
            StreamEvent::State(state) => states.push(*state),
            StreamEvent::Message(message) if states.contains(&StreamState::Connecting) => {
                after.extend(trade(message).map(|t| t.seq))
            }
            _ => {}
        }
        after.len() >= 3
    })
    .await;
    assert_eq!(states, [StreamState::Waiting, StreamState::Connecting, StreamState::Open], "as the stream told it");
    let log = upgrades("/ws/ticker", &run).await;
    assert_eq!(log.len(), 2, "exactly one reconnect at the server: {log:?}");
    assert_eq!(log[0].close_code, Some(1012.0), "the server dropped the first");
    assert_eq!(log[1].outcome, "accepted");
    // Server-side: from the first connection closing to the second arriving, the 300 ms backoff.
    let gap = log[1].at - log[0].closed_at.unwrap();
    assert!(gap >= 250.0, "the reconnect came {gap} ms after the drop");
    assert!(after[0] > *seqs.last().unwrap(), "the market ran on: {seqs:?} then {after:?}");

    drop(stream);
    let mut closed = None;
    for _ in 0..40 {
        closed = upgrades("/ws/ticker", &run).await[1].closed_at;
        if closed.is_some() {
            break;
        }
        sleep(50).await;
    }
    assert!(closed.is_some(), "dropping the stream closed its socket, as the server saw");
    sleep(700).await; // longer than the backoff: a timer left armed would have reconnected
    assert_eq!(upgrades("/ws/ticker", &run).await.len(), 2, "nothing reconnected after the drop");
}

#[wasm_bindgen_test]
async fn a_refused_upgrade_is_retried_after_its_backoff_until_it_is_accepted_then_sends_are_echoed() {
    let path = format!("/ws/{}", tag("refused")); // any path but the ticker's echoes
    let script = format!(
        r#"{{"path":"{path}","behaviours":[{{"action":"refuse","status":503}},{{"action":"refuse","status":503}}]}}"#
    );
    control("POST", "/__mock/streams/script", Some(&script)).await;
    let records = Rc::new(RefCell::new(Vec::new()));
    let observed = records.clone();
    let client = Client::builder().on_attempt(move |r| observed.borrow_mut().push(r.clone())).build();
    let options =
        StreamOptions { policy: Some(reconnect_policy(150)), min_uptime_ms: Some(100), ..StreamOptions::default() };
    let stream = client.stream(&format!("{}{path}", exchange()), options).unwrap();
    read_until(&stream, |event| matches!(event, StreamEvent::State(StreamState::Open))).await;

    let log = upgrades(&path, "").await;
    assert!(log.len() >= 3, "{log:?}");
    let outcomes: Vec<_> = log.iter().take(3).map(|u| (u.outcome.as_str(), u.status)).collect();
    assert_eq!(outcomes, [("refused", Some(503.0)), ("refused", Some(503.0)), ("accepted", Some(101.0))]);
    for pair in log.windows(2).take(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(gap >= 140.0, "a retry came {gap} ms after the refusal before it");
    }
    // The accepted attempt is recorded once the connection is proven (up minUptimeMs).
    sleep(250).await;
    let statuses: Vec<_> = records.borrow().iter().filter(|r| r.is_sent()).map(|r| (r.outcome, r.status)).collect();
    let refused = (Some(Observed::NetworkError), None); // a browser shows no refused upgrade's status
    assert_eq!(statuses, [refused, refused, (Some(Observed::Response), Some(101))], "as the observer saw them");

    stream.send("hello").unwrap();
    read_until(&stream, |event| matches!(event, StreamEvent::Message(Message::Text(t)) if t == "hello")).await;
    let messages: Array =
        control("GET", &format!("/__mock/streams/messages?path={path}"), None).await.dyn_into().unwrap();
    assert_eq!(messages.length(), 1, "one message at the server");
}

#[wasm_bindgen_test]
async fn a_policy_violation_close_stops_the_stream_without_a_reconnect() {
    let path = format!("/ws/{}", tag("stop"));
    let script =
        format!(r#"{{"path":"{path}","behaviours":[{{"action":"accept","closeAfterMs":100,"closeCode":1008}}]}}"#);
    control("POST", "/__mock/streams/script", Some(&script)).await;
    let options = StreamOptions { policy: Some(reconnect_policy(50)), ..StreamOptions::default() };
    let stream = Client::new(reconnect_policy(50)).stream(&format!("{}{path}", exchange()), options).unwrap();
    let mut stopped = None;
    while let Some(event) = stream.next().await {
        if let StreamEvent::Stopped(error) = event {
            stopped = Some(error);
        }
    }
    let error = stopped.expect("a Stopped event, then the end");
    assert_eq!(error.reason(), Some(Reason::NonRetryable), "{error}");
    assert_eq!(stream.state(), StreamState::Stopped);
    assert_eq!(stream.send("late"), Err(retryline::web::NotOpen { state: StreamState::Stopped }));
    sleep(300).await;
    assert_eq!(upgrades(&path, "").await.len(), 1, "one connection at the server, never retried");
}

#[wasm_bindgen_test]
async fn a_silent_connection_turns_stale_then_is_replaced_by_a_new_one() {
    let path = format!("/ws/{}", tag("silent")); // an echo path: nothing comes unasked
    let options = StreamOptions {
        policy: Some(reconnect_policy(100)),
        min_uptime_ms: Some(100),
        stale_after_ms: Some(200),
        reconnect_after_stale_ms: Some(400),
        ..StreamOptions::default()
    };
    let stream = Client::new(reconnect_policy(50)).stream(&format!("{}{path}", exchange()), options).unwrap();
    let mut states = Vec::new();
    read_until(&stream, |event| {
        if let StreamEvent::State(state) = event {
            states.push(*state);
        }
        states.iter().filter(|s| **s == StreamState::Open).count() == 2
    })
    .await;
    let told =
        [StreamState::Open, StreamState::Stale, StreamState::Waiting, StreamState::Connecting, StreamState::Open];
    assert_eq!(states, told);
    assert!(stream.stale_for_ms() == 0);
    let log = upgrades(&path, "").await;
    assert_eq!(log.len(), 2, "{log:?}");
    // Server-side: the client closed the silent one (1000) 400 ms after it was accepted.
    assert_eq!(log[0].close_code, Some(1000.0));
    let up = log[0].closed_at.unwrap() - log[0].at;
    assert!((400.0..3_000.0).contains(&up), "replaced after {up} ms");
}

#[wasm_bindgen_test]
async fn an_old_connection_is_rotated_make_before_break() {
    let run = tag("rotate");
    let options = StreamOptions {
        policy: Some(reconnect_policy(100)),
        min_uptime_ms: Some(100),
        rotate_after_ms: Some(500),
        ..StreamOptions::default()
    };
    let stream = trades(&Client::new(reconnect_policy(50)), exchange(), &format!("?run={run}"), options).unwrap();
    let mut seqs = Vec::new();
    let mut states = Vec::new();
    let started = js_sys::Date::now();
    read_until(&stream, |event| {
        match event {
            StreamEvent::Message(message) => seqs.extend(trade(message).map(|t| t.seq)),
            StreamEvent::State(state) => states.push(*state),
            StreamEvent::Stopped(error) => panic!("{error}"),
            _ => {}
        }
        js_sys::Date::now() - started > 900.0
    })
    .await;
    assert_eq!(states, [StreamState::Open], "a rotation is no outage: {states:?}");
    // Both connections carry the tick at the switch: it may come twice (dedupe by seq), never lost.
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1 || w[1] == w[0]), "no tick lost across the switch: {seqs:?}");
    assert!(seqs.windows(2).filter(|w| w[1] == w[0]).count() <= 1, "one repeat at most: {seqs:?}");
    let log = upgrades("/ws/ticker", &run).await;
    assert_eq!(log.len(), 2, "{log:?}");
    let (old, new) = (&log[0], &log[1]);
    assert!(new.at < old.closed_at.unwrap(), "the new connection came before the old one went");
    assert_eq!(old.close_code, Some(1000.0), "closed by the client");
    assert!(new.closed_at.is_none(), "the new one carries the stream");
}
