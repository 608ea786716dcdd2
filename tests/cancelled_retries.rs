//! A retry the shell cancels before it leaves (`Operation::cancel` on a `Send` it never
//! performed: a store that failed, a deadline that came first) spends no retry quota; its
//! tokens stay spent, as the meter charged them when it was dispatched.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, budget};
use retryline::{Action, Budget, Draws, Observed, Operation, OperationKind, Outcome, Pending, Reason};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn quota(b: &Budget) -> u32 {
    b.snapshot(0, WALL)[0].retry_quota.expect("a retry quota").available
}

/// Drives an operation to the `Send` of its second attempt, after a first one that ended as `first`.
fn to_the_retry(b: &mut Budget, first: Outcome) -> Operation {
    let mut draws = Draws::scripted(vec![100], 1);
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    assert!(matches!(op.start(0, &mut draws, b), Action::Send { attempt: 1, .. }));
    assert_eq!(op.on_outcome(10, WALL + 10, &first, &mut draws, b), Action::Sleep { until: 110 });
    assert!(matches!(op.on_wake(110, b), Action::Send { attempt: 2, .. }));
    op
}

#[test]
fn a_retry_that_never_left_gives_its_retry_quota_cost_back() {
    let mut b = Budget::default();
    let mut op = to_the_retry(&mut b, Outcome::response(503));
    assert_eq!(quota(&b), 495, "the retry was charged when it was granted");
    let stop = op.cancel(120, Reason::Store, Some(Pending::StoreSet), &mut b);
    assert_eq!((stop.reason, op.attempts_sent()), (Reason::Store, 1));
    assert_eq!(quota(&b), 500, "a retry never sent spends no quota");
}

#[test]
fn a_retry_after_a_timeout_that_never_left_gives_its_whole_cost_back() {
    let mut b = Budget::default();
    let mut op = to_the_retry(&mut b, Outcome::failure(Observed::Timeout));
    assert_eq!(quota(&b), 490, "a retry after a timeout costs 10");
    op.cancel(120, Reason::Deadline, None, &mut b);
    assert_eq!(quota(&b), 500);
    // Cancelling again changes nothing: the operation is over.
    op.cancel(130, Reason::Deadline, None, &mut b);
    assert_eq!(quota(&b), 500);
}

#[test]
fn a_cancelled_retry_keeps_its_tokens_spent_and_a_cancelled_first_attempt_earns_nothing() {
    let mut b = budget(json!({ "capacity": 10, "refillPerSecond": 0.001, "reserve": 0 }));
    let mut op = to_the_retry(&mut b, Outcome::response(503));
    op.cancel(120, Reason::Store, None, &mut b);
    assert_eq!((b.snapshot(120, WALL)[0].tokens, quota(&b)), (Some(8), 500), "both sends were dispatched");

    let mut b = Budget::default();
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    assert!(matches!(op.start(0, &mut Draws::seeded(1), &mut b), Action::Send { attempt: 1, .. }));
    op.cancel(5, Reason::Store, None, &mut b);
    assert_eq!(quota(&b), 500, "no credit: it was no success");
}
