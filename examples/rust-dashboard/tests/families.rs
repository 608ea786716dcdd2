//! Endpoint families through the typed client, in headless Chrome against the mock exchange: a
//! family's operation, key and policy reach the call (counted at the server), the call's own
//! options win, an invalid family is named, and the worksheet has the rows and flags expected.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Reflect};
use retryline::web::{CallOptions, Client, Docs, Family, Match, Weight};
use retryline::{Jitter, OperationKind, Policy, Reason};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod support;

use support::{control, exchange};

/// Queues the mock's answers for `method path`: each test scripts a path of its own.
async fn script(path: &str, method: &str, behaviours: &str) {
    let body = format!(r#"{{"path":"{path}","method":"{method}","behaviours":{behaviours}}}"#);
    control("POST", "/__mock/script", Some(body)).await;
}

/// How many requests the server received at `path`.
async fn at_server(path: &str) -> usize {
    let log: Array = control("GET", &format!("/__mock/requests?path={path}"), None).await.dyn_into().unwrap();
    log.length() as usize
}

fn policy(attempts: u32) -> Policy {
    let quick = Policy::builder().base_delay_ms(50).max_delay_ms(50).jitter(Jitter::None);
    quick.max_attempts(attempts).attempt_timeout_ms(2_000).deadline_ms(10_000).build().unwrap()
}

/// The client order id in a JSON body, as a dashboard's order family finds it.
fn order_id(body: &str) -> Option<String> {
    let value = js_sys::JSON::parse(body).ok()?;
    Reflect::get(&value, &"newClientOrderId".into()).ok()?.as_string()
}

/// A client of three families under `/families`; the client's own policy allows 5 attempts.
fn client(base: &str) -> Client {
    let orders = Family::new("orders", Match::new(&["POST", "DELETE"], Some(&format!("{base}/api/v3/order"))))
        .operation(OperationKind::Order)
        .key(|request| request.body.and_then(order_id))
        .policy(policy(3));
    let cancels = Family::new("idempotent cancels", Match::new(&["POST"], Some(&format!("{base}/api/v3/cancel/:id"))))
        .operation(OperationKind::Idempotent)
        .policy(policy(2));
    let market = Family::new("market data", Match::new(&["GET"], Some(&format!("{base}/api/v3/ticker/*"))))
        .weight_by(|request| if request.url.contains("symbol=") { 2 } else { 4 })
        .policy(policy(2))
        .docs(Docs {
            url: Some("https://example.test/docs".into()),
            checked: Some("2020-01-01".into()),
            final_statuses: vec![503],
        });
    let families = [orders, cancels, market];
    Client::builder().policy(policy(5)).families(families).expect("valid families").build()
}

#[wasm_bindgen_test]
async fn an_order_familys_post_is_an_order_under_its_key_a_500_one_request_and_an_unknown_outcome() {
    let base = format!("{}/families", exchange());
    let path = "/families/api/v3/order";
    let before = at_server(path).await;
    script(path, "POST", r#"[{"status":500}]"#).await;
    let key = format!("fam-{}", js_sys::Date::now() as u64);
    let body = format!(r#"{{"symbol":"BTCUSDT","newClientOrderId":"{key}"}}"#);
    let url = format!("{base}/api/v3/order");
    let client = client(&base);
    let error =
        client.send("POST", &url, &[], Some(&body), CallOptions::default()).await.expect_err("a 500 on an order");
    assert_eq!(error.reason(), Some(Reason::UnknownOutcome), "{error}");
    assert_eq!(at_server(path).await, before + 1, "exactly one request at the server");
    match &error {
        retryline::web::Error::Stopped(stopped) => {
            assert_eq!(stopped.key.as_deref(), Some(key.as_str()), "the family's key")
        }
        other => panic!("expected a stop, got {other}"),
    }
    // The key the family found holds the order: sending it again is refused, nothing is sent.
    let again = client.send("POST", &url, &[], Some(&body), CallOptions::default()).await.expect_err("refused");
    assert_eq!(again.reason(), Some(Reason::UnknownOutcome));
    assert_eq!(at_server(path).await, before + 1);
}

#[wasm_bindgen_test]
async fn a_family_declaring_a_post_idempotent_retries_its_500_within_its_own_policy() {
    let base = format!("{}/families", exchange());
    let path = "/families/api/v3/cancel/42";
    let before = at_server(path).await;
    script(path, "POST", r#"[{"status":500},{"status":500}]"#).await;
    let error =
        client(&base).send("POST", &format!("{base}/api/v3/cancel/42"), &[], Some("{}"), CallOptions::default()).await;
    let error = error.expect_err("two 500s");
    assert_eq!(error.reason(), Some(Reason::Attempts), "{error}");
    assert_eq!(at_server(path).await, before + 2, "the family's 2 attempts, not the client's 5");
}

#[wasm_bindgen_test]
async fn a_read_family_s_policy_applies_and_the_calls_own_policy_replaces_it() {
    let base = format!("{}/families", exchange());
    let path = "/families/api/v3/ticker/price";
    let before = at_server(path).await;
    script(path, "GET", r#"[{"status":503},{"status":503},{"status":503},{"status":503},{"status":503}]"#).await;
    let url = format!("{base}/api/v3/ticker/price?symbol=BTCUSDT");
    let client = client(&base);
    let error = client.get(&url, CallOptions::default()).await.expect_err("503s");
    assert_eq!(error.reason(), Some(Reason::Attempts));
    assert_eq!(at_server(path).await, before + 2, "the family's policy: 2 attempts");
    let own = CallOptions { policy: Some(policy(3)), ..CallOptions::default() };
    client.get(&url, own).await.expect_err("503s");
    assert_eq!(at_server(path).await, before + 5, "the call's own policy: 3 more");
}

#[wasm_bindgen_test]
fn an_invalid_family_is_named_and_nothing_panics() {
    let bad = [
        Family::new("reads", Match::url("https://x.test/*")),
        Family::new("orders", Match::new(&["POST"], Some("https://x.test/order"))).weight(0),
    ];
    let error = Client::builder().families(bad).err().expect("weight 0 is refused");
    assert_eq!(error.to_string(), "RangeError: families[1] (orders): weight must be at least 1");
    let twice = [Family::new("a", Match::url("https://x.test/*")), Family::new("a", Match::url("https://y.test/*"))];
    let error = Client::builder().families(twice).err().expect("a name taken twice");
    assert_eq!(error.to_string(), "TypeError: families[1] (a): name \"a\" is taken by an earlier family");
    let dated = [Family::new("d", Match::url("https://x.test/*"))
        .docs(Docs { checked: Some("02/12/2026".into()), ..Docs::default() })];
    let error = Client::builder().families(dated).err().expect("not an ISO date");
    assert!(
        error.to_string().starts_with("TypeError: families[0] (d): docs.checked must be an ISO date (YYYY-MM-DD)"),
        "{error}"
    );
    let nothing = [Family::new("n", Match::new(&[], None))];
    let error = Client::builder().families(nothing).err().expect("a match of nothing");
    assert_eq!(error.to_string(), "TypeError: families[0] (n): match needs a method or a url");
}

#[wasm_bindgen_test]
fn the_worksheet_has_a_row_per_family_then_the_rest_with_their_flags() {
    let base = format!("{}/families", exchange());
    let sheet = client(&base).worksheet();
    let names: Vec<Option<&str>> = sheet.rows.iter().map(|r| r.family.as_deref()).collect();
    assert_eq!(names, [Some("orders"), Some("idempotent cancels"), Some("market data"), None]);
    let (orders, cancels, market, rest) = (&sheet.rows[0], &sheet.rows[1], &sheet.rows[2], &sheet.rows[3]);
    assert_eq!(orders.operation, OperationKind::Order);
    assert_eq!(orders.retried, [429]);
    assert_eq!(orders.unknown_outcome, [408, 500, 502, 503, 504]);
    assert_eq!(orders.timeouts, Reason::UnknownOutcome);
    assert_eq!(orders.policy.max_attempts(), 3);
    assert_eq!(orders.scope, exchange(), "the origin its pattern names");
    assert_eq!(cancels.operation, OperationKind::Idempotent);
    assert_eq!(cancels.retried, [408, 429, 500, 502, 503, 504]);
    assert_eq!(market.weight, Weight::ByRequest);
    assert_eq!(market.windows_ms, [50]);
    assert_eq!(rest.policy.max_attempts(), 5, "the client's defaults");
    assert_eq!(rest.match_text, "anything no family matches");
    let flags: Vec<(&str, &str)> = sheet.flags();
    assert_eq!(
        flags,
        [
            ("orders", "no provider documentation with the date it was checked (docs: { url, checked })"),
            ("idempotent cancels", "no provider documentation with the date it was checked (docs: { url, checked })"),
            ("market data", "its documentation was checked 2020-01-01, more than 90 days ago"),
            ("market data", "retries 503, which the provider documents as final"),
            // The client's 5 attempts of 2 s with 50 ms waits cannot all fit its 10 s deadline.
            ("(no family)", "only 4 of 5 attempts fit the 10000 ms deadline on the longest schedule"),
        ]
    );
    let markdown = sheet.to_markdown();
    assert!(markdown.starts_with("| family | match | side effect |"), "{markdown}");
    assert!(markdown.contains(&format!("| orders | `POST/DELETE {base}/api/v3/order` | order | 429; unknown outcome: 408, 500, 502, 503, 504, timeouts |")), "{markdown}");
    assert!(markdown.contains("- **market data**: retries 503, which the provider documents as final"), "{markdown}");
}
