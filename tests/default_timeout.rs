//! Defaults give way to what the caller set: a deadline shorter than the default attempt timeout
//! shortens that default to each attempt's share of the deadline (so retries still fit), while a
//! timeout the caller set and that cannot fit is an error.
#![cfg(not(target_arch = "wasm32"))]

use retryline::{replay, Decision, Loose, Policy, Problem, Reason, ReplaySpec};
use serde_json::{json, Value};

fn loose(v: Value) -> Loose {
    serde_json::from_value(v).expect("any JSON is a Loose value")
}

#[test]
fn a_short_deadline_shortens_the_default_attempt_timeout() {
    // The README's first example: no attempt timeout given, a deadline under the 10 s default.
    let p = Policy::from_options(&loose(json!({ "maxAttempts": 4, "deadlineMs": 8000 }))).unwrap();
    assert_eq!((p.attempt_timeout_ms(), p.deadline_ms(), p.admission_ms()), (2000, 8000, 2000));
    // A default that fits is kept as it is.
    let p = Policy::from_options(&loose(json!({ "maxAttempts": 4, "deadlineMs": 12_000 }))).unwrap();
    assert_eq!(p.attempt_timeout_ms(), 10_000);
}

#[test]
fn a_later_longer_deadline_gives_the_default_back() {
    // Layering (client, then call): the default is cut by each deadline, not by an earlier one.
    let client = Policy::from_options(&loose(json!({ "deadlineMs": 2000 }))).unwrap();
    let call = client.with_options(&loose(json!({ "deadlineMs": 20_000 }))).unwrap();
    assert_eq!((client.attempt_timeout_ms(), call.attempt_timeout_ms()), (666, 10_000));
}

#[test]
fn a_set_attempt_timeout_that_cannot_fit_still_throws() {
    let e = Policy::from_options(&loose(json!({ "attemptTimeoutMs": 9000, "deadlineMs": 8000 }))).unwrap_err();
    assert_eq!((e.field.as_str(), &e.problem), ("policy.attemptTimeoutMs", &Problem::LongerThanDeadline));
    assert!(e.message().contains("deadlineMs"), "names both fields: {}", e.message());
    // Set on the client, cut by a call's shorter deadline option: still an error, the timeout was the caller's.
    let client = Policy::from_options(&loose(json!({ "attemptTimeoutMs": 5000 }))).unwrap();
    let e = client.with_options(&loose(json!({ "deadlineMs": 3000 }))).unwrap_err();
    assert_eq!(e.problem, Problem::LongerThanDeadline);
}

#[test]
fn min_attempt_counts_against_the_cut_default() {
    let p = Policy::from_options(&loose(json!({ "deadlineMs": 3000, "minAttemptMs": 500 }))).unwrap();
    assert_eq!((p.attempt_timeout_ms(), p.admission_ms()), (1000, 500));
    let e = Policy::from_options(&loose(json!({ "deadlineMs": 3000, "minAttemptMs": 4000 }))).unwrap_err();
    assert_eq!((e.field.as_str(), &e.problem), ("policy.minAttemptMs", &Problem::LongerThanDeadline));
}

#[test]
fn the_readme_example_retries_within_its_deadline() {
    // 503, 503, 200 under `{ maxAttempts: 4, deadlineMs: 8000 }` on the virtual clock: both
    // retries are admitted (a timeout equal to the deadline would admit none).
    let spec: ReplaySpec = serde_json::from_value(json!({
        "policy": { "maxAttempts": 4, "deadlineMs": 8000 }, "operation": "read", "draws": [300, 700],
        "outcomes": [{ "afterMs": 40, "status": 503 }, { "afterMs": 40, "status": 503 }, { "afterMs": 40, "status": 200 }],
    }))
    .expect("a valid spec");
    let report = replay(spec);
    let sent: Vec<u64> = report.records.iter().filter(|r| r.decision == Decision::Sent).map(|r| r.start_ms).collect();
    assert_eq!(sent, vec![0, 340, 1080]);
    assert_eq!((report.wire_requests, report.stop.reason), (3, Reason::Success));
}
