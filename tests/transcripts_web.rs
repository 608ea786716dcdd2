//! The transcript suite, through the Rust executor: `wasm-pack test --node --test transcripts_web`.
//! Each transcript of tests/transcripts/*.json runs through the Rust API (`retryline::web`:
//! `Client`, `CallOptions`, `reconcile`, `stream`) in the world it scripts
//! (tests/transcripts/world.mjs, the same the JavaScript executor runs in: a virtual clock, a
//! scripted fetch, WebSocket, store and callbacks) and must give exactly the log and the records it
//! lists — what the core's machines give natively (tests/transcripts.rs) and the JavaScript executor
//! gives in Node (tests/js/transcripts.test.mjs).
//!
//! What the caller does and hears is logged as the JavaScript runner logs it: a stream's events by
//! its `on_event` listener (told as they happen, as JavaScript's listeners are). One difference of
//! API: a Rust stream tells its end by `StreamEvent::Stopped` (stopped by its policy) or by its
//! events ending (closed by its caller), where JavaScript dispatches `state` "stopped" and a `stop`
//! event; both are written here as the JavaScript listeners write them.
//!
//! The files are compiled in (a wasm test reads no directory): a new one is added below.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use retryline::budget::BudgetConfig;
use retryline::reconcile::reconciliation_policy;
use retryline::web::{
    CallOptions, Client, ClientBuilder, Error, Heartbeat, Message, OnEvent, OnOpen, PageSignal, Resync, SharedBudget,
    StreamEvent, StreamOptions,
};
use retryline::{AttemptRecord, Evidence, Loose, OperationKind, Policy};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

#[wasm_bindgen(module = "/tests/transcripts/world.mjs")]
extern "C" {
    /// The world of one transcript: `world(t)` in world.mjs.
    type World;
    #[wasm_bindgen(js_name = world)]
    fn world_of(t: &JsValue) -> World;
    #[wasm_bindgen(method)]
    fn install(this: &World);
    #[wasm_bindgen(method)]
    fn uninstall(this: &World);
    #[wasm_bindgen(method)]
    fn note(this: &World, line: &str);
    /// Runs `start` (a promise of the outcome's line) on the virtual clock; a promise of the log.
    #[wasm_bindgen(method)]
    fn run(this: &World, start: &Function) -> Promise;
    #[wasm_bindgen(method, getter)]
    fn store(this: &World) -> JsValue;
    #[wasm_bindgen(method, catch, js_name = shouldRetry)]
    fn should_retry(this: &World, context: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn query(this: &World, context: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn resync(this: &World) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, js_name = abortSignal)]
    fn abort_signal(this: &World) -> Option<web_sys::AbortSignal>;
}

#[wasm_bindgen]
extern "C" {
    /// The global `setTimeout` as it is when called: the world's virtual one during a transcript.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(f: &JsValue, ms: f64) -> JsValue;
}

/// The records the client's observer was given, as JSON.
type Records = Rc<RefCell<Vec<Value>>>;

/// A JSON value as the core reads options.
fn loose(value: &Value) -> Loose {
    match value {
        Value::Null => Loose::Absent,
        Value::Bool(b) => Loose::Bool(*b),
        Value::Number(n) => Loose::Number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Loose::Text(s.clone()),
        Value::Array(items) => Loose::List(items.iter().map(loose).collect()),
        Value::Object(map) => Loose::Map(map.iter().map(|(k, v)| (k.clone(), loose(v))).collect()),
    }
}

/// The fields of an object in a transcript (none for an absent one).
fn fields(value: &Value) -> impl Iterator<Item = (&str, &Value)> {
    value.as_object().into_iter().flatten().map(|(k, v)| (k.as_str(), v))
}

fn number(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("{value} is no whole number"))
}

/// What a thrown value says as JavaScript's `String(error)` does ("Error: disk full").
fn said(thrown: &JsValue) -> String {
    match thrown.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.to_string()),
        None => thrown.as_string().unwrap_or_else(|| format!("{thrown:?}")),
    }
}

/// What a scripted callback came to: its value, at once or once its promise settles; or what it
/// threw or rejected with.
async fn settled(answer: Result<JsValue, JsValue>) -> Result<JsValue, String> {
    let value = answer.map_err(|e| said(&e))?;
    JsFuture::from(Promise::resolve(&value)).await.map_err(|e| said(&e))
}

