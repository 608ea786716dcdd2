//! The Rust API's streams against the mock exchange's WebSocket endpoint: `on_open`, `resync`,
//! `heartbeat` and `send_per_second`, each judged by the server's own log of connections and
//! messages (`/__mock/streams/…`), with its own timestamps. Each test has a path or a `run` tag of
//! its own. A runtime without a global `WebSocket` (Node 20 without `--experimental-websocket`)
//! skips them, saying so.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, Object, Promise, Reflect};
use retryline::budget::BudgetConfig;
use retryline::record::Decision;
use retryline::web::{
    clock, CallOptions, Client, Heartbeat, Message, OnOpen, Resync, SharedBudget, Stream, StreamEvent, StreamOptions,
    StreamState,
};
use retryline::{Jitter, Policy};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

use super::{get, global_fetch, mock_url, observed, response_json, runtime_path, script, url};

/// Whether this runtime has a WebSocket to stream with.
pub fn sockets() -> bool {
    let here = get(&js_sys::global(), "WebSocket").is_function();
    if !here {
        console_log!("skipped: no global WebSocket here (Node 20: NODE_OPTIONS=--experimental-websocket)");
    }
    here
}

/// A control request to the mock's stream side.
pub async fn control(method: &str, route: &str, body: Option<&str>) -> JsValue {
    let init = Object::new();
    Reflect::set(&init, &"method".into(), &method.into()).unwrap();
    if let Some(body) = body {
        Reflect::set(&init, &"body".into(), &body.into()).unwrap();
    }
    response_json(global_fetch(&format!("{}/__mock/streams/{route}", mock_url()), &init).await).await
}

/// One upgrade the server logged: its id, when it came and closed, whether it was accepted.
pub struct Upgrade {
    pub id: f64,
    pub at: f64,
    pub closed_at: Option<f64>,
    pub accepted: bool,
}

/// The upgrades at `path` tagged `run=tag` (any, when `tag` is empty).
pub async fn upgrades(path: &str, tag: &str) -> Vec<Upgrade> {
    let log: Array = control("GET", &format!("connections?path={path}"), None).await.dyn_into().unwrap();
    log.iter()
        .filter(|e| tag.is_empty() || get(&get(e, "query"), "run").as_string().as_deref() == Some(tag))
        .map(|e| Upgrade {
            id: get(&e, "id").as_f64().unwrap(),
            at: get(&e, "at").as_f64().unwrap(),
            closed_at: get(&e, "closedAt").as_f64(),
            accepted: get(&e, "outcome").as_string().as_deref() == Some("accepted"),
        })
        .collect()
}

/// The messages the server received at `path`: (connection id, receivedAt, data).
async fn received(path: &str) -> Vec<(f64, f64, String)> {
    let log: Array = control("GET", &format!("messages?path={path}"), None).await.dyn_into().unwrap();
    let read = |e: &JsValue| {
        (get(e, "connection").as_f64().unwrap(), get(e, "at").as_f64().unwrap(), get(e, "data").as_string().unwrap())
    };
    log.iter().map(|e| read(&e)).collect()
}

pub async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| super::later(ms, move || drop(resolve.call0(&JsValue::UNDEFINED))));
    JsFuture::from(promise).await.unwrap();
}

/// Reads events until `done` says so; a stream that stops or ends first fails the test.
pub async fn read_until(stream: &Stream, mut done: impl FnMut(&StreamEvent) -> bool) {
    while let Some(event) = stream.next().await {
        if let StreamEvent::Stopped(error) = &event {
            panic!("the stream stopped: {error}");
        }
        if done(&event) {
            return;
        }
    }
    panic!("the stream ended first");
}

/// Polls the server's log of `path` until it holds `count` messages (8 s at most).
async fn until_received(path: &str, count: usize) -> Vec<(f64, f64, String)> {
    for _ in 0..80 {
        let log = received(path).await;
        if log.len() >= count {
            return log;
        }
        sleep(100).await;
    }
    panic!("the server never received {count} messages at {path}");
}

