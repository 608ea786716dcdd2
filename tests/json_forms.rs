//! The hand-written JSON forms (`retryline::json`) are exactly serde's derived ones: the same
//! text as serde_json writes, and read back to the same value.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use proptest::prelude::*;
use retryline::budget::{BudgetConfig, Limit};
use retryline::durable::Saved;
use retryline::json::{to_json, FromLoose, ToJson};
use retryline::reconcile::Evidence;
use retryline::record::{HeldBy, Pending};
use retryline::retry_after::RetryAfterForm;
use retryline::{
    AttemptRecord, Budget, Decision, Draws, Loose, Observed, Operation, OperationKind, Outcome, Priority, Reason,
    Start, Stop,
};
use serde::Serialize;
use serde_json::json;

/// Same text as serde_json's compact form.
fn same_text<T: ToJson + Serialize + ?Sized>(value: &T) -> String {
    let ours = to_json(value);
    assert_eq!(ours, serde_json::to_string(value).unwrap());
    ours
}

/// Written by serde, read by us, equal to the original.
fn reads_back<T: FromLoose + Serialize + PartialEq + std::fmt::Debug>(value: &T) {
    let loose: Loose = serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap();
    assert_eq!(&T::from_loose(&loose).unwrap(), value);
}

fn one_of<T: Clone + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(all)
}

/// Any text: quotes, backslashes, control characters, non-ASCII.
fn text() -> impl Strategy<Value = String> {
    "[\\x00-\\x1f\"\\\\a-z/?=&%é€😀\\x7f]{0,12}"
}

