//! `coalesce` in the Rust API: concurrent reads of one request share one operation (the core's
//! decision), each caller its own copy; an abort or an earlier deadline releases only its caller;
//! a caller who began the read and went away leaves the others to finish it. Counted at the server.

use js_sys::Promise;
use retryline::web::{CallOptions, Client, Family, Match};
use retryline::Reason;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::AbortController;

use super::{runtime_path, script, server_log, url};

/// Starts `c.get(url, options)` now; resolves with "status body", or rejects with the reason.
fn start(c: &Client, url: &str, options: CallOptions) -> Promise {
    let (c, url) = (c.clone(), url.to_owned());
    future_to_promise(async move {
        match c.get(&url, options).await {
            Ok(response) => {
                let body = JsFuture::from(response.text()?).await?.as_string().unwrap_or_default();
                Ok(JsValue::from(format!("{} {body}", response.status())))
            }
            Err(error) => Err(JsValue::from(format!("{:?}", error.reason()))),
        }
    })
}

async fn outcome(promise: Promise) -> Result<String, String> {
    JsFuture::from(promise)
        .await
        .map(|v| v.as_string().unwrap_or_default())
        .map_err(|e| e.as_string().unwrap_or_default())
}

#[wasm_bindgen_test]
async fn ten_reads_of_one_request_are_one_request_and_an_abort_or_a_short_deadline_leaves_alone() {
    let path = runtime_path("coalesce");
    script(&path, None, r#"[{"delayMs":600,"body":{"price":"3"}}]"#).await;
    let c = Client::builder().coalesce(true).build();
    let target = url(&path);
    let quitter = AbortController::new().expect("a controller");
    let reads: Vec<Promise> = (0..8).map(|_| start(&c, &target, CallOptions::default())).collect();
    let aborted = start(&c, &target, CallOptions { signal: Some(quitter.signal()), ..CallOptions::default() });
    let short = start(&c, &target, CallOptions { deadline_ms: Some(200), ..CallOptions::default() });
    super::later(50, move || quitter.abort());
    assert_eq!(outcome(aborted).await, Err(format!("{:?}", Some(Reason::Aborted))));
    assert_eq!(outcome(short).await, Err(format!("{:?}", Some(Reason::Deadline))));
    for read in reads {
        let got = outcome(read).await.expect("each caller gets the answer");
        assert!(got.starts_with("200 ") && got.contains(r#""price":"3""#), "{got}");
    }
    assert_eq!(server_log(&path).await.len(), 1, "one request for ten reads");
}

#[wasm_bindgen_test]
async fn a_read_whose_first_caller_went_away_is_finished_for_the_others() {
    let path = runtime_path("coalesce-first-gone");
    script(&path, None, r#"[{"delayMs":400,"body":{"price":"4"}}]"#).await;
    let c = Client::builder().coalesce(true).build();
    let target = url(&path);
    let first = AbortController::new().expect("a controller");
    let leaving = start(&c, &target, CallOptions { signal: Some(first.signal()), ..CallOptions::default() });
    let staying = start(&c, &target, CallOptions::default());
    super::later(50, move || first.abort());
    assert_eq!(outcome(leaving).await, Err(format!("{:?}", Some(Reason::Aborted))));
    let got = outcome(staying).await.expect("the other caller gets the answer");
    assert!(got.starts_with("200 ") && got.contains(r#""price":"4""#), "{got}");
    assert_eq!(server_log(&path).await.len(), 1);
}

#[wasm_bindgen_test]
async fn without_the_option_each_read_sends_its_own_and_a_family_can_ask_for_it() {
    let (path, joined) = (runtime_path("coalesce-off"), runtime_path("coalesce-family"));
    script(&path, None, r#"[{"delayMs":200},{"delayMs":200}]"#).await;
    script(&joined, None, r#"[{"delayMs":200}]"#).await;
    let family = Family::new("ticker", Match::url(&url(&joined))).coalesce(true);
    let c = Client::builder().families([family]).expect("a valid family").build();
    for (target, sent) in [(url(&path), 2), (url(&joined), 1)] {
        let (a, b) = (start(&c, &target, CallOptions::default()), start(&c, &target, CallOptions::default()));
        assert!(outcome(a).await.is_ok() && outcome(b).await.is_ok());
        assert_eq!(server_log(&target[super::mock_url().len()..]).await.len(), sent, "{target}");
    }
}