pub fn tag(name: &str) -> String {
    format!("{}-{name}-{}", crate::RUNTIME, js_sys::Date::now() as u64)
}

/// No jitter, one backoff length: the schedules are exact.
pub fn reconnects(backoff_ms: u64) -> Policy {
    let policy = Policy::builder().base_delay_ms(backoff_ms).max_delay_ms(backoff_ms).jitter(Jitter::None);
    policy.attempt_timeout_ms(2_000).deadline_ms(10_000).build().unwrap()
}

pub fn is_trade(event: &StreamEvent) -> bool {
    matches!(event, StreamEvent::Message(Message::Text(t)) if t.contains(r#""e":"trade""#))
}

#[wasm_bindgen_test]
async fn on_open_resubscribes_on_every_open_and_a_failed_one_is_that_attempts_failure() {
    if !sockets() {
        return;
    }
    let run = tag("on-open");
    let opens = Rc::new(Cell::new(0));
    let counted = opens.clone();
    // The first open fails: its attempt is retried like a refused one; each later one subscribes.
    let on_open = OnOpen::new(move |connection| {
        counted.set(counted.get() + 1);
        let n = counted.get();
        async move {
            if n == 1 {
                return Err("not today".to_owned());
            }
            let subscribe = format!(r#"{{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":{n}}}"#);
            connection.send(&subscribe).map_err(|e| e.to_string())
        }
    });
    let (records, observer) = observed();
    let client = Client::builder().on_attempt(observer).build();
    let options = StreamOptions {
        policy: Some(reconnects(100)),
        min_uptime_ms: Some(100),
        on_open: Some(on_open),
        ..StreamOptions::default()
    };
    let stream = client.stream(&url(&format!("/stream?run={run}")), options).unwrap();
    // Ticks come on the combined path only after a SUBSCRIBE on that connection.
    read_until(&stream, is_trade).await;
    sleep(150).await; // up its minimum uptime: the drop begins a new outage
    control("POST", "drop", Some(r#"{"code":1012}"#)).await;
    let mut reopened = false;
    read_until(&stream, |event| {
        reopened |= matches!(event, StreamEvent::State(StreamState::Connecting));
        reopened && is_trade(event)
    })
    .await;
    sleep(150).await; // the reconnect proven: its record is made
    drop(stream);

    let upgrades = upgrades("/stream", &run).await;
    assert_eq!(upgrades.len(), 3, "a failed onOpen, its retry, the reconnect after the drop");
    let subscribed: Vec<f64> = received("/stream")
        .await
        .into_iter()
        .filter(|(_, _, data)| data.contains("SUBSCRIBE"))
        .map(|(connection, ..)| connection)
        .filter(|connection| upgrades.iter().any(|u| u.id == *connection))
        .collect();
    let opened: Vec<f64> = upgrades[1..].iter().map(|u| u.id).collect();
    assert_eq!(subscribed, opened, "one SUBSCRIBE on each connection onOpen succeeded on");
    assert_eq!(opens.get(), 3);
    let sent: Vec<_> = records.borrow().iter().filter(|r| r.decision == Decision::Sent).map(|r| r.status).collect();
    assert_eq!(sent, [None, Some(101), Some(101)], "the failed onOpen is a failed attempt");
    let first = records.borrow()[0].error.clone().unwrap_or_default();
    assert!(first.contains("onOpen failed: not today"), "{first}");
}

#[wasm_bindgen_test]
async fn the_stream_is_stale_until_resync_resolves_after_an_open_and_after_a_gap() {
    if !sockets() {
        return;
    }
    let run = tag("resync");
    let resyncs = Rc::new(Cell::new(0));
    // When each resync began, taken inside it: the test's reader of events may run late on a busy machine.
    let began = Rc::new(Cell::new(0_u64));
    let (counted, begins) = (resyncs.clone(), began.clone());
    let resync = Resync::new(move || {
        counted.set(counted.get() + 1);
        begins.set(clock::now());
        async {
            sleep(400).await;
            Ok(())
        }
    });
    let options = StreamOptions { min_uptime_ms: Some(100), resync: Some(resync), ..StreamOptions::default() };
    let stream = Client::new(reconnects(100)).stream(&url(&format!("/ws/ticker?run={run}")), options).unwrap();

    // Each round: stale from the resync's start until it resolves, messages delivered meanwhile.
    for round in 1..=2 {
        if round == 2 {
            stream.gap();
        }
        let (mut stale_at, mut ticks_while_stale) = (None, 0);
        read_until(&stream, |event| match event {
            StreamEvent::State(StreamState::Stale) => {
                stale_at = Some(clock::now());
                false
            }
            StreamEvent::Message(_) if stale_at.is_some() => {
                ticks_while_stale += 1;
                false
            }
            StreamEvent::State(StreamState::Open) => stale_at.is_some(),
            _ => false,
        })
        .await;
        assert!(stale_at.is_some(), "round {round}: stale before open again");
        let stale_for = clock::now() - began.get();
        assert!(stale_for >= 390, "round {round}: open again {stale_for} ms after the resync began");
        assert!(ticks_while_stale > 0, "round {round}: ticks were delivered while stale");
        assert_eq!(resyncs.get(), round);
    }
    assert_eq!(upgrades("/ws/ticker", &run).await.len(), 1, "a gap is no reconnect");
}

#[wasm_bindgen_test]
async fn a_heartbeat_pings_after_its_period_of_silence() {
    if !sockets() {
        return;
    }
    let path = format!("/ws/{}", tag("heartbeat")); // an echo path: nothing comes unasked
    let id = Rc::new(Cell::new(0));
    let ping = Heartbeat::with(300, move || {
        id.set(id.get() + 1);
        Some(Message::Text(format!(r#"{{"method":"ping","id":{}}}"#, id.get())))
    });
    let options = StreamOptions { heartbeat: Some(ping), ..StreamOptions::default() };
    let stream = Client::new(reconnects(100)).stream(&url(&path), options).unwrap();
    let mut pongs = 0;
    read_until(&stream, |event| {
        pongs += usize::from(matches!(event, StreamEvent::Message(Message::Text(t)) if t.contains("pong")));
        pongs == 2
    })
    .await;
    drop(stream);
    let (opened, pings) = (upgrades(&path, "").await, received(&path).await);
    assert_eq!(opened.len(), 1);
    assert_eq!(pings.len(), 2, "{pings:?}");
    assert!(pings[0].2.contains(r#""id":1"#) && pings[1].2.contains(r#""id":2"#));
    // Server-side: the first after 300 ms of silence from the open; the next after 300 ms more
    // (a pong is heard, so the period after it passes without one).
    let first = pings[0].1 - opened[0].at;
    assert!(first >= 295.0, "the first ping came {first} ms after the upgrade");
    let next = pings[1].1 - pings[0].1;
    assert!(next >= 295.0, "pings {next} ms apart");
}

#[wasm_bindgen_test]
async fn a_stream_on_a_budget_shared_across_tabs_steps_inside_the_share_and_lets_it_go() {
    if !sockets() {
        return;
    }
    let run = tag("shared");
    // Web Locks and IndexedDB in a page; elsewhere the budget is this realm's, and this still holds.
    let budget = SharedBudget::from_config(BudgetConfig::default(), Some(&format!("rust-{run}")));
    let client = Client::builder().policy(reconnects(100)).budget(&budget).build();
    let options = StreamOptions { min_uptime_ms: Some(100), ..StreamOptions::default() };
    let stream = client.stream(&url(&format!("/ws/ticker?run={run}")), options).unwrap();
    read_until(&stream, is_trade).await;
    sleep(150).await; // proven: a step on the share
    drop(stream); // its close is a step on the share too
    let mut closed = false;
    for _ in 0..40 {
        closed = upgrades("/ws/ticker", &run).await.first().is_some_and(|u| u.closed_at.is_some());
        if closed {
            break;
        }
        sleep(50).await;
    }
    assert!(closed, "dropping the stream closed its socket, as the server saw");
    // No lock is left held: a call on the share goes at once.
    let path = runtime_path("after-a-shared-stream");
    script(&path, None, r#"[{"status":200}]"#).await;
    let started = clock::now();
    assert_eq!(client.get(&url(&path), CallOptions::default()).await.map(|r| r.status()).ok(), Some(200));
    let took = clock::now() - started;
    assert!(took < 1_000, "the call waited {took} ms for the share");
}

/// What delivery over loopback may shift a message by on a loaded machine (ms): 74 seen, beside two
/// spin loops; the bounds that prove the pacing do not depend on it.
const TRANSPORT_MS: f64 = 250.0;

/// The most of `times` (ms, ascending) inside any window of `window_ms`.
fn most_within(times: &[f64], window_ms: f64) -> usize {
    (0..times.len()).map(|i| times[i..].iter().take_while(|&&t| t < times[i] + window_ms).count()).max().unwrap_or(0)
}

#[wasm_bindgen_test]
async fn sends_are_paced_to_send_per_second_as_the_server_counts_them() {
    if !sockets() {
        return;
    }
    let path = format!("/ws/{}", tag("pace"));
    // When the sends were handed over (the server's clock is this one): none can arrive before it.
    let handed = Rc::new(Cell::new(f64::INFINITY));
    let at_open = handed.clone();
    let on_open = OnOpen::new(move |connection| {
        at_open.set(at_open.get().min(js_sys::Date::now()));
        async move {
            for i in 0..12 {
                connection.send(&format!(r#"{{"method":"ping","id":{i}}}"#)).map_err(|e| e.to_string())?;
            }
            Ok(())
        }
    });
    let options = StreamOptions { send_per_second: Some(5), on_open: Some(on_open), ..StreamOptions::default() };
    let stream = Client::new(reconnects(100)).stream(&url(&path), options).unwrap();
    let log = until_received(&path, 12).await;
    drop(stream);
    let ids: Vec<String> = log.iter().map(|(.., data)| data.clone()).collect();
    let sent: Vec<String> = (0..12).map(|i| format!(r#"{{"method":"ping","id":{i}}}"#)).collect();
    assert_eq!(ids, sent, "every send, in order");
    let at: Vec<f64> = log.iter().map(|(_, at, _)| *at).collect();
    // The k-th send may leave only after k / 5 whole seconds: no delivery, late or not, arrives
    // before it left (the old bucket let 9 into the first second). 1 ms for the clocks' rounding.
    let start = handed.get();
    for (k, arrived) in at.iter().enumerate() {
        let earliest = start + 1_000.0 * (k / 5) as f64 - 1.0;
        assert!(
            *arrived >= earliest,
            "send {k} arrived {} ms after the sends were handed over: {at:?}",
            arrived - start
        );
    }
    // The server's windows too, less what lag on a loaded machine can bunch a late first batch
    // towards the next by (seen: 74 ms beside two spin loops).
    assert_eq!(most_within(&at, 1_000.0 - TRANSPORT_MS), 5, "at most 5 in any second at the server: {at:?}");
    assert!(upgrades(&path, "").await.iter().all(|u| u.accepted));
}

#[wasm_bindgen_test]
fn stream_options_are_checked_naming_the_field() {
    let client = Client::new(reconnects(100));
    let cases = [
        (StreamOptions { heartbeat: Some(Heartbeat::new(0, "ping")), ..StreamOptions::default() }, "heartbeat.everyMs"),
        (StreamOptions { send_per_second: Some(0), ..StreamOptions::default() }, "sendPerSecond"),
    ];
    for (options, field) in cases {
        let error = client.stream(&url("/ws/ticker"), options).map(|_| ()).unwrap_err();
        let message = error.to_string();
        assert!(message.starts_with("RangeError: stream options: ") && message.contains(field), "{message}");
    }
}
