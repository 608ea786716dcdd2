//! How operations stop: each limit, each provider instruction, each operation kind.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::run;
use retryline::retry_after::RetryAfterForm;
use retryline::{Decision, Observed, Reason};
use serde_json::json;

#[test]
fn a_provider_wait_longer_than_the_deadline_stops_at_once_unshortened() {
    let r = run(json!({
        "policy": { "deadlineMs": 5000, "attemptTimeoutMs": 1000, "maxAttempts": 5 },
        "draws": [100],
        "outcomes": [{ "afterMs": 200, "status": 429, "retryAfter": "10" }]
    }));
    assert_eq!(r.wire_requests, 1);
    assert_eq!((r.stop.reason, r.stop.at_ms), (Reason::ProviderWait, 200));
    let refused = &r.records[1];
    assert_eq!(refused.decision, Decision::Refused);
    assert_eq!(refused.provider_wait_ms, 10_000, "the provider's wait is recorded whole");
    assert_eq!(refused.planned_wait_ms, 10_000, "never shortened to fit");
    assert_eq!(refused.start_ms, 10_200);
    assert_eq!(refused.remaining_ms, 4800);
}

#[test]
fn a_provider_wait_that_fits_is_honoured_exactly() {
    let r = run(json!({
        "policy": { "deadlineMs": 30000, "attemptTimeoutMs": 1000, "maxAttempts": 3 },
        "draws": [100],
        "outcomes": [{ "afterMs": 50, "status": 503, "retryAfter": "3" }, { "status": 200 }]
    }));
    assert_eq!(r.stop.reason, Reason::Success);
    assert_eq!(r.records[1].start_ms, 3050, "3 s from receipt at 50 ms");
}

#[test]
fn an_order_that_times_out_ends_unknown_after_one_request() {
    let r = run(json!({ "operation": "order", "outcomes": [{ "error": "timeout" }] }));
    assert_eq!(r.wire_requests, 1);
    assert_eq!((r.stop.reason, r.stop.at_ms), (Reason::UnknownOutcome, 10_000));
    assert_eq!(r.records.len(), 1, "no retry is even proposed");
    assert_eq!(r.records[0].outcome, Some(Observed::Timeout));
}

#[test]
fn an_order_whose_response_is_lost_or_5xx_is_never_resubmitted() {
    for outcome in [
        json!({ "error": "network-error" }),
        json!({ "status": 500 }),
        json!({ "status": 503 }),
        json!({ "status": 504 }),
    ] {
        let r = run(json!({ "operation": "order", "outcomes": [outcome.clone(), { "status": 200 }] }));
        assert_eq!((r.wire_requests, r.stop.reason), (1, Reason::UnknownOutcome), "{outcome}");
    }
}

#[test]
fn an_order_rejected_with_429_is_retried() {
    let r = run(json!({ "operation": "order", "draws": [10], "outcomes": [{ "status": 429 }, { "status": 201 }] }));
    assert_eq!((r.wire_requests, r.stop.reason), (2, Reason::Success));
}

#[test]
fn an_idempotent_write_is_retried_like_a_read() {
    let r = run(
        json!({ "operation": "idempotent", "draws": [10], "outcomes": [{ "error": "timeout" }, { "status": 200 }] }),
    );
    assert_eq!((r.wire_requests, r.stop.reason), (2, Reason::Success));
}

#[test]
fn client_errors_stop_without_a_proposal() {
    for status in [400, 401, 402, 403, 404, 413, 422] {
        let r = run(json!({ "outcomes": [{ "status": status }] }));
        assert_eq!((r.wire_requests, r.stop.reason, r.records.len()), (1, Reason::NonRetryable, 1), "{status}");
    }
}

#[test]
fn the_attempt_limit_counts_the_initial_request() {
    let r = run(json!({
        "policy": { "maxAttempts": 3 },
        "draws": [1, 1, 1, 1],
        "outcomes": [{ "status": 503 }, { "status": 503 }, { "status": 503 }, { "status": 200 }]
    }));
    assert_eq!((r.wire_requests, r.stop.reason), (3, Reason::Attempts));
    let refused = r.records.last().unwrap();
    assert_eq!((refused.attempt, refused.decision, refused.sampled_delay_ms), (4, Decision::Refused, Some(1)));
}

