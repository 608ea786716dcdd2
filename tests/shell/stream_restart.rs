//! The Rust API's `reconnect`, `close_with` and its `Closed` event against the mock exchange's
//! WebSocket endpoint (issue 32), judged by the server's log of connections.

use retryline::web::{Client, ProtocolsProvider, StreamEvent, StreamOptions, StreamState, UrlProvider};
use wasm_bindgen_test::wasm_bindgen_test;

use super::streams::{control, is_trade, read_until, reconnects, sleep, sockets, tag, upgrades};
use super::url;

#[wasm_bindgen_test]
async fn a_stream_its_policy_stopped_begins_again_on_reconnect_and_close_with_sends_the_callers_code() {
    if !sockets() {
        return;
    }
    let run = tag("restart");
    let first = r#"[{"action":"accept","closeAfterMs":300,"closeCode":1008,"closeReason":"bad subscription"}]"#;
    control("POST", "script", Some(&format!(r#"{{"path":"/ws/ticker","behaviours":{first}}}"#))).await;
    let options = StreamOptions { policy: Some(reconnects(100)), min_uptime_ms: Some(0), ..StreamOptions::default() };
    let stream = Client::new(reconnects(100)).stream(&url(&format!("/ws/ticker?run={run}")), options).unwrap();
    // The server's close is told, then the stop code's stop.
    let mut closed = None;
    let stopped = loop {
        match stream.next().await {
            Some(StreamEvent::Closed { code, reason, was_clean }) => closed = Some((code, reason, was_clean)),
            Some(StreamEvent::Stopped(error)) => break error,
            Some(_) => {}
            None => panic!("the stream ended without its stop"),
        }
    };
    assert_eq!(closed, Some((1008, "bad subscription".to_owned(), true)));
    assert!(stopped.to_string().contains("code 1008 (bad subscription)"), "{stopped}");
    assert_eq!(stream.state(), StreamState::Stopped);
    // Begun again: the same stream, read on.
    stream.reconnect().unwrap();
    assert_eq!(stream.state(), StreamState::Connecting);
    read_until(&stream, is_trade).await;
    assert_eq!(upgrades("/ws/ticker", &run).await.len(), 2, "one new connection");
    stream.close_with(4000, "bye").unwrap();
    assert!(stream.reconnect().is_err(), "a closed stream is over");
    assert!(stream.close_with(1001, "").is_err(), "1001 is not the caller's to send");
    sleep(300).await;
    let log = control("GET", "connections?path=/ws/ticker", None).await;
    let last = js_sys::Array::from(&log).iter().last().unwrap();
    let code = js_sys::Reflect::get(&last, &"closeCode".into()).unwrap().as_f64();
    let reason = js_sys::Reflect::get(&last, &"closeReason".into()).unwrap().as_string();
    assert_eq!((code, reason.as_deref()), (Some(4000.0), Some("bye")));
}

#[wasm_bindgen_test]
async fn a_url_provider_gives_each_attempts_url_and_its_failure_is_that_attempts() {
    if !sockets() {
        return;
    }
    let run = tag("url-provider");
    let calls = std::rc::Rc::new(std::cell::Cell::new(0));
    let (asked, base) = (calls.clone(), url(&format!("/ws/ticker?run={run}")));
    let url_provider = UrlProvider::new(move || {
        asked.set(asked.get() + 1);
        let n = asked.get();
        let base = base.clone();
        async move {
            match n {
                1 => Err("the token service is down".to_owned()),
                2 => Ok("ftp://nowhere".to_owned()),
                _ => Ok(format!("{base}&token=t{n}")),
            }
        }
    });
    let (records, observer) = super::observed();
    let client = Client::builder().on_attempt(observer).build();
    let protocols_asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let counted = protocols_asked.clone();
    let protocols_provider = ProtocolsProvider::new(move || {
        counted.set(counted.get() + 1);
        async { Ok(vec!["v2.retryline".to_owned()]) }
    });
    let options = StreamOptions {
        policy: Some(reconnects(50)),
        min_uptime_ms: Some(0),
        url_provider: Some(url_provider),
        protocols_provider: Some(protocols_provider),
        ..StreamOptions::default()
    };
    let stream = client.stream(&url("/ws/ticker?run=unused"), options).unwrap();
    read_until(&stream, is_trade).await;
    let errors: Vec<Option<String>> = records.borrow().iter().map(|r| r.error.clone()).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].as_deref().unwrap_or_default().contains("the url provider failed: the token service is down"));
    assert!(errors[1].as_deref().unwrap_or_default().contains("must be a ws:, wss:, http: or https: URL, got ftp:"));
    let made = upgrades("/ws/ticker", &run).await;
    assert_eq!(made.len(), 1, "only the attempt with a URL reached the server");
    assert_eq!(protocols_asked.get(), 3, "the protocols provider is asked on each attempt");
    drop(stream);
}
