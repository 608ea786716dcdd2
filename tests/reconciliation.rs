//! Status queries of an unknown outcome: only an answered query's evidence decides.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::unlimited;
use retryline::{Action, Draws, Evidence, Observed, Operation, OperationKind, Outcome, Priority, Reason};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn query() -> Operation {
    let mut s = common::start(json!({ "maxAttempts": 3 }), OperationKind::Read, "https://x.test");
    s.priority = Priority::Reconcile;
    Operation::begin(s, 0, WALL)
}

#[test]
fn evidence_counts_only_from_a_query_that_was_answered() {
    for observed in [Observed::Timeout, Observed::NetworkError, Observed::Interrupted] {
        let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![100], 1));
        let mut op = query();
        op.start(0, &mut draws, &mut budget);
        // A shell that attached evidence to a failed query must not settle the order with it.
        let failed = Outcome { evidence: Some(Evidence::Filled), ..Outcome::failure(observed) };
        let action = op.on_outcome(50, WALL + 50, &failed, &mut draws, &mut budget);
        assert_eq!(action, Action::Sleep { until: 150 }, "{observed:?}: the query is repeated");
        assert_eq!(op.records()[0].reason, Some(Reason::Retryable), "{observed:?}");
    }
}

#[test]
fn an_answered_query_is_decided_by_its_evidence_not_its_status() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![100], 1));
    let mut op = query();
    op.start(0, &mut draws, &mut budget);
    // A 404 for "no such order among open orders" is not a non-retryable error: it proves nothing.
    let not_found = Outcome { status: Some(404), ..Outcome::evidence(Evidence::NotFound) };
    assert_eq!(op.on_outcome(50, WALL, &not_found, &mut draws, &mut budget), Action::Sleep { until: 150 });
}

#[test]
fn every_kind_of_evidence_is_known_by_its_documented_name() {
    use retryline::reconcile::Evidence as E;
    let names = [
        ("filled", E::Filled),
        ("partially-filled", E::PartiallyFilled),
        ("open", E::Open),
        ("canceled", E::Canceled),
        ("rejected", E::Rejected),
        ("not-found", E::NotFound),
    ];
    for (name, evidence) in names {
        assert_eq!(E::from_name(name), Some(evidence), "{name}");
        assert_eq!(serde_json::to_value(evidence).unwrap(), json!(name), "the record says it the same way");
        assert!(E::NAMES.contains(&format!("\"{name}\"")), "the error message lists {name}");
    }
    assert_eq!(E::from_name("cancelled"), None);
    assert_eq!(E::from_name("Filled"), None);
}

#[test]
fn status_queries_run_under_their_own_bounded_policy() {
    use retryline::reconcile::reconciliation_policy;
    use retryline::Loose;
    let p = reconciliation_policy(&Loose::Absent).unwrap();
    assert_eq!((p.max_attempts(), p.attempt_timeout_ms(), p.deadline_ms()), (5, 5000, 60_000));
    assert_eq!((p.base_delay_ms(), p.max_delay_ms()), (1000, 8000));
    let overrides: Loose = serde_json::from_value(json!({ "maxAttempts": 8 })).unwrap();
    let p = reconciliation_policy(&overrides).unwrap();
    assert_eq!((p.max_attempts(), p.deadline_ms()), (8, 60_000), "the caller's overrides on top of the defaults");
}
