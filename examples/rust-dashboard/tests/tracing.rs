//! retryline's `tracing` feature, as a Rust dashboard's subscriber sees it, in headless Chrome
//! against the mock exchange: a span per call and one per request on the wire under it (counted at
//! the server), each sleep an event with the plan, the metric events. A binary of its own: the
//! subscriber is the process's global one.
#![cfg(target_arch = "wasm32")]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use js_sys::Array;
use retryline::web::{CallOptions, Client};
use retryline::{Jitter, Policy};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod support;

use support::{control, exchange};

type Fields = BTreeMap<String, String>;

/// A span as it closed, or an event: its name, its fields, and its parent span's name.
#[derive(Clone, Debug)]
struct Seen {
    name: String,
    fields: Fields,
    parent: Option<String>,
}

#[derive(Default)]
struct Log {
    spans: Vec<Seen>,
    events: Vec<Seen>,
}

struct Collect(Arc<Mutex<Log>>);

struct Values<'a>(&'a mut Fields);
impl Visit for Values<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Collect {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        attrs.record(&mut Values(&mut fields));
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
                values.record(&mut Values(fields));
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        event.record(&mut Values(&mut fields));
        let parent = ctx.event_span(event).map(|s| s.name().to_owned());
        self.0.lock().unwrap().events.push(Seen { name: event.metadata().name().to_owned(), fields, parent });
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let fields = span.extensions().get::<Fields>().cloned().unwrap_or_default();
        let parent = span.parent().map(|p| p.name().to_owned());
        self.0.lock().unwrap().spans.push(Seen { name: span.name().to_owned(), fields, parent });
    }
}

#[wasm_bindgen_test]
async fn a_call_and_its_requests_are_spans_and_each_sleep_an_event_with_the_plan() {
    let log = Arc::new(Mutex::new(Log::default()));
    let subscriber = tracing_subscriber::registry().with(Collect(log.clone()));
    tracing::subscriber::set_global_default(subscriber).expect("the test's subscriber is the first");
    let path = "/tracing/api/v3/ticker/price";
    let body = format!(
        r#"{{"path":"{path}","behaviours":[{{"status":503}},{{"status":429,"retryAfter":"1"}},{{"status":200,"body":{{"price":"5"}}}}]}}"#
    );
    let log_of = || async { control("GET", &format!("/__mock/requests?path={path}"), None).await.dyn_into::<Array>().unwrap() };
    let before = log_of().await.length();
    control("POST", "/__mock/script", Some(body)).await;
    let policy = Policy::builder().base_delay_ms(20).max_delay_ms(20).jitter(Jitter::None).max_attempts(4).build().unwrap();
    let client = Client::builder().policy(policy).build();
    let response = client.get(&format!("{}{path}", exchange()), CallOptions::default()).await.expect("the third answer");
    assert_eq!(response.status(), 200);
    let served = log_of().await.length() - before;

    let log = log.lock().unwrap();
    let calls: Vec<&Seen> = log.spans.iter().filter(|s| s.name == "retryline.call").collect();
    assert_eq!(calls.len(), 1, "{:?}", log.spans);
    let call = &calls[0].fields;
    assert_eq!(call["otel.name"], "GET read");
    assert_eq!(call["otel.kind"], "internal");
    assert_eq!(call["retryline.reason"], "success");
    assert_eq!(call["retryline.attempts"], "3");
    assert!(!call.contains_key("otel.status_code"), "a call a retry fixed is not in error");
    let requests: Vec<&Seen> = log.spans.iter().filter(|s| s.name == "retryline.request").collect();
    assert_eq!(requests.len() as u32, served, "one request span per request at the server");
    assert!(requests.iter().all(|r| r.parent.as_deref() == Some("retryline.call")));
    let column = |key: &str| requests.iter().map(|r| r.fields.get(key).cloned().unwrap_or_default()).collect::<Vec<_>>();
    assert_eq!(column("http.request.resend_count"), ["0", "1", "2"]);
    assert_eq!(column("http.response.status_code"), ["503", "429", "200"]);
    assert_eq!(column("error.type"), ["503", "429", ""]);
    assert!(column("url.full").iter().all(|u| u.ends_with(path)));
    let sleeps: Vec<&Seen> = log.events.iter().filter(|e| e.fields.get("retryline.event").map(String::as_str) == Some("retryline.sleep")).collect();
    assert_eq!(sleeps.len(), 2, "one event per sleep");
    assert_eq!(sleeps[0].fields["retryline.reason"], "retryable");
    assert_eq!(sleeps[1].fields["retryline.reason"], "throttled");
    assert_eq!(sleeps[1].fields["retryline.provider_wait_ms"], "1000");
    let durations = log.events.iter().filter(|e| e.fields.contains_key("histogram.http.client.request.duration")).count();
    assert_eq!(durations, 3, "a duration per request");
    let ended = log.events.iter().find(|e| e.fields.contains_key("histogram.retryline.client.call.retries")).expect("the call's points");
    assert_eq!(ended.fields["histogram.retryline.client.call.retries"], "2");
    assert_eq!(ended.fields["histogram.retryline.client.call.hedges"], "0");
    assert!(ended.fields["histogram.retryline.client.call.retry_delay"].parse::<f64>().unwrap() >= 1.0, "the hold's second included");
}