/// `{ attempt }`, what the world's `shouldRetry` and `query` read.
fn attempt_context(attempt: u32) -> JsValue {
    let context = Object::new();
    Reflect::set(&context, &"attempt".into(), &attempt.into()).expect("an object takes a field");
    context.into()
}

/// Runs `f` after `ms` on the global (virtual) clock.
fn later(ms: u64, f: impl FnOnce() + 'static) {
    set_timeout(&Closure::once_into_js(f), ms as f64);
}

/// The client `t.client` asks for, its records kept in `records`.
fn client_builder(t: &Value, records: &Records) -> ClientBuilder {
    let mut builder = Client::builder();
    for (field, value) in fields(&t["client"]) {
        builder = match field {
            "policy" => builder.policy(Policy::from_options(&loose(value)).expect("the client's policy")),
            "seed" => builder.seed(number(value)),
            "draws" => builder.draws(value.as_array().expect("draws: a list").iter().map(number)),
            "readBody" => builder.read_body(value == true),
            other => panic!("client option {other}: not played by this runner yet"),
        };
    }
    let records = records.clone();
    builder.on_attempt(move |record: &AttemptRecord| {
        let json = retryline::json::to_json(record);
        records.borrow_mut().push(serde_json::from_str(&json).expect("a record as JSON"));
    })
}

/// The call of transcript `t` in world `w`, through the Rust API; its outcome as one line.
async fn call(t: Rc<Value>, w: Rc<World>, records: Records) -> String {
    let mut builder = client_builder(&t, &records);
    let heard = w.clone();
    builder = builder.on_retry(move |info| {
        heard.note(&format!(
            "retry #{} after {} wait {}",
            info.attempt,
            info.reason.unwrap_or("-"),
            info.planned_wait_ms
        ))
    });
    if let Some(budget) = t.get("budget") {
        let config = BudgetConfig::from_options(&loose(budget)).expect("the budget's options");
        builder = builder.budget(&SharedBudget::from_config(config, None));
    }
    if t.get("store").is_some() {
        builder = builder.store(&w.store()).expect("the world's store is a store");
    }
    if t.get("shouldRetry").is_some() {
        let w = w.clone();
        builder = builder.should_retry(move |context| {
            let asked = w.should_retry(&attempt_context(context.attempt));
            async move { settled(asked).await.map(|answer| answer.is_truthy()) }
        });
    }
    let client = builder.build();
    let given = &t["call"];
    let text = |field: &str| given.get(field).and_then(Value::as_str);
    let (url, method) = (text("url").unwrap_or("https://api.test/"), text("method").unwrap_or("GET"));
    let signal = w.abort_signal();
    if text("purpose") == Some("reconcile") {
        let mut policy = Loose::Absent;
        for (field, value) in fields(&given["options"]) {
            match field {
                "policy" => policy = loose(value),
                other => panic!("reconcile option {other}: not played by this runner yet"),
            }
        }
        let policy = reconciliation_policy(&policy).expect("the reconciliation's policy");
        let query = move |attempt: u32, _signal| {
            let asked = w.query(&attempt_context(attempt));
            async move {
                let evidence = settled(asked).await?.as_string().unwrap_or_default();
                Evidence::from_name(&evidence).ok_or_else(|| format!("no evidence: {evidence}"))
            }
        };
        return match client.reconcile(text("key").unwrap_or("k"), query, Some(policy), signal).await {
            Ok(r) => {
                let state = r.state.map_or(Value::Null, |s| serde_json::to_value(s).expect("an evidence's name"));
                format!("reconciled resolved={} state={}", r.resolved, state.as_str().unwrap_or("null"))
            }
            Err(error) => rejected(&error),
        };
    }
    let mut options = CallOptions { signal, ..CallOptions::default() };
    for (field, value) in fields(&given["options"]) {
        match field {
            "key" => options.key = value.as_str().map(str::to_owned),
            "operation" => options.operation = OperationKind::from_name(value.as_str().unwrap_or_default()),
            "scope" => options.scope = value.as_str().map(str::to_owned),
            "weight" => options.weight = Some(number(value) as u32),
            "deadlineMs" => options.deadline_ms = Some(number(value)),
            "readBody" => options.read_body = value.as_bool(),
            other => panic!("call option {other}: not played by this runner yet"),
        }
    }
    match client.send(method, url, &[], text("body"), options).await {
        Ok(response) => format!("resolved {}", response.status()),
        Err(error) => rejected(&error),
    }
}

