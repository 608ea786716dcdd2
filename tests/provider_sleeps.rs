//! Which sleeps honour a provider's minimum: the shell pads those against early timers.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::{Action, Draws, OperationKind, Outcome};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn answered(retry_after: Option<&str>, status: u16) -> Outcome {
    Outcome { retry_after: retry_after.map(str::to_owned), ..Outcome::response(status) }
}

#[test]
fn a_sleep_until_a_retry_after_boundary_is_a_provider_sleep() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![10], 1));
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    assert!(!op.sleeps_for_provider(), "in flight, not sleeping");
    assert_eq!(
        op.on_outcome(100, WALL, &answered(Some("2"), 429), &mut draws, &mut budget),
        Action::Sleep { until: 2100 }
    );
    assert!(op.sleeps_for_provider());
}

#[test]
fn a_backoff_sleep_is_not_a_provider_sleep() {
    for retry_after in [None, Some("0"), Some("soon")] {
        let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![300], 1));
        let mut op = begin(json!({}), OperationKind::Read, "s", 0);
        op.start(0, &mut draws, &mut budget);
        let action = op.on_outcome(100, WALL, &answered(retry_after, 503), &mut draws, &mut budget);
        assert_eq!(action, Action::Sleep { until: 400 }, "{retry_after:?}");
        assert!(!op.sleeps_for_provider(), "{retry_after:?}: the wait is the draw's");
    }
}

#[test]
fn a_sleep_for_another_operations_hold_on_the_scope_is_a_provider_sleep() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![10], 1));
    let mut a = begin(json!({}), OperationKind::Read, "s", 0);
    a.start(0, &mut draws, &mut budget);
    a.on_outcome(100, WALL, &answered(Some("3"), 429), &mut draws, &mut budget);
    let mut b = begin(json!({}), OperationKind::Read, "s", 500);
    assert_eq!(b.start(500, &mut draws, &mut budget), Action::Sleep { until: 3100 });
    assert!(b.sleeps_for_provider());
}

#[test]
fn an_operation_that_is_not_sleeping_has_no_provider_sleep() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(1));
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    assert!(!op.sleeps_for_provider(), "not started");
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(50, WALL, &answered(Some("5"), 200), &mut draws, &mut budget);
    assert!(!op.sleeps_for_provider(), "stopped, whatever the last response said");
}

/// A cross-origin response that hides its Retry-After: the next record says so, and no wait
/// is invented — the retry follows the backoff, and the scope is not held.
#[test]
fn an_unreadable_retry_after_is_recorded_as_such_and_waits_nothing() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![40, 40], 1));
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let hidden = Outcome { retry_after_unreadable: true, ..Outcome::response(503) };
    let action = op.on_outcome(100, WALL, &hidden, &mut draws, &mut budget);
    assert_eq!(action, Action::Sleep { until: 140 });
    assert!(!op.sleeps_for_provider());
    assert!(matches!(op.on_wake(140, &mut budget), Action::Send { .. }));
    op.on_outcome(150, WALL, &Outcome::response(200), &mut draws, &mut budget);
    let next = op.records().last().expect("the second attempt's record");
    assert_eq!(next.retry_after, Some(retryline::retry_after::RetryAfterForm::Unreadable));
    assert_eq!((next.provider_wait_ms, next.planned_wait_ms), (0, 40));
    assert_eq!(budget.hold_remaining("s", 100), 0);
    // A header that was read wins over the flag: it is the header's form.
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let read = Outcome { retry_after: Some("1".into()), retry_after_unreadable: true, ..Outcome::response(503) };
    assert_eq!(op.on_outcome(100, WALL, &read, &mut draws, &mut budget), Action::Sleep { until: 1100 });
    assert!(matches!(op.on_wake(1100, &mut budget), Action::Send { .. }));
    op.on_outcome(1150, WALL, &Outcome::response(200), &mut draws, &mut budget);
    assert_eq!(op.records().last().unwrap().retry_after, Some(retryline::retry_after::RetryAfterForm::Seconds));
}
