//! Who may run a saved key: leases at their exact ends, and which saved operations still run.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::durable::{claim, Claim, Refusal, Saved};
use retryline::{Draws, Observed, OperationKind, Outcome};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

/// `owner`'s operation, saved at 100 ms after `outcome` (none: still in flight), sleeping `draw` ms.
fn saved(kind: OperationKind, draw: u64, outcome: Option<Outcome>) -> Saved {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![draw], 1));
    let mut op = begin(json!({ "attemptTimeoutMs": 100, "deadlineMs": 10000 }), kind, "s", 0);
    op.start(0, &mut draws, &mut budget);
    if let Some(outcome) = outcome {
        op.on_outcome(100, WALL + 100, &outcome, &mut draws, &mut budget);
    }
    Saved::of(&op, "a", 100, WALL + 100, &budget)
}

#[test]
fn a_lease_ending_exactly_at_the_expiry_is_not_waited_for() {
    let mut s = saved(OperationKind::Read, 1000, Some(Outcome::response(503)));
    s.lease_until_ms = s.state.expires_at_wall_ms;
    assert_eq!(claim(Some(s.clone()), "b", WALL + 200, u64::MAX), Claim::Refuse(Refusal::InUse));
    s.lease_until_ms -= 1;
    assert_eq!(claim(Some(s.clone()), "b", WALL + 200, u64::MAX), Claim::WaitUntil(s.lease_until_ms));
}

#[test]
fn a_lease_is_live_until_its_last_millisecond_and_over_at_its_end() {
    let s = saved(OperationKind::Read, 1000, Some(Outcome::response(503)));
    let end = s.lease_until_ms;
    assert_eq!(claim(Some(s.clone()), "b", end - 1, u64::MAX), Claim::WaitUntil(end));
    assert!(matches!(claim(Some(s), "b", end, u64::MAX), Claim::Resume(_)));
}

#[test]
fn a_sleeping_or_in_flight_operation_is_running() {
    assert!(saved(OperationKind::Read, 1000, Some(Outcome::response(503))).is_running());
    assert!(saved(OperationKind::Order, 1000, None).is_running());
}

#[test]
fn a_finished_operation_is_not_running() {
    assert!(!saved(OperationKind::Read, 1000, Some(Outcome::response(200))).is_running());
    assert!(!saved(OperationKind::Read, 1000, Some(Outcome::response(404))).is_running());
}

#[test]
fn an_unresolved_order_is_not_running_but_waiting_for_reconciliation() {
    let s = saved(OperationKind::Order, 1000, Some(Outcome::failure(Observed::Timeout)));
    assert!(s.state.unresolved);
    assert!(!s.is_running());
}

#[test]
fn an_unresolved_operation_that_is_somehow_still_sleeping_is_not_running() {
    let mut s = saved(OperationKind::Read, 1000, Some(Outcome::response(503)));
    s.state.unresolved = true;
    assert!(!s.is_running(), "unresolved wins over the phase");
}