#[test]
fn a_single_attempt_policy_never_retries() {
    let r = run(json!({ "policy": { "maxAttempts": 1 }, "outcomes": [{ "status": 502 }] }));
    assert_eq!((r.wire_requests, r.stop.reason), (1, Reason::Attempts));
}

#[test]
fn a_second_throttle_after_an_honoured_wait_is_rate_limited() {
    let r = run(json!({
        "policy": { "maxAttempts": 5 },
        "draws": [10, 10],
        "outcomes": [{ "status": 429, "retryAfter": "1" }, { "status": 429, "retryAfter": "1" }, { "status": 200 }]
    }));
    assert_eq!((r.wire_requests, r.stop.reason), (2, Reason::RateLimited));
    assert_eq!(r.records[1].start_ms, 1000);
    assert_eq!(r.records[2].reason, Some(Reason::RateLimited));
}

#[test]
fn throttles_without_a_stated_wait_are_bounded_by_attempts() {
    let r = run(json!({
        "policy": { "maxAttempts": 3 },
        "draws": [5, 5, 5],
        "outcomes": [{ "status": 429 }, { "status": 429 }, { "status": 429 }]
    }));
    assert_eq!((r.wire_requests, r.stop.reason), (3, Reason::Attempts));
}

#[test]
fn a_418_stops_banned() {
    let r = run(json!({ "policy": { "maxAttempts": 5 }, "outcomes": [{ "status": 418, "retryAfter": "120" }] }));
    assert_eq!((r.wire_requests, r.stop.reason), (1, Reason::Banned));
}

#[test]
fn an_unparseable_retry_after_falls_back_to_the_draw_and_says_so() {
    let r = run(json!({
        "draws": [250],
        "outcomes": [{ "status": 503, "retryAfter": "soon" }, { "status": 200 }]
    }));
    assert_eq!(r.stop.reason, Reason::Success);
    assert_eq!(r.records[1].start_ms, 250);
    assert_eq!(r.records[1].retry_after, Some(RetryAfterForm::Unparseable));
    assert_eq!(r.records[1].provider_wait_ms, 0);
}

#[test]
fn an_http_date_retry_after_is_measured_from_the_responses_date() {
    let r = run(json!({
        "draws": [10],
        "outcomes": [
            { "afterMs": 100, "status": 503, "retryAfter": "Thu, 01 Jan 2026 00:00:05 GMT", "date": "Thu, 01 Jan 2026 00:00:01 GMT" },
            { "status": 200 }
        ]
    }));
    assert_eq!(r.records[1].provider_wait_ms, 4000);
    assert_eq!(r.records[1].start_ms, 4100);
    assert_eq!(r.records[1].retry_after, Some(RetryAfterForm::Date));
}

#[test]
fn an_http_date_in_the_past_waits_only_the_draw() {
    let r = run(json!({
        "draws": [300],
        "outcomes": [{ "status": 429, "retryAfter": "Wed, 31 Dec 2025 23:00:00 GMT" }, { "status": 200 }]
    }));
    assert_eq!((r.records[1].provider_wait_ms, r.records[1].start_ms), (0, 300));
}

#[test]
fn spread_after_the_provider_boundary_stays_within_its_bound() {
    for seed in 0..50u64 {
        let r = run(json!({
            "policy": { "retryAfterSpreadMs": 500 },
            "seed": seed,
            "draws": [10],
            "outcomes": [{ "status": 429, "retryAfter": "1" }, { "status": 200 }]
        }));
        let wait = r.records[1].planned_wait_ms;
        assert!((1000..=1500).contains(&wait), "seed {seed}: {wait}");
    }
}

#[test]
fn spread_is_trimmed_to_what_fits_the_deadline() {
    let r = run(json!({
        "policy": { "retryAfterSpreadMs": 100000, "deadlineMs": 3000, "attemptTimeoutMs": 1000 },
        "draws": [10],
        "outcomes": [{ "status": 429, "retryAfter": "1" }, { "status": 200 }]
    }));
    assert_eq!(r.stop.reason, Reason::Success);
    assert!(r.records[1].start_ms <= 2000, "{}", r.records[1].start_ms);
}