prop_compose! {
    fn record()(
        (attempt, decision, operation, key, scope, method, url) in (
            any::<u32>(), one_of(&[Decision::Sent, Decision::Refused]),
            one_of(&[OperationKind::Read, OperationKind::Idempotent, OperationKind::Order]),
            proptest::option::of(text()), proptest::option::of(text()), proptest::option::of(text()),
            proptest::option::of(text()),
        ),
        (decided_at_ms, start_ms, end_ms, outcome, status, window_ms, sampled_delay_ms) in (
            0..(1u64 << 53), any::<u64>(), proptest::option::of(any::<u64>()),
            proptest::option::of(one_of(&[Observed::Response, Observed::Timeout, Observed::NetworkError, Observed::Aborted, Observed::Interrupted])),
            proptest::option::of(any::<u16>()), proptest::option::of(any::<u64>()), proptest::option::of(any::<u64>()),
        ),
        (provider_wait_ms, retry_after, budget_wait_ms, planned_wait_ms, remaining_ms, evidence) in (
            any::<u64>(),
            proptest::option::of(one_of(&[RetryAfterForm::Seconds, RetryAfterForm::Date, RetryAfterForm::Unparseable, RetryAfterForm::Clamped])),
            any::<u64>(), any::<u64>(), any::<u64>(),
            proptest::option::of(one_of(&[Evidence::Filled, Evidence::PartiallyFilled, Evidence::Open, Evidence::Canceled, Evidence::Rejected, Evidence::NotFound])),
        ),
        (reason, error, pending, store_error, limit, hedge, winner, held_by, dropped) in (
            proptest::option::of(one_of(&[Reason::Success, Reason::Retryable, Reason::Throttled, Reason::NonRetryable, Reason::Attempts, Reason::Deadline, Reason::ProviderWait, Reason::Budget, Reason::Banned, Reason::RateLimited, Reason::UnknownOutcome, Reason::Aborted, Reason::Store])),
            proptest::option::of(text()),
            proptest::option::of(one_of(&[Pending::Response, Pending::Body, Pending::RequestBody, Pending::Query, Pending::Lease, Pending::StoreGet, Pending::StoreSet, Pending::StoreDelete])),
            proptest::option::of(text()),
            proptest::option::of(one_of(&[Limit::Tokens, Limit::RetryQuota])),
            any::<bool>(),
            proptest::option::of(any::<u32>()),
            proptest::option::of((text(), text(), proptest::option::of(any::<u16>()), any::<u64>(), any::<u64>()).prop_map(
                |(method, url, status, at_wall_ms, until_wall_ms)| Box::new(HeldBy { method, url, status, at_wall_ms, until_wall_ms }),
            )),
            proptest::option::of(text()),
        ),
    ) -> AttemptRecord {
        AttemptRecord {
            attempt, decision, operation, key, scope, method, url, decided_at_ms, start_ms, end_ms, outcome, status,
            window_ms, sampled_delay_ms, provider_wait_ms, retry_after, budget_wait_ms, planned_wait_ms, remaining_ms,
            evidence, reason, error, pending, store_error, limit, hedge, winner, held_by, dropped,
            stale_age_ms: None,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn records_are_written_as_serde_writes_them(r in record()) {
        same_text(&r);
        same_text(&vec![r.clone(), r]);
    }

    #[test]
    fn records_read_back(mut r in record()) {
        // Numbers travel through JavaScript: only safe integers are stored.
        for ms in [&mut r.start_ms, &mut r.provider_wait_ms, &mut r.budget_wait_ms, &mut r.planned_wait_ms, &mut r.remaining_ms] {
            *ms %= 1 << 53;
        }
        for ms in [&mut r.end_ms, &mut r.window_ms, &mut r.sampled_delay_ms].into_iter().flatten() {
            *ms %= 1 << 53;
        }
        if let Some(held) = r.held_by.as_mut() {
            (held.at_wall_ms, held.until_wall_ms) = (held.at_wall_ms % (1 << 53), held.until_wall_ms % (1 << 53));
        }
        reads_back(&r);
    }

    /// Operations run against scripted outcomes, saved at every step.
    #[test]
    fn saved_operations_are_written_and_read_as_serde_does(
        statuses in proptest::collection::vec(one_of(&[200u16, 429, 503, 500, 418, 400]), 1..6),
        kind in one_of(&[OperationKind::Read, OperationKind::Order, OperationKind::Idempotent]),
        key in proptest::option::of(text()),
        draws in proptest::collection::vec(0u64..3000, 6),
    ) {
        for saved in saved_along_the_way(&statuses, kind, key, draws) {
            same_text(&saved);
            reads_back(&saved);
            same_text(&saved.state);
            reads_back(&saved.state);
        }
    }
}

fn saved_along_the_way(statuses: &[u16], kind: OperationKind, key: Option<String>, draws: Vec<u64>) -> Vec<Saved> {
    const WALL: u64 = 1_767_225_600_000;
    let mut budget = Budget::new(BudgetConfig::default());
    let mut draws = Draws::scripted(draws, 7);
    let start = Start {
        key,
        method: Some("POST".into()),
        url: Some("https://x.test/o?a=\"b\"".into()),
        ..common::start(json!({ "deadlineMs": 20000, "attemptTimeoutMs": 1000, "maxAttempts": 5 }), kind, "scope/1")
    };
    let mut op = Operation::begin(start, 0, WALL);
    let mut saved = vec![Saved::of(&op, "owner-1", 0, WALL, &budget)];
    let mut now = 0;
    let mut action = op.start(now, &mut draws, &mut budget);
    let mut statuses = statuses.iter();
    loop {
        saved.push(Saved::of(&op, "owner-1", now, WALL + now, &budget));
        action = match action {
            retryline::Action::Send { .. } => {
                now += 100;
                let status = statuses.next().copied().unwrap_or(200);
                let outcome = Outcome { retry_after: Some("1".into()), ..Outcome::response(status) };
                op.on_outcome(now, WALL + now, &outcome, &mut draws, &mut budget)
            }
            retryline::Action::Sleep { until } => {
                now = until;
                op.on_wake(now, &mut budget)
            }
            retryline::Action::Stop(_) => break,
        };
    }
    saved.push(Saved {
        escalated: true,
        last_evidence: Some(Evidence::NotFound),
        ..Saved::of(&op, "o", now, WALL, &budget)
    });
    saved
}

#[test]
fn a_stop_and_its_reason_names() {
    for reason in [Reason::Success, Reason::UnknownOutcome, Reason::ProviderWait, Reason::Store] {
        let stop = Stop { reason, at_ms: 8400 };
        same_text(&stop);
        reads_back(&stop);
    }
}

#[test]
fn replay_reports_and_budget_snapshots() {
    let report = common::run(json!({
        "policy": { "deadlineMs": 12000, "attemptTimeoutMs": 1500, "maxAttempts": 5, "baseDelayMs": 500, "maxDelayMs": 4000 },
        "draws": [100, 900, 2000, 3000],
        "outcomes": [{ "status": 503 }, { "status": 429, "retryAfter": 2 }, { "error": "timeout" }, { "status": 200 }],
    }));
    same_text(&report);
    let config: Loose =
        serde_json::from_value(json!({ "capacity": 10, "refillPerSecond": 5, "retryQuota": { "capacity": 4 } }))
            .unwrap();
    let mut budget = Budget::new(BudgetConfig::from_options(&config).unwrap());
    let mut draws = Draws::seeded(1);
    let mut op = Operation::begin(common::start(json!({}), OperationKind::Read, "api"), 0, 1_000);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(
        5,
        1_005,
        &Outcome { retry_after: Some("3".into()), ..Outcome::response(429) },
        &mut draws,
        &mut budget,
    );
    let scopes = budget.snapshot(10, 1_010);
    assert!(!scopes.is_empty());
    same_text(&scopes);
}

#[test]
fn unknown_fields_of_a_saved_state_are_refused_by_name() {
    let saved = Saved::of(
        &Operation::begin(common::start(json!({}), OperationKind::Order, "s"), 0, 1),
        "me",
        0,
        1,
        &Budget::unlimited(),
    );
    let mut value: serde_json::Value = serde_json::from_str(&to_json(&saved)).unwrap();
    value["state"]["surprise"] = json!(1);
    let loose: Loose = serde_json::from_value(value).unwrap();
    let error = Saved::from_loose(&loose).unwrap_err();
    assert_eq!(error.field, "state.surprise");
    let _ = Priority::Read;
}
