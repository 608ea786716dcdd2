//! A caller's abort reported as an attempt's outcome: an order that was sent may have executed.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::{Action, Decision, Draws, Observed, OperationKind, Outcome, Reason};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn aborted_in_flight(kind: OperationKind) -> retryline::Operation {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![10], 1));
    let mut op = begin(json!({ "maxAttempts": 3 }), kind, "s", 0);
    assert!(matches!(op.start(0, &mut draws, &mut budget), Action::Send { attempt: 1, .. }));
    let action = op.on_outcome(80, WALL + 80, &Outcome::failure(Observed::Aborted), &mut draws, &mut budget);
    let Action::Stop(stop) = action else { panic!("an abort is never retried: {action:?}") };
    assert_eq!((stop.reason, stop.at_ms), (Reason::Aborted, 80));
    op
}

#[test]
fn an_order_whose_attempt_ended_aborted_is_unresolved() {
    let op = aborted_in_flight(OperationKind::Order);
    assert!(op.is_unresolved(), "it was transmitted: it may have executed");
    let r = &op.records()[0];
    assert_eq!((r.decision, r.outcome, r.reason), (Decision::Sent, Some(Observed::Aborted), Some(Reason::Aborted)));
    assert_eq!(op.records().len(), 1, "no retry is proposed");
}

#[test]
fn a_read_or_idempotent_write_whose_attempt_ended_aborted_is_just_aborted() {
    for kind in [OperationKind::Read, OperationKind::Idempotent] {
        let op = aborted_in_flight(kind);
        assert!(!op.is_unresolved(), "{kind:?}");
        assert_eq!(op.attempts_sent(), 1);
    }
}

#[test]
fn an_order_answered_before_the_abort_keeps_its_answer() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(1));
    let mut op = begin(json!({}), OperationKind::Order, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let Action::Stop(stop) = op.on_outcome(30, WALL, &Outcome::response(201), &mut draws, &mut budget) else {
        panic!()
    };
    assert_eq!(stop.reason, Reason::Success);
    // The caller aborts afterwards: nothing changes.
    assert_eq!(op.abort(40, &mut budget), stop);
    assert!(!op.is_unresolved());
}