/// A call's error as the JavaScript runner writes it: a `RetryError`'s reason, else the error's name.
fn rejected(error: &Error) -> String {
    match error {
        Error::Stopped(stopped) => format!("rejected {}", stopped.reason.as_str()),
        Error::Invalid(thrown) => {
            let name = Reflect::get(thrown, &"name".into()).ok().and_then(|n| n.as_string());
            format!("rejected {}", name.unwrap_or_default())
        }
    }
}

/// The stream of transcript `t` in world `w`, through the Rust API: what its listener hears is
/// logged; the caller's sends, gap and close come at their times. Its end, as a line.
async fn stream(t: Rc<Value>, w: Rc<World>, records: Records) -> String {
    let client = client_builder(&t, &records).build();
    let given = &t["stream"];
    let mut options = StreamOptions::default();
    for (field, value) in fields(&given["options"]) {
        match field {
            "policy" => options.policy = Some(Policy::for_streams().with_options(&loose(value)).expect("its policy")),
            "scope" => options.scope = value.as_str().map(str::to_owned),
            "weight" => options.weight = Some(number(value) as u32),
            "minUptimeMs" => options.min_uptime_ms = Some(number(value)),
            "staleAfterMs" => options.stale_after_ms = Some(number(value)),
            "reconnectAfterStaleMs" => options.reconnect_after_stale_ms = Some(number(value)),
            "rotateAfterMs" => options.rotate_after_ms = Some(number(value)),
            "sendPerSecond" => options.send_per_second = Some(number(value)),
            "stopCodes" => {
                let codes = value.as_array().expect("stopCodes: a list");
                options.stop_codes = Some(codes.iter().map(|c| number(c) as u16).collect());
            }
            other => panic!("stream option {other}: not played by this runner yet"),
        }
    }
    if let Some(on_open) = given.get("onOpen") {
        let (w, send) = (w.clone(), on_open.get("send").and_then(Value::as_str).map(str::to_owned));
        options.on_open = Some(OnOpen::new(move |connection| {
            let n = connection.socket().and_then(|s| Reflect::get(s, &"n".into()).ok()).and_then(|n| n.as_f64());
            w.note(&format!("onOpen #{}", n.unwrap_or(f64::NAN)));
            let sent = send.as_deref().map_or(Ok(()), |data| connection.send(data).map_err(|e| e.to_string()));
            async move { sent }
        }));
    }
    if given.get("resync").is_some() {
        let w = w.clone();
        options.resync = Some(Resync::new(move || {
            let asked = w.resync();
            async move { settled(asked).await.map(drop) }
        }));
    }
    if let Some(heartbeat) = given.get("heartbeat") {
        let message = heartbeat["message"].as_str().expect("heartbeat.message: a string");
        options.heartbeat = Some(Heartbeat::new(number(&heartbeat["everyMs"]), message));
    }
    // The listeners, as the JavaScript runner's; the policy's stop is kept for the end's line.
    let stop = Rc::new(RefCell::new(None));
    let (heard, listener) = (stop.clone(), w.clone());
    options.on_event = Some(OnEvent::new(move |event| match event {
        StreamEvent::State(state) => listener.note(&format!("state {}", state.name())),
        StreamEvent::Message(Message::Text(data)) => listener.note(&format!("message {data}")),
        StreamEvent::Message(Message::Binary(bytes)) => listener.note(&format!("message {bytes:?}")),
        StreamEvent::Stopped(error) => {
            listener.note("state stopped");
            *heard.borrow_mut() = error.reason();
        }
        StreamEvent::Closed { code, reason, .. } => listener.note(&format!("closed {code} {reason}")),
        StreamEvent::Unsent { message: Message::Text(data), .. } => listener.note(&format!("unsent {data}")),
        StreamEvent::Unsent { message: Message::Binary(bytes), .. } => listener.note(&format!("unsent {bytes:?}")),
        other => panic!("an event this runner does not log: {other:?}"),
    }));
    let url = given["url"].as_str().expect("stream.url");
    let stream = Rc::new(client.stream(url, options).expect("the stream's options"));
    for send in given.get("sends").and_then(Value::as_array).into_iter().flatten() {
        let (stream, w, data) = (stream.clone(), w.clone(), send["data"].as_str().unwrap_or_default().to_owned());
        later(number(&send["at"]), move || {
            if stream.send(&data).is_err() {
                w.note("send refused");
            }
        });
    }
    if let Some(at) = given.get("gapAt") {
        let stream = stream.clone();
        later(number(at), move || stream.gap());
    }
    for does in given.get("events").and_then(Value::as_array).into_iter().flatten() {
        let (stream, w, does) = (stream.clone(), w.clone(), does.clone());
        later(number(&does["at"]), move || {
            let what = does["do"].as_str().unwrap_or_default();
            w.note(what);
            let signal = match what {
                "reconnect" => {
                    let reason = does["reason"].as_str().unwrap_or_default();
                    let done = match (does.get("code"), does.get("reason")) {
                        (Some(code), _) => stream.reconnect_with(number(code) as u16, reason),
                        // A reason without a code is sent with 1000, as WebSocket's close does.
                        (None, Some(_)) => stream.reconnect_with(1000, reason),
                        (None, None) => stream.reconnect(),
                    };
                    if done.is_err() {
                        w.note("reconnect refused");
                    }
                    return;
                }
                "offline" => PageSignal::Offline,
                "online" => PageSignal::Online,
                "hidden" => PageSignal::Hidden,
                "visible" => PageSignal::Visible,
                _ => PageSignal::Wake,
            };
            stream.page(signal);
        });
    }
    let closer = stream.clone();
    later(given.get("closeAt").map_or(60_000, number), move || closer.close());
    if let Some(event) = stream.next().await {
        panic!("with a listener, next tells only the end: {event:?}");
    }
    let reason = stop.borrow_mut().take();
    match reason {
        Some(reason) => format!("stopped {}", reason.as_str()),
        // Closed by its caller: told by the events ending, where JavaScript's listeners hear
        // "stopped" and a stop that says "aborted".
        None => {
            w.note("state stopped");
            "stopped aborted".to_owned()
        }
    }
}

