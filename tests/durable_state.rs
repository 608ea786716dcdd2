//! Snapshot and restore: attempt counts and the absolute expiry survive a restart.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::state::PhaseState;
use retryline::{
    Action, Decision, Draws, Observed, Operation, OperationKind, OperationState, Outcome, Reason, RestoreError,
};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

/// An operation that sent once, got a 503 at 1000 ms and sleeps until 3000 ms; saved at 1000 ms.
fn sleeping_read() -> OperationState {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![2000], 1);
    let mut op =
        begin(json!({ "deadlineMs": 10000, "attemptTimeoutMs": 1000, "maxAttempts": 4 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    assert_eq!(
        op.on_outcome(1000, WALL + 1000, &Outcome::response(503), &mut draws, &mut budget),
        Action::Sleep { until: 3000 }
    );
    let state = op.snapshot(1000, WALL + 1000, &budget);
    // Through JSON, as a store would keep it.
    serde_json::from_value(serde_json::to_value(&state).unwrap()).unwrap()
}

#[test]
fn the_snapshot_keeps_wall_clock_times() {
    let s = sleeping_read();
    assert_eq!((s.attempts_sent, s.expires_at_wall_ms, s.remaining_ms), (1, WALL + 10_000, 9000));
    assert!(matches!(s.phase, PhaseState::Sleeping { wake_at_wall_ms, .. } if wake_at_wall_ms == WALL + 3000));
}

#[test]
fn a_restart_mid_wait_resumes_the_same_count_and_expiry() {
    let state = sleeping_read();
    // A new process: its monotonic clock starts near zero; 1.5 s of wall time passed.
    let (now, wall) = (7, WALL + 2500);
    let mut budget = unlimited();
    let mut draws = Draws::seeded(9);
    let mut op = Operation::restore(state, now, wall, &mut budget).unwrap();
    assert_eq!(op.deadline_at(), now + 7500, "expiry is the original one");
    assert_eq!(op.attempts_sent(), 1);
    assert_eq!(op.resume(now, wall, &mut draws, &mut budget), Action::Sleep { until: now + 500 });
    assert!(matches!(op.on_wake(now + 500, &mut budget), Action::Send { attempt: 2, .. }));
    assert_eq!(op.elapsed(now + 500), 3000, "records stay relative to the original start");
    op.on_outcome(now + 600, wall + 600, &Outcome::response(200), &mut draws, &mut budget);
    let starts: Vec<u64> = op.records().iter().map(|r| r.start_ms).collect();
    assert_eq!(starts, vec![0, 3000]);
}

#[test]
fn a_worker_that_wakes_late_refuses_what_no_longer_fits() {
    let state = sleeping_read();
    // Restarted 9.5 s after the start: 500 ms left, an attempt needs 1000 ms.
    let (now, wall) = (3, WALL + 9500);
    let mut budget = unlimited();
    let mut op = Operation::restore(state, now, wall, &mut budget).unwrap();
    let Action::Stop(stop) = op.resume(now, wall, &mut Draws::seeded(1), &mut budget) else { panic!("must refuse") };
    assert_eq!((stop.reason, stop.at_ms, op.attempts_sent()), (Reason::Deadline, 9500, 1));
    let refused = op.records().last().unwrap();
    assert_eq!((refused.attempt, refused.decision, refused.remaining_ms), (2, Decision::Refused, 500));
}

#[test]
fn a_wall_clock_that_went_backwards_never_lengthens_the_budget() {
    let state = sleeping_read();
    // The wall clock now reads an hour *before* the save.
    let (now, wall) = (0, WALL - 3_600_000);
    let mut budget = unlimited();
    let op = Operation::restore(state, now, wall, &mut budget).unwrap();
    assert_eq!(op.deadline_at(), 9000, "the smaller reading (time left at save) wins");
}

#[test]
fn an_attempt_in_flight_at_the_crash_counts_as_sent() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![100], 1);
    let mut read = begin(json!({ "maxAttempts": 2 }), OperationKind::Read, "s", 0);
    read.start(0, &mut draws, &mut budget);
    let saved = read.snapshot(10, WALL + 10, &budget);
    let mut restored = Operation::restore(saved, 0, WALL + 20, &mut budget).unwrap();
    assert_eq!(restored.attempts_sent(), 1);
    let action = restored.resume(0, WALL + 20, &mut draws, &mut budget);
    assert_eq!(action, Action::Sleep { until: 100 }, "a read is retried");
    assert_eq!(restored.records()[0].outcome, Some(Observed::Interrupted));

    let mut order = begin(json!({}), OperationKind::Order, "s", 0);
    order.start(0, &mut draws, &mut budget);
    let saved = order.snapshot(10, WALL + 10, &budget);
    let mut restored = Operation::restore(saved, 0, WALL + 20, &mut budget).unwrap();
    let Action::Stop(stop) = restored.resume(0, WALL + 20, &mut draws, &mut budget) else { panic!() };
    assert_eq!(stop.reason, Reason::UnknownOutcome, "an order is never resubmitted");
    assert!(restored.is_unresolved());
}

#[test]
fn provider_holds_survive_the_restart() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![10], 1);
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let throttle = Outcome { retry_after: Some("5".into()), ..Outcome::response(429) };
    op.on_outcome(0, WALL, &throttle, &mut draws, &mut budget);
    let saved = op.snapshot(1000, WALL + 1000, &budget);
    assert_eq!(saved.hold_until_wall_ms, Some(WALL + 5000));
    let mut fresh = unlimited();
    let mut op = Operation::restore(saved, 0, WALL + 2000, &mut fresh).unwrap();
    assert_eq!(fresh.hold_remaining("s", 0), 3000);
    assert_eq!(op.resume(0, WALL + 2000, &mut draws, &mut fresh), Action::Sleep { until: 3000 });
}

#[test]
fn a_stopped_operation_stays_stopped() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(1);
    let mut op = begin(json!({}), OperationKind::Order, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(5, WALL, &Outcome::response(500), &mut draws, &mut budget);
    let saved = op.snapshot(5, WALL + 5, &budget);
    assert!(saved.unresolved);
    let mut op = Operation::restore(saved, 0, WALL + 100, &mut budget).unwrap();
    assert!(
        matches!(op.resume(0, WALL + 100, &mut draws, &mut budget), Action::Stop(s) if s.reason == Reason::UnknownOutcome)
    );
    assert!(op.is_unresolved());
}

#[test]
fn an_unknown_version_is_refused_not_misread() {
    let mut state = sleeping_read();
    state.version = 99;
    let err = Operation::restore(state, 0, WALL, &mut unlimited()).unwrap_err();
    assert_eq!(err, RestoreError::UnsupportedVersion(99));
}

#[test]
fn corrupted_state_is_an_error_never_a_panic() {
    let good = serde_json::to_value(sleeping_read()).unwrap();
    let mut bad = good.clone();
    bad["policy"]["maxAttempts"] = json!(0);
    assert!(serde_json::from_value::<OperationState>(bad).is_err());
    let mut bad = good.clone();
    bad["phase"] = json!({ "phase": "dreaming" });
    assert!(serde_json::from_value::<OperationState>(bad).is_err());
    let mut bad = good;
    bad["attemptsSent"] = json!(-1);
    assert!(serde_json::from_value::<OperationState>(bad).is_err());
}
