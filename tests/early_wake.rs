//! A sleeper woken before its time (a tab that published a hold or ban, docs/shared-budgets.md):
//! a ban ends its wait at once, a longer hold lengthens it, and anything else changes nothing.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::Budget;
use retryline::{Action, Draws, Jitter, Operation, OperationKind, Outcome, Policy, Priority, Reason, Start};

const WALL: u64 = 1_767_225_600_000;

/// An operation that got a 503 at 40 ms and sleeps until 1040 ms (a 1 s backoff, no jitter).
fn sleeping() -> (Operation, Budget, u64) {
    let policy = Policy::builder()
        .base_delay_ms(1_000)
        .max_delay_ms(1_000)
        .jitter(Jitter::None)
        .attempt_timeout_ms(1_000)
        .deadline_ms(20_000)
        .build()
        .unwrap();
    let start = Start {
        policy,
        kind: OperationKind::Read,
        priority: Priority::Read,
        scope: "s".into(),
        weight: 1,
        key: None,
        method: Some("GET".into()),
        url: Some("https://api.example/x".into()),
    };
    let (mut draws, mut budget) = (Draws::seeded(1), Budget::default());
    let mut op = Operation::begin(start, 0, WALL);
    assert!(matches!(op.start(0, &mut draws, &mut budget), Action::Send { .. }));
    let Action::Sleep { until } = op.on_outcome(40, WALL + 40, &Outcome::response(503), &mut draws, &mut budget) else {
        panic!("a 503 is retried after a sleep")
    };
    assert_eq!(until, 1040);
    (op, budget, until)
}

#[test]
fn woken_early_with_nothing_new_it_sleeps_on_to_the_same_instant() {
    let (mut op, mut budget, until) = sleeping();
    assert_eq!(op.on_wake(300, &mut budget), Action::Sleep { until });
    assert!(matches!(op.on_wake(until, &mut budget), Action::Send { .. }), "and sends when it is time");
}

#[test]
fn woken_early_by_a_ban_it_is_refused_at_once() {
    let (mut op, mut budget, _) = sleeping();
    budget.ban("s", 60_000);
    let Action::Stop(stop) = op.on_wake(300, &mut budget) else { panic!("refused") };
    assert_eq!((stop.reason, stop.at_ms), (Reason::Banned, 300));
}

#[test]
fn woken_early_by_a_longer_hold_it_waits_for_the_hold() {
    let (mut op, mut budget, until) = sleeping();
    budget.hold("s", 300);
    assert_eq!(op.on_wake(200, &mut budget), Action::Sleep { until }, "a hold ending before its wake changes nothing");
    budget.hold("s", 5_000);
    assert_eq!(op.on_wake(300, &mut budget), Action::Sleep { until: 5_000 });
}