#[test]
fn without_jitter_the_schedule_is_exact() {
    let r = run(json!({
        "policy": { "jitter": "none", "baseDelayMs": 100, "maxDelayMs": 350, "maxAttempts": 5, "attemptTimeoutMs": 50 },
        "outcomes": [{ "afterMs": 10, "status": 500 }, { "afterMs": 10, "status": 500 }, { "afterMs": 10, "status": 500 }, { "afterMs": 10, "status": 500 }]
    }));
    let starts: Vec<u64> = r.records.iter().filter(|r| r.decision == Decision::Sent).map(|r| r.start_ms).collect();
    // windows 100, 200, 350 (capped), 350
    assert_eq!(starts, vec![0, 110, 320, 680, 1040]);
}

#[test]
fn a_scripted_draw_longer_than_the_deadline_stops_with_deadline() {
    let r = run(json!({
        "policy": { "deadlineMs": 2000, "attemptTimeoutMs": 1000 },
        "draws": [1500],
        "outcomes": [{ "afterMs": 100, "status": 500 }]
    }));
    assert_eq!((r.wire_requests, r.stop.reason), (1, Reason::Deadline));
}

#[test]
fn a_response_slower_than_the_attempt_timeout_is_a_timeout() {
    let r = run(json!({
        "policy": { "attemptTimeoutMs": 100, "maxAttempts": 1 },
        "outcomes": [{ "afterMs": 5000, "status": 200 }]
    }));
    assert_eq!(r.records[0].outcome, Some(Observed::Timeout));
    assert_eq!(r.records[0].end_ms, Some(100));
}

#[test]
fn a_retry_that_cannot_fit_without_any_provider_wait_stops_with_deadline_not_provider_wait() {
    // 503 without Retry-After at 900 ms; even an immediate retry (+1000 ms) passes 1800 ms.
    let r = run(json!({
        "policy": { "deadlineMs": 1800, "attemptTimeoutMs": 1000, "maxAttempts": 3 },
        "draws": [0],
        "outcomes": [{ "afterMs": 900, "status": 503 }]
    }));
    assert_eq!((r.stop.reason, r.stop.at_ms), (Reason::Deadline, 900));
    assert_eq!(r.records[1].provider_wait_ms, 0);
}

#[test]
fn a_zero_retry_after_is_no_provider_wait_either() {
    let r = run(json!({
        "policy": { "deadlineMs": 1800, "attemptTimeoutMs": 1000, "maxAttempts": 3 },
        "draws": [0],
        "outcomes": [{ "afterMs": 900, "status": 429, "retryAfter": "0" }]
    }));
    assert_eq!(r.stop.reason, Reason::Deadline);
}

#[test]
fn the_initial_attempt_goes_while_any_time_is_left_with_its_timeout_cut_to_it() {
    use retryline::{Action, Draws, OperationKind};
    // deadline == attempt timeout, and the first attempt is proposed 1 ms after the start
    // (the shell read its request body meanwhile): it is sent, not refused.
    let mut op = common::begin(json!({ "deadlineMs": 1000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 50);
    let action = op.start(51, &mut Draws::seeded(1), &mut common::unlimited());
    assert_eq!(action, Action::Send { attempt: 1, timeout_ms: 999 });
    // With no time left at all, it is refused: deadline.
    let mut op = common::begin(json!({ "deadlineMs": 1000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 50);
    let action = op.start(1050, &mut Draws::seeded(1), &mut common::unlimited());
    assert!(matches!(action, Action::Stop(s) if s.reason == Reason::Deadline), "{action:?}");
    assert_eq!(op.records()[0].decision, Decision::Refused);
}

#[test]
fn a_retry_keeps_the_full_gate_and_no_attempt_runs_past_the_deadline() {
    // Retries need their whole timeout before the deadline; the initial attempt's exemption is only its own.
    let r = run(json!({
        "policy": { "deadlineMs": 3000, "attemptTimeoutMs": 1000, "maxAttempts": 5, "jitter": "none", "baseDelayMs": 100 },
        "outcomes": [{ "afterMs": 10, "status": 503 }, { "afterMs": 10, "status": 503 }, { "afterMs": 10, "status": 503 }, { "afterMs": 10, "status": 503 }]
    }));
    for rec in r.records.iter().filter(|rec| rec.decision == Decision::Sent) {
        assert!(rec.start_ms + 1000 <= 3000, "attempt {} starts at {}", rec.attempt, rec.start_ms);
    }
}
