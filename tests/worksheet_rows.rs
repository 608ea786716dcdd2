//! Endpoint families' URL patterns and worksheet rows, as js/api/families.js and
//! js/api/worksheet.js compute them: the same matches, rows, flags and Markdown.

use retryline::budget::BudgetConfig;
use retryline::budget::{Budget, Priority};
use retryline::worksheet::{iso_day, Declared, Docs, Match, Plan, Row, UrlPattern, Weight, Worksheet};
use retryline::{OperationKind, Policy, Reason};

#[test]
fn patterns_match_as_the_javascript_regexps_do() {
    let p = UrlPattern::new("https://api.binance.com/api/v3/ticker/*");
    assert!(p.matches("https://api.binance.com/api/v3/ticker/price"));
    assert!(p.matches("https://api.binance.com/api/v3/ticker/"));
    assert!(p.matches("https://api.binance.com/api/v3/ticker/price?symbol=BTCUSDT"));
    assert!(!p.matches("https://api.binance.com/api/v3/order"));
    assert!(!p.matches("https://api.binance.com/api/v3/ticker"));

    let order = UrlPattern::new("https://api.binance.com/api/v3/order");
    assert!(order.matches("https://api.binance.com/api/v3/order"));
    assert!(order.matches("https://api.binance.com/api/v3/order?symbol=X#frag"), "the query ignored");
    assert!(!order.matches("https://api.binance.com/api/v3/orders"));
    assert!(!order.matches("https://api.binance.com/api/v3/order/1"));

    let seg = UrlPattern::new("https://x.test/users/:id/orders");
    assert!(seg.matches("https://x.test/users/42/orders"));
    assert!(!seg.matches("https://x.test/users//orders"), "a segment is one or more characters");
    assert!(!seg.matches("https://x.test/users/4/2/orders"), "and holds no slash");

    let query = UrlPattern::new("https://x.test/search?q=*");
    assert!(query.matches("https://x.test/search?q=btc"));
    assert!(!query.matches("https://x.test/search"), "a pattern naming ? matches the query too");

    let port = UrlPattern::new("http://127.0.0.1:8080/*");
    assert!(port.matches("http://127.0.0.1:8080/a"), ":8080 is a port, not a parameter");
    assert_eq!(port.origin(), Some("http://127.0.0.1:8080"));
    assert_eq!(UrlPattern::new("https://api.binance.com/api/*").origin(), Some("https://api.binance.com"));
    assert_eq!(UrlPattern::new("https://*.binance.com/x").origin(), None);
    assert_eq!(UrlPattern::new("/relative/*").origin(), None);
    assert_eq!(seg.sample(), "https://x.test/users/x/orders");

    let m = Match::new(&["post", "DELETE"], Some("https://x.test/order"));
    assert!(m.test("POST", "https://x.test/order") && m.test("DELETE", "https://x.test/order"));
    assert!(!m.test("GET", "https://x.test/order"));
    assert_eq!(m.text(), "POST/DELETE https://x.test/order");
    assert_eq!(Match::url("https://x.test/*").text(), "* https://x.test/*");
    let f = Match::function(|method, url| method == "PUT" && url.ends_with("/v"));
    assert!(f.test("PUT", "https://x.test/v") && !f.test("GET", "https://x.test/v"));
    assert_eq!(f.text(), "a function");
}

#[test]
fn iso_days_are_days_since_1970_and_reject_what_is_not_a_date() {
    assert_eq!(iso_day("1970-01-01"), Some(0));
    assert_eq!(iso_day("2000-03-01"), Some(11_017));
    assert_eq!(iso_day("2026-12-02"), Some(20_789));
    assert_eq!(iso_day("2024-02-29"), Some(19_782));
    for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "2026-01-01T00", "yesterday", "2026-00-10"] {
        assert_eq!(iso_day(bad), None, "{bad}");
    }
}

const TODAY_MS: u64 = 20_789 * 86_400_000; // 2026-12-02

fn policy(attempts: u32, timeout: u64, deadline: u64) -> Policy {
    Policy::builder().max_attempts(attempts).attempt_timeout_ms(timeout).deadline_ms(deadline).build().unwrap()
}

