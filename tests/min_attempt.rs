//! `minAttemptMs`: with a deadline no longer than one attempt timeout (a client's 10 s
//! `timeout` over a 10 s attempt timeout), retries still go while enough time is left, each
//! attempt's timeout cut to the time left. Without it the gate is unchanged.
#![cfg(not(target_arch = "wasm32"))]

use retryline::{replay, Decision, Policy, Reason, ReplaySpec};
use serde_json::{json, Value};

fn run(policy: Value, outcomes: Value, draws: Value) -> retryline::ReplayReport {
    let spec: ReplaySpec =
        serde_json::from_value(json!({ "policy": policy, "operation": "read", "draws": draws, "outcomes": outcomes }))
            .expect("a valid spec");
    replay(spec)
}

fn sent(report: &retryline::ReplayReport) -> Vec<(u64, Option<u64>)> {
    report.records.iter().filter(|r| r.decision == Decision::Sent).map(|r| (r.start_ms, r.end_ms)).collect()
}

#[test]
fn without_it_a_deadline_of_one_attempt_timeout_allows_no_retry() {
    let policy = json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 10_000, "baseDelayMs": 500, "maxDelayMs": 500 });
    let report = run(policy, json!([{ "afterMs": 200, "status": 503 }]), json!([300]));
    assert_eq!(sent(&report), vec![(0, Some(200))]);
    assert_eq!(report.stop.reason, Reason::Deadline);
}

#[test]
fn with_it_retries_go_and_each_timeout_is_cut_to_the_time_left() {
    let policy = json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 10_000, "minAttemptMs": 1000,
                         "baseDelayMs": 500, "maxDelayMs": 500, "maxAttempts": 5 });
    // 503 at 0.2 s; retry at 0.5 s (9.5 s left) times out at 10 s: its timeout was cut to 9.5 s.
    let report = run(policy, json!([{ "afterMs": 200, "status": 503 }, { "error": "timeout" }]), json!([300]));
    assert_eq!(sent(&report), vec![(0, Some(200)), (500, Some(10_000))]);
    assert_eq!(report.wire_requests, 2);
}

#[test]
fn a_retry_with_less_than_the_minimum_left_is_refused_before_sleeping() {
    let policy = json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 10_000, "minAttemptMs": 2000,
                         "baseDelayMs": 500, "maxDelayMs": 500, "maxAttempts": 5 });
    // A 503 at 8.3 s: a retry at 8.5 s would have 1.5 s, less than the 2 s minimum.
    let report = run(policy, json!([{ "afterMs": 8300, "status": 503 }]), json!([200]));
    assert_eq!(sent(&report), vec![(0, Some(8300))]);
    assert_eq!(report.stop.reason, Reason::Deadline);
    let refused = report.records.last().expect("a refused record");
    assert_eq!((refused.decision, refused.start_ms), (Decision::Refused, 8500));
    // At exactly the minimum left, it goes.
    let policy = json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 10_000, "minAttemptMs": 1500,
                         "baseDelayMs": 500, "maxDelayMs": 500, "maxAttempts": 5 });
    let report =
        run(policy, json!([{ "afterMs": 8300, "status": 503 }, { "afterMs": 100, "status": 200 }]), json!([200]));
    assert_eq!(sent(&report), vec![(0, Some(8300)), (8500, Some(8600))]);
    assert_eq!(report.stop.reason, Reason::Success);
}

#[test]
fn a_provider_wait_that_leaves_less_than_the_minimum_is_refused_at_once() {
    let policy = json!({ "attemptTimeoutMs": 2000, "deadlineMs": 2000, "minAttemptMs": 500, "maxAttempts": 3 });
    let report = run(policy, json!([{ "afterMs": 50, "status": 429, "retryAfter": "3" }]), json!([0]));
    assert_eq!(report.stop.reason, Reason::ProviderWait);
    assert_eq!(report.stop.at_ms, 50);
    assert_eq!(report.wire_requests, 1);
}

#[test]
fn it_is_checked_and_capped_by_the_attempt_timeout() {
    let with = |options: Value| Policy::from_options(&serde_json::from_value(options).expect("loose"));
    let p = with(json!({ "attemptTimeoutMs": 500, "minAttemptMs": 1000 })).expect("a minimum above the timeout");
    assert_eq!(p.admission_ms(), 500);
    let p =
        with(json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 5000, "minAttemptMs": 1000 })).expect("clamped mode");
    assert_eq!(p.admission_ms(), 1000);
    let e = with(json!({ "minAttemptMs": 0 })).unwrap_err();
    assert_eq!(e.message(), "policy.minAttemptMs must be at least 1");
    let e = with(json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 5000, "minAttemptMs": 6000 })).unwrap_err();
    assert!(e.message().starts_with("policy.minAttemptMs must not exceed deadlineMs"), "{}", e.message());
    let e = with(json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 5000 })).unwrap_err();
    assert!(e.message().starts_with("policy.attemptTimeoutMs must not exceed deadlineMs"), "{}", e.message());
}

#[test]
fn a_saved_policy_keeps_it_and_leaves_it_out_when_unset() {
    use retryline::json::{to_json, FromLoose};
    let with = |options: Value| Policy::from_options(&serde_json::from_value(options).expect("loose")).expect("valid");
    let set = with(json!({ "attemptTimeoutMs": 10_000, "deadlineMs": 10_000, "minAttemptMs": 1000 }));
    let text = to_json(&set);
    assert!(text.ends_with(",\"minAttemptMs\":1000}"), "{text}");
    assert_eq!(text, serde_json::to_string(&set).expect("serde"));
    let read = Policy::from_loose(&serde_json::from_str(&text).expect("loose")).expect("read back");
    assert_eq!(read, set);
    let unset = to_json(&Policy::default());
    assert!(!unset.contains("minAttemptMs"), "{unset}");
    assert_eq!(unset, serde_json::to_string(&Policy::default()).expect("serde"));
}
