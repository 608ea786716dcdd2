//! The replay engine's own rules: how a scripted outcome is read, and that a valid schedule is
//! never cut short.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::run;
use retryline::{Decision, Observed, Reason};
use serde_json::json;

#[test]
fn a_numeric_retry_after_is_read_as_seconds() {
    let r = run(json!({
        "draws": [10],
        "outcomes": [{ "afterMs": 100, "status": 503, "retryAfter": 2 }, { "status": 200 }]
    }));
    assert_eq!((r.records[1].provider_wait_ms, r.records[1].start_ms), (2000, 2100));
    let as_text = run(json!({
        "draws": [10],
        "outcomes": [{ "afterMs": 100, "status": 503, "retryAfter": "2" }, { "status": 200 }]
    }));
    assert_eq!(r, as_text, "the same as the header's text");
}

#[test]
fn a_response_that_arrives_exactly_at_the_timeout_is_still_a_response() {
    let r = run(json!({
        "policy": { "attemptTimeoutMs": 100, "maxAttempts": 1 },
        "outcomes": [{ "afterMs": 100, "status": 200 }]
    }));
    assert_eq!(
        (r.stop.reason, r.records[0].outcome, r.records[0].end_ms),
        (Reason::Success, Some(Observed::Response), Some(100))
    );
    let r = run(json!({
        "policy": { "attemptTimeoutMs": 100, "maxAttempts": 1 },
        "outcomes": [{ "afterMs": 101, "status": 200 }]
    }));
    assert_eq!(r.records[0].outcome, Some(Observed::Timeout), "one millisecond later it timed out");
}

#[test]
fn a_replay_of_the_most_attempts_a_policy_allows_runs_to_the_end() {
    // 10 000 attempts, each failing at once and each retry after a 1 ms sleep.
    let outcomes: Vec<_> = (0..10_000).map(|_| json!({ "status": 503 })).collect();
    let r = run(json!({
        "policy": {
            "maxAttempts": 10000, "jitter": "none", "baseDelayMs": 1, "maxDelayMs": 1,
            "attemptTimeoutMs": 1, "deadlineMs": 1000000
        },
        "outcomes": outcomes
    }));
    assert_eq!((r.wire_requests, r.stop.reason), (10_000, Reason::Attempts));
    let last = r.records.iter().rfind(|r| r.decision == Decision::Sent).unwrap();
    assert_eq!((last.attempt, last.start_ms), (10_000, 9999));
}
