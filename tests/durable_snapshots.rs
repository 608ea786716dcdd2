//! Saved states of every phase survive a store, and a restart resumes them without delay.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::state::{PhaseState, STATE_VERSION};
use retryline::{Action, Draws, Operation, OperationKind, OperationState, Outcome, Reason, RestoreError};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn through_json(state: &OperationState) -> OperationState {
    serde_json::from_value(serde_json::to_value(state).unwrap()).expect("a saved state reads back")
}

#[test]
fn an_operation_in_flight_is_saved_with_its_record() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(1));
    let mut op = begin(json!({}), OperationKind::Order, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let state = op.snapshot(10, WALL + 10, &budget);
    assert!(matches!(&state.phase, PhaseState::InFlight { record } if record.attempt == 1));
    assert_eq!(through_json(&state), state);
}

#[test]
fn a_stopped_operation_is_saved_with_how_it_stopped() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(1));
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(25, WALL + 25, &Outcome::response(404), &mut draws, &mut budget);
    let state = op.snapshot(30, WALL + 30, &budget);
    assert!(
        matches!(state.phase, PhaseState::Stopped { stop } if stop.reason == Reason::NonRetryable && stop.at_ms == 25)
    );
    assert_eq!(through_json(&state), state);
}

#[test]
fn a_state_without_holds_or_bans_saves_none() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![500], 1));
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(10, WALL + 10, &Outcome::response(503), &mut draws, &mut budget);
    let state = op.snapshot(10, WALL + 10, &budget);
    assert_eq!((state.hold_until_wall_ms, state.ban_until_wall_ms), (None, None));
}

#[test]
fn a_ban_survives_the_restart() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![500], 1));
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(10, WALL + 10, &Outcome::response(503), &mut draws, &mut budget);
    budget.ban("s", 60_010);
    let state = through_json(&op.snapshot(10, WALL + 10, &budget));
    assert_eq!(state.ban_until_wall_ms, Some(WALL + 60_010));
    let mut fresh = unlimited();
    let mut restored = Operation::restore(state, 0, WALL + 1010, &mut fresh).unwrap();
    assert_eq!(fresh.ban_remaining("s", 0), 59_000);
    let Action::Stop(stop) = restored.resume(0, WALL + 1010, &mut draws, &mut fresh) else { panic!() };
    assert_eq!((stop.reason, restored.attempts_sent()), (Reason::Banned, 1), "nothing is sent while banned");
}

#[test]
fn a_restart_after_the_planned_wake_sends_at_once() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![500], 1));
    let mut op = begin(json!({ "deadlineMs": 30000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    assert_eq!(
        op.on_outcome(10, WALL + 10, &Outcome::response(503), &mut draws, &mut budget),
        Action::Sleep { until: 510 }
    );
    let state = through_json(&op.snapshot(10, WALL + 10, &budget));
    // Restarted 2 s later: the wake at 510 ms has passed; the retry goes now, no sleep first.
    let mut fresh = unlimited();
    let mut restored = Operation::restore(state, 5, WALL + 2010, &mut fresh).unwrap();
    assert_eq!(restored.resume(5, WALL + 2010, &mut draws, &mut fresh), Action::Send { attempt: 2, timeout_ms: 1000 });
}

#[test]
fn an_unreadable_version_says_which_versions_are_involved() {
    let message = RestoreError::UnsupportedVersion(7).to_string();
    assert_eq!(message, format!("saved operation state has version 7; this build reads version {STATE_VERSION}"));
}