/// Plays transcript `t`: its log and records, as JSON.
async fn play(t: Value) -> Value {
    let t = Rc::new(t);
    let w = Rc::new(world_of(&js_sys::JSON::parse(&t.to_string()).expect("a transcript is JSON")));
    let records: Records = Rc::default();
    let (tt, ww, rr) = (t.clone(), w.clone(), records.clone());
    let start = Closure::once_into_js(move || {
        future_to_promise(async move {
            let line = match tt.get("stream") {
                Some(_) => stream(tt, ww, rr).await,
                None => call(tt, ww, rr).await,
            };
            Ok(JsValue::from_str(&line))
        })
    });
    w.install();
    let log = JsFuture::from(w.run(start.unchecked_ref())).await;
    w.uninstall();
    let log = js_sys::JSON::stringify(&log.expect("the world runs")).expect("the log as JSON");
    let log: Value = serde_json::from_str(&String::from(log)).expect("the log as JSON");
    let records = records.borrow().clone();
    serde_json::json!({ "log": log, "records": records })
}

/// Plays every transcript of `file`; each must give exactly its `expect`.
async fn plays_as_written(file: &str, text: &str) {
    let transcripts: Vec<Value> = serde_json::from_str(text).expect("a JSON array of transcripts");
    let mut failures = Vec::new();
    let total = transcripts.len();
    for t in transcripts {
        let name = t["name"].as_str().unwrap_or("?").to_owned();
        let expected = t.get("expect").cloned();
        let got = play(t).await;
        if expected.as_ref() != Some(&got) {
            failures.push(format!(
                "{file}: {name}\n  expected {}\n  got      {got}",
                expected.map_or_else(String::new, |e| e.to_string())
            ));
        }
    }
    console_log!("{file}: {} of {total} transcripts played as written", total - failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[wasm_bindgen_test]
async fn every_call_transcript_plays_as_written() {
    plays_as_written("calls.json", include_str!("transcripts/calls.json")).await;
}

#[wasm_bindgen_test]
async fn every_stream_transcript_plays_as_written() {
    plays_as_written("streams.json", include_str!("transcripts/streams.json")).await;
}
