//! The reference article's 12-second read budget, replayed exactly (DESIGN.md §3).
#![cfg(not(target_arch = "wasm32"))]

use retryline::{replay, Decision, Observed, Reason, ReplaySpec};
use serde_json::json;

/// The same spec `cargo run --example worked_example` and the JS tests replay.
fn worked_example() -> ReplaySpec {
    serde_json::from_str(include_str!("../examples/worked_example.json")).expect("the worked example is a valid spec")
}

#[test]
fn attempts_start_at_the_articles_instants() {
    let report = replay(worked_example());
    let sent: Vec<(u64, Option<u64>)> =
        report.records.iter().filter(|r| r.decision == Decision::Sent).map(|r| (r.start_ms, r.end_ms)).collect();
    assert_eq!(sent, vec![(0, Some(1500)), (1900, Some(2200)), (4200, Some(5700)), (6900, Some(8400))]);
    assert_eq!(report.wire_requests, 4);
}

#[test]
fn the_fifth_attempt_is_refused_before_sleeping() {
    let report = replay(worked_example());
    assert_eq!(report.stop.reason, Reason::Deadline);
    assert_eq!(report.stop.at_ms, 8400);
    let last = report.records.last().expect("a refused record");
    assert_eq!(last.decision, Decision::Refused);
    assert_eq!(last.attempt, 5);
    assert_eq!(last.decided_at_ms, 8400);
    assert_eq!((last.window_ms, last.sampled_delay_ms, last.planned_wait_ms), (Some(4000), Some(2400), 2400));
    // It would have started at 10.8 s and its full timeout would end at 12.3 s.
    assert_eq!((last.start_ms, last.end_ms), (10_800, Some(12_300)));
    assert_eq!(last.remaining_ms, 3600);
    assert_eq!(report.records.len(), 5);
}

#[test]
fn attempt_three_waits_the_provider_minimum_not_its_draw() {
    let report = replay(worked_example());
    let third = report.records.iter().find(|r| r.attempt == 3).expect("attempt 3");
    assert_eq!(third.window_ms, Some(1000));
    assert_eq!(third.sampled_delay_ms, Some(600));
    assert_eq!(third.provider_wait_ms, 2000);
    assert_eq!(third.planned_wait_ms, 2000);
    assert_eq!(third.start_ms - report.records[1].end_ms.unwrap(), 2000);
}

#[test]
fn every_row_matches_the_articles_table() {
    let report = replay(worked_example());
    let rows: Vec<_> = report
        .records
        .iter()
        .map(|r| (r.attempt, r.window_ms, r.sampled_delay_ms, r.planned_wait_ms, r.outcome, r.status, r.reason))
        .collect();
    assert_eq!(
        rows,
        vec![
            (1, None, None, 0, Some(Observed::Timeout), None, Some(Reason::Retryable)),
            (2, Some(500), Some(400), 400, Some(Observed::Response), Some(429), Some(Reason::Throttled)),
            (3, Some(1000), Some(600), 2000, Some(Observed::Timeout), None, Some(Reason::Retryable)),
            (4, Some(2000), Some(1200), 1200, Some(Observed::Timeout), None, Some(Reason::Retryable)),
            (5, Some(4000), Some(2400), 2400, None, None, Some(Reason::Deadline)),
        ]
    );
}

#[test]
fn the_report_serializes_to_the_documented_json() {
    let report = serde_json::to_value(replay(worked_example())).unwrap();
    assert_eq!(report["wireRequests"], 4);
    assert_eq!(report["stop"], json!({ "reason": "deadline", "atMs": 8400 }));
    let fifth = &report["records"][4];
    assert_eq!(fifth["decision"], "refused");
    assert_eq!(fifth["reason"], "deadline");
    assert_eq!(fifth["plannedWaitMs"], 2400);
    assert_eq!(report["records"][1]["status"], 429);
    assert_eq!(report["records"][2]["providerWaitMs"], 2000);
    assert_eq!(report["records"][2]["retryAfter"], "seconds");
}