#[test]
fn an_order_familys_row_has_the_cores_decisions_and_its_flags() {
    let p = policy(2, 5_000, 12_000);
    let budget = Budget::new(BudgetConfig::builder().capacity(6000).refill_per_second(100.0).build().unwrap());
    let plan = Plan::of(&p, OperationKind::Order, Priority::Order, "https://api.binance.com", 1, &budget);
    let orders = Match::new(&["POST", "DELETE"], Some("https://api.binance.com/api/v3/order"));
    let earlier = Match::url("https://api.binance.com/*");
    let docs = Docs { url: Some("https://docs".into()), checked: Some("2026-01-02".into()), final_statuses: vec![] };
    let declared =
        Declared { name: "orders", matcher: &orders, scope: None, weight_by_request: false, docs: Some(&docs) };
    let row = Row::of(&plan, Some(&declared), &[("everything", &earlier)], TODAY_MS);
    assert_eq!(row.family.as_deref(), Some("orders"));
    assert_eq!(row.match_text, "POST/DELETE https://api.binance.com/api/v3/order");
    assert_eq!(row.methods, Some(vec!["POST".to_owned(), "DELETE".to_owned()]));
    assert_eq!(row.scope, "https://api.binance.com", "the origin its pattern names");
    assert_eq!(row.windows_ms, [500]);
    assert_eq!(row.longest_schedule_ms, 10_500);
    assert_eq!(row.attempts_that_fit, 2);
    assert_eq!(row.retried, [429], "an order retries only a throttle");
    assert_eq!(row.unknown_outcome, [408, 500, 502, 503, 504]);
    assert_eq!(row.banned, [418]);
    assert_eq!(row.timeouts, Reason::UnknownOutcome);
    assert_eq!(row.provider_wait_headers[0], "retry-after");
    assert_eq!(row.bucket.map(|b| (b.capacity, b.refill_milli_per_second)), Some((6000, 100_000)));
    assert_eq!(
        row.flags,
        [
            "its documentation was checked 2026-01-02, more than 90 days ago",
            "shadowed by the earlier family \"everything\": it matches this family's requests first",
        ]
    );
}

#[test]
fn a_mutation_declared_read_undated_docs_a_retried_final_status_and_an_unreachable_ceiling_are_flagged() {
    let p = policy(5, 4_000, 9_000);
    let budget = Budget::default();
    let plan = Plan::of(&p, OperationKind::Read, Priority::Read, "https://x.test", 3, &budget);
    let m = Match::new(&["PUT"], Some("https://x.test/v/:id"));
    let docs = Docs { url: None, checked: None, final_statuses: vec![503, 400] };
    let declared =
        Declared { name: "writes", matcher: &m, scope: Some("x"), weight_by_request: true, docs: Some(&docs) };
    let row = Row::of(&plan, Some(&declared), &[], TODAY_MS);
    assert_eq!(row.scope, "x");
    assert_eq!(row.weight, Weight::ByRequest);
    assert_eq!(row.attempts_that_fit, 2);
    assert_eq!(
        row.flags,
        [
            "a mutation (PUT) declared \"read\": a lost answer would be retried as if nothing had happened",
            "no provider documentation with the date it was checked (docs: { url, checked })",
            "retries 503, which the provider documents as final",
            "only 2 of 5 attempts fit the 9000 ms deadline on the longest schedule",
        ]
    );
}

#[test]
fn the_markdown_has_the_javascript_tables_layout() {
    let p = policy(3, 2_000, 8_000);
    let budget = Budget::new(BudgetConfig::builder().capacity(1200).refill_per_second(1.5).build().unwrap());
    let plan = Plan::of(&p, OperationKind::Read, Priority::Refresh, "https://api.test", 2, &budget);
    let m = Match::new(&["GET"], Some("https://api.test/ticker/*"));
    let docs =
        Docs { url: Some("https://api.test/docs".into()), checked: Some("2026-11-30".into()), final_statuses: vec![] };
    let declared =
        Declared { name: "market data", matcher: &m, scope: None, weight_by_request: false, docs: Some(&docs) };
    let rest = Plan::of(&p, OperationKind::Read, Priority::Read, "https://any.origin", 1, &budget);
    let rows =
        vec![Row::of(&plan, Some(&declared), &[], TODAY_MS), Row::of(&rest, None, &[("market data", &m)], TODAY_MS)];
    let sheet = Worksheet { rows };
    // What js/api/worksheet.js's toMarkdown printed for the same client (checked in Node).
    let windows = "500, 1000"; // min(cap 4000, 500 × 2ⁿ)
    let expected = [
        "| family | match | side effect | retried on | provider waits | windows ms | attempts (fit) | attempt timeout | deadline (longest schedule) | scope, bucket | when exhausted | docs (checked) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        &format!("| market data | `GET https://api.test/ticker/*` | read | 408, 429, 500, 502, 503, 504, timeouts | retry-after, ratelimit-reset, x-ratelimit-reset, x-ratelimit-retry-after, x-rate-limit-reset | {windows} | 3 (3) | 2000 ms | 8000 ms (7500 ms) | https://api.test, 1200 tokens, 1.5/s; weight 2 | stops with attempts, deadline, provider-wait, budget or banned; nothing more is sent | https://api.test/docs (2026-11-30) |"),
        &format!("| (no family) | `anything no family matches` | read | 408, 429, 500, 502, 503, 504, timeouts | retry-after, ratelimit-reset, x-ratelimit-reset, x-ratelimit-retry-after, x-rate-limit-reset | {windows} | 3 (3) | 2000 ms | 8000 ms (7500 ms) | the request's origin, 1200 tokens, 1.5/s; weight 1 | stops with attempts, deadline, provider-wait, budget or banned; nothing more is sent | – |"),
        "",
        "No flags.",
        "",
    ]
    .join("\n");
    assert_eq!(sheet.to_markdown(), expected);
    assert!(sheet.flags().is_empty());
}
