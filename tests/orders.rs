//! Unknown outcomes, reconciliation evidence and who may run a key, natively.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::durable::{claim, lease_until, Claim, Refusal, Saved, LEASE_GRACE_MS};
use retryline::{Action, Draws, Evidence, Observed, OperationKind, Outcome, Priority, Reason};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn reconciliation(policy: serde_json::Value) -> retryline::Operation {
    let mut s = common::start(policy, OperationKind::Read, "https://x.test");
    s.priority = Priority::Reconcile;
    retryline::Operation::begin(s, 0, WALL)
}

#[test]
fn not_found_keeps_querying_and_a_fill_resolves() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![100, 100], 1));
    let mut op = reconciliation(json!({ "maxAttempts": 5 }));
    op.start(0, &mut draws, &mut budget);
    assert_eq!(
        op.on_outcome(10, WALL, &Outcome::evidence(Evidence::NotFound), &mut draws, &mut budget),
        Action::Sleep { until: 110 }
    );
    op.on_wake(110, &mut budget);
    let Action::Stop(stop) = op.on_outcome(120, WALL, &Outcome::evidence(Evidence::Filled), &mut draws, &mut budget)
    else {
        panic!()
    };
    assert_eq!(stop.reason, Reason::Success);
    let evidence: Vec<_> = op.records().iter().map(|r| r.evidence).collect();
    assert_eq!(evidence, vec![Some(Evidence::NotFound), Some(Evidence::Filled)]);
}

#[test]
fn every_evidence_but_not_found_resolves() {
    for evidence in
        [Evidence::Filled, Evidence::PartiallyFilled, Evidence::Open, Evidence::Canceled, Evidence::Rejected]
    {
        assert!(evidence.resolves(), "{evidence:?}");
        let (mut budget, mut draws) = (unlimited(), Draws::seeded(1));
        let mut op = reconciliation(json!({}));
        op.start(0, &mut draws, &mut budget);
        let action = op.on_outcome(5, WALL, &Outcome::evidence(evidence), &mut draws, &mut budget);
        assert!(matches!(action, Action::Stop(s) if s.reason == Reason::Success), "{evidence:?}");
    }
    assert!(!Evidence::NotFound.resolves());
}

#[test]
fn queries_that_never_settle_exhaust_the_policy() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![10; 5], 1));
    let mut op = reconciliation(json!({ "maxAttempts": 3, "attemptTimeoutMs": 100, "deadlineMs": 10000 }));
    let mut action = op.start(0, &mut draws, &mut budget);
    let mut now = 0;
    let mut answers = [
        Outcome::failure(Observed::Timeout),
        Outcome::evidence(Evidence::NotFound),
        Outcome::failure(Observed::Timeout),
    ]
    .into_iter();
    let stop = loop {
        action = match action {
            Action::Send { .. } => {
                now += 100;
                op.on_outcome(now, WALL + now, &answers.next().unwrap(), &mut draws, &mut budget)
            }
            Action::Sleep { until } => {
                now = until;
                op.on_wake(now, &mut budget)
            }
            Action::Stop(stop) => break stop,
        };
    };
    assert_eq!((stop.reason, op.attempts_sent()), (Reason::Attempts, 3));
}

/// A caller with all the time in the world.
const LATER: u64 = u64::MAX;

fn saved(kind: OperationKind, owner: &str, outcome: Option<Outcome>) -> Saved {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![2000], 1));
    let mut op = begin(json!({ "attemptTimeoutMs": 1000, "deadlineMs": 10000 }), kind, "s", 0);
    op.start(0, &mut draws, &mut budget);
    if let Some(outcome) = outcome {
        op.on_outcome(100, WALL + 100, &outcome, &mut draws, &mut budget);
    }
    Saved::of(&op, owner, 100, WALL + 100, &budget)
}

#[test]
fn an_unresolved_order_refuses_its_key() {
    let s = saved(OperationKind::Order, "a", Some(Outcome::failure(Observed::Timeout)));
    assert!(s.state.unresolved);
    assert_eq!(lease_until(&s.state, WALL + 100), 0, "no owner holds it: it waits for reconciliation");
    assert_eq!(claim(Some(s), "b", WALL + 999_999, LATER), Claim::Refuse(Refusal::Unresolved));
}

#[test]
fn a_sleeping_operation_is_waited_for_once_then_resumed() {
    let s = saved(OperationKind::Read, "a", Some(Outcome::response(503)));
    let wake = WALL + 100 + 2000;
    assert_eq!(s.lease_until_ms, wake + LEASE_GRACE_MS);
    assert_eq!(claim(Some(s.clone()), "b", WALL + 500, LATER), Claim::WaitUntil(wake + LEASE_GRACE_MS));
    assert!(matches!(claim(Some(s.clone()), "b", wake + LEASE_GRACE_MS, LATER), Claim::Resume(_)));
    assert_eq!(
        claim(Some(s), "a", WALL + 500, LATER),
        Claim::Refuse(Refusal::InUse),
        "its own owner does not run it twice"
    );
}

#[test]
fn an_attempt_in_flight_refuses_other_clients_at_once() {
    let s = saved(OperationKind::Order, "a", None);
    assert_eq!(s.lease_until_ms, WALL + 100 + 1000 + LEASE_GRACE_MS);
    assert_eq!(claim(Some(s.clone()), "b", WALL + 200, LATER), Claim::Refuse(Refusal::InUse));
    // After the lease, a restarted worker takes it over: the order in flight is then an unknown outcome.
    let Claim::Resume(state) = claim(Some(s), "b", WALL + 5000, LATER) else { panic!("resumable") };
    let mut budget = unlimited();
    let mut op = retryline::Operation::restore(*state, 0, WALL + 5000, &mut budget).unwrap();
    let action = op.resume(0, WALL + 5000, &mut Draws::seeded(1), &mut budget);
    assert!(matches!(action, Action::Stop(s) if s.reason == Reason::UnknownOutcome));
}

#[test]
fn finished_or_absent_state_leaves_the_key_free() {
    assert_eq!(claim(None, "b", WALL, LATER), Claim::Fresh);
    let s = saved(OperationKind::Read, "a", Some(Outcome::response(200)));
    assert_eq!(claim(Some(s), "b", WALL, LATER), Claim::Fresh);
}

#[test]
fn a_lease_that_outlives_the_callers_own_deadline_is_refused_at_once() {
    let s = saved(OperationKind::Read, "a", Some(Outcome::response(503)));
    let lease = WALL + 100 + 2000 + LEASE_GRACE_MS;
    // The caller must send by `lease - 1`: waiting for the lease would overrun its own deadline.
    assert_eq!(claim(Some(s.clone()), "b", WALL + 500, lease - 1), Claim::Refuse(Refusal::InUse));
    assert_eq!(
        claim(Some(s), "b", WALL + 500, lease),
        Claim::WaitUntil(lease),
        "a lease ending at the latest start is waited for"
    );
}

#[test]
fn a_lease_that_outlives_the_expiry_is_not_waited_for() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![9500], 1));
    let mut op = begin(json!({ "attemptTimeoutMs": 100, "deadlineMs": 10000 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(100, WALL + 100, &Outcome::response(503), &mut draws, &mut budget);
    let s = Saved::of(&op, "a", 100, WALL + 100, &budget);
    assert_eq!(claim(Some(s), "b", WALL + 200, LATER), Claim::Refuse(Refusal::InUse));
}
