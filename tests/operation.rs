//! The machine driven by hand, as the shell drives it: late wakes, aborts, shared scopes.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::{Action, Decision, Draws, HeldBy, Observed, Operation, OperationKind, Outcome, Reason};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn throttle(seconds: &str) -> Outcome {
    Outcome { retry_after: Some(seconds.to_owned()), ..Outcome::response(429) }
}

#[test]
fn a_late_wake_is_refused_with_deadline() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![1000], 1);
    let mut op = begin(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 0);
    assert!(matches!(op.start(0, &mut draws, &mut budget), Action::Send { attempt: 1, .. }));
    let action = op.on_outcome(500, WALL + 500, &Outcome::response(503), &mut draws, &mut budget);
    assert_eq!(action, Action::Sleep { until: 1500 }, "1500 + 1000 ≤ 5000: admitted");
    // A suspended tab wakes at 4200: 4200 + 1000 > 5000.
    let Action::Stop(stop) = op.on_wake(4200, &mut budget) else { panic!("a late wake must stop") };
    assert_eq!((stop.reason, stop.at_ms), (Reason::Deadline, 4200));
    let refused = op.records().last().unwrap();
    assert_eq!(
        (refused.decision, refused.attempt, refused.decided_at_ms, refused.remaining_ms),
        (Decision::Refused, 2, 4200, 800)
    );
    assert_eq!(refused.planned_wait_ms, 1000, "the record keeps the wait that was planned");
    assert_eq!(op.attempts_sent(), 1);
}

#[test]
fn a_wake_just_in_time_sends() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![1000], 1);
    let mut op = begin(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(500, WALL, &Outcome::response(503), &mut draws, &mut budget);
    assert!(matches!(op.on_wake(4000, &mut budget), Action::Send { attempt: 2, timeout_ms: 1000 }));
}

#[test]
fn an_early_timer_sleeps_again() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![1000], 1);
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(0, WALL, &Outcome::response(503), &mut draws, &mut budget);
    assert_eq!(op.on_wake(999, &mut budget), Action::Sleep { until: 1000 });
}

#[test]
fn a_throttle_holds_the_whole_scope() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut a = begin(json!({}), OperationKind::Read, "https://x.test", 0);
    a.start(0, &mut draws, &mut budget);
    a.on_outcome(100, WALL, &throttle("2"), &mut draws, &mut budget);
    // B begins in the same scope at 500: its initial request waits for the boundary at 2100.
    let mut b = begin(json!({}), OperationKind::Read, "https://x.test", 500);
    assert_eq!(b.start(500, &mut draws, &mut budget), Action::Sleep { until: 2100 });
    assert!(matches!(b.on_wake(2100, &mut budget), Action::Send { attempt: 1, .. }));
    assert_eq!(b.records().len(), 0);
    // Another scope is not held.
    let mut c = begin(json!({}), OperationKind::Read, "https://y.test", 500);
    assert!(matches!(c.start(500, &mut draws, &mut budget), Action::Send { .. }));
}

#[test]
fn a_scope_hold_that_cannot_fit_refuses_with_provider_wait() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut a = begin(json!({}), OperationKind::Read, "s", 0);
    a.start(0, &mut draws, &mut budget);
    a.on_outcome(0, WALL, &throttle("60"), &mut draws, &mut budget);
    let mut b = begin(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 10);
    let Action::Stop(stop) = b.start(10, &mut draws, &mut budget) else { panic!() };
    assert_eq!(stop.reason, Reason::ProviderWait);
    assert_eq!(b.records()[0].provider_wait_ms, 59_990);
    assert_eq!(b.attempts_sent(), 0);
}

#[test]
fn a_refusal_by_another_calls_hold_or_ban_names_the_response_that_set_it_and_when_it_ends() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut limited = common::start(json!({ "deadlineMs": 5000 }), OperationKind::Read, "s");
    (limited.method, limited.url) = (Some("GET".into()), Some("https://x.test/ratelimited".into()));
    let mut a = Operation::begin(limited.clone(), 0, WALL);
    a.start(0, &mut draws, &mut budget);
    a.on_outcome(100, WALL + 100, &throttle("10"), &mut draws, &mut budget);
    let mut b = begin(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 400);
    let Action::Stop(stop) = b.start(400, &mut draws, &mut budget) else { panic!() };
    assert_eq!(stop.reason, Reason::ProviderWait);
    let held = b.records()[0].held_by.clone().expect("the hold's response");
    let expected = HeldBy {
        method: "GET".into(),
        url: "https://x.test/ratelimited".into(),
        status: Some(429),
        at_wall_ms: WALL + 100,
        until_wall_ms: WALL + 10_100,
    };
    assert_eq!(*held, expected);
    // A ban says so the same way; a hold learnt elsewhere that outlasts it has no cause to name.
    let ban = Outcome { retry_after: Some("30".into()), ..Outcome::response(418) };
    let mut c = Operation::begin(limited, 10_200, WALL + 10_200);
    assert!(matches!(c.start(10_200, &mut draws, &mut budget), Action::Send { .. }));
    c.on_outcome(10_300, WALL + 10_300, &ban, &mut draws, &mut budget);
    let mut d = begin(json!({}), OperationKind::Read, "s", 10_400);
    let Action::Stop(stop) = d.start(10_400, &mut draws, &mut budget) else { panic!() };
    assert_eq!(stop.reason, Reason::Banned);
    let banned = d.records()[0].held_by.clone().expect("the ban's response");
    assert_eq!((banned.status, banned.until_wall_ms), (Some(418), WALL + 40_300));
    budget.hold("s", 60_000);
    let mut e = begin(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 45_000);
    let action = e.start(45_000, &mut draws, &mut budget);
    assert!(matches!(action, Action::Stop(_)), "{action:?}");
    assert_eq!(e.records()[0].held_by, None);
}

#[test]
fn a_hold_that_arrives_during_a_sleep_is_honoured_on_waking() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![500, 100], 3);
    let mut a = begin(json!({}), OperationKind::Read, "s", 0);
    a.start(0, &mut draws, &mut budget);
    assert_eq!(a.on_outcome(0, WALL, &Outcome::response(503), &mut draws, &mut budget), Action::Sleep { until: 500 });
    let mut b = begin(json!({}), OperationKind::Read, "s", 0);
    b.start(0, &mut draws, &mut budget);
    b.on_outcome(200, WALL, &throttle("3"), &mut draws, &mut budget);
    // A wakes at 500 but the scope is held until 3200.
    assert_eq!(a.on_wake(500, &mut budget), Action::Sleep { until: 3200 });
    assert!(matches!(a.on_wake(3200, &mut budget), Action::Send { attempt: 2, .. }));
    let sent = a.records();
    assert_eq!(sent.len(), 1);
}

#[test]
fn a_418_bans_the_scope_until_its_expiry_and_nothing_is_sent_meanwhile() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut a = begin(json!({}), OperationKind::Read, "s", 0);
    a.start(0, &mut draws, &mut budget);
    let ban = Outcome { retry_after: Some("30".into()), ..Outcome::response(418) };
    let Action::Stop(stop) = a.on_outcome(100, WALL, &ban, &mut draws, &mut budget) else { panic!() };
    assert_eq!(stop.reason, Reason::Banned);
    assert_eq!(budget.ban_remaining("s", 100), 30_000);
    let mut b = begin(json!({ "deadlineMs": 120000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 20_000);
    let Action::Stop(stop) = b.start(20_000, &mut draws, &mut budget) else {
        panic!("refused without touching the wire")
    };
    assert_eq!((stop.reason, b.attempts_sent()), (Reason::Banned, 0));
    // The ban ends on time, by the monotonic clock.
    let mut c = begin(json!({}), OperationKind::Read, "s", 30_100);
    assert!(matches!(c.start(30_100, &mut draws, &mut budget), Action::Send { .. }));
    let mut d = begin(json!({}), OperationKind::Read, "s", 30_099);
    assert!(matches!(d.start(30_099, &mut draws, &mut budget), Action::Stop(_)));
}

#[test]
fn a_ban_imposed_during_a_sleep_refuses_on_waking() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![1000], 3);
    let mut a = begin(json!({}), OperationKind::Read, "s", 0);
    a.start(0, &mut draws, &mut budget);
    a.on_outcome(0, WALL, &Outcome::response(500), &mut draws, &mut budget);
    budget.ban("s", 60_000);
    let Action::Stop(stop) = a.on_wake(1000, &mut budget) else { panic!() };
    assert_eq!((stop.reason, a.attempts_sent()), (Reason::Banned, 1));
}

#[test]
fn an_abort_during_a_sleep_cancels_the_proposed_attempt() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![1000], 3);
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(10, WALL, &Outcome::response(500), &mut draws, &mut budget);
    let stop = op.abort(300, &mut budget);
    assert_eq!((stop.reason, stop.at_ms), (Reason::Aborted, 300));
    let last = op.records().last().unwrap();
    assert_eq!((last.decision, last.reason), (Decision::Refused, Some(Reason::Aborted)));
    assert!(!op.is_unresolved());
    // Later events change nothing.
    assert_eq!(op.on_wake(1010, &mut budget), Action::Stop(stop));
}

#[test]
fn an_order_aborted_in_flight_is_unresolved() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut op = begin(json!({}), OperationKind::Order, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let stop = op.abort(50, &mut budget);
    assert_eq!(stop.reason, Reason::Aborted);
    assert!(op.is_unresolved(), "it was transmitted: it may have executed");
    assert_eq!(op.records()[0].outcome, Some(Observed::Aborted));
}

#[test]
fn a_read_aborted_in_flight_is_just_aborted() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut op = begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.abort(50, &mut budget);
    assert!(!op.is_unresolved());
}

#[test]
fn an_unknown_outcome_marks_the_order_unresolved() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    let mut op = begin(json!({}), OperationKind::Order, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let action = op.on_outcome(10_000, WALL, &Outcome::failure(Observed::Timeout), &mut draws, &mut budget);
    assert!(matches!(action, Action::Stop(s) if s.reason == Reason::UnknownOutcome));
    assert!(op.is_unresolved());
}

#[test]
fn records_carry_identity_and_a_redacted_url_but_no_secrets() {
    let mut start = common::start(json!({}), OperationKind::Order, "https://api.x.test");
    start.key = Some("client-42".into());
    start.method = Some("POST".into());
    start.url = Some(
        "https://user:pw@api.x.test/api/v3/order?symbol=BTCUSDT&signature=abc123&apiKey=K&timestamp=1#frag".into(),
    );
    let mut op = retryline::Operation::begin(start, 0, WALL);
    let mut budget = unlimited();
    let mut draws = Draws::seeded(3);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(5, WALL, &Outcome::response(201), &mut draws, &mut budget);
    let r = &op.records()[0];
    assert_eq!(r.key.as_deref(), Some("client-42"));
    assert_eq!(r.method.as_deref(), Some("POST"));
    assert_eq!(
        r.url.as_deref(),
        Some("https://api.x.test/api/v3/order?symbol=BTCUSDT&signature=REDACTED&apiKey=REDACTED&timestamp=1")
    );
}

mod cancel {
    use super::*;
    use retryline::Pending;

    #[test]
    fn before_the_first_proposal_it_refuses_attempt_one_and_says_what_was_pending() {
        let mut op = begin(json!({}), OperationKind::Order, "s", 0);
        let stop = op.cancel(700, Reason::Store, Some(Pending::StoreGet), &mut unlimited());
        assert_eq!((stop.reason, stop.at_ms), (Reason::Store, 700));
        let r = &op.records()[0];
        assert_eq!(
            (r.attempt, r.decision, r.reason, r.pending),
            (1, Decision::Refused, Some(Reason::Store), Some(Pending::StoreGet))
        );
        assert_eq!((r.decided_at_ms, r.start_ms), (700, 700));
        assert!(!op.is_unresolved(), "nothing was sent");
    }

    #[test]
    fn an_attempt_that_never_left_is_taken_back() {
        let mut budget = unlimited();
        let mut op = begin(json!({}), OperationKind::Order, "s", 0);
        assert!(matches!(op.start(0, &mut Draws::seeded(1), &mut budget), Action::Send { attempt: 1, .. }));
        assert_eq!(op.attempts_sent(), 1);
        let stop = op.cancel(40, Reason::Deadline, Some(Pending::StoreSet), &mut budget);
        assert_eq!(stop.reason, Reason::Deadline);
        assert_eq!(op.attempts_sent(), 0, "not counted as sent");
        assert!(!op.is_unresolved(), "an order that never left is no unknown outcome");
        let r = &op.records()[0];
        assert_eq!(
            (r.decision, r.reason, r.pending, r.outcome),
            (Decision::Refused, Some(Reason::Deadline), Some(Pending::StoreSet), None)
        );
        assert_eq!(op.stopped(), Some(stop));
    }

    #[test]
    fn a_planned_sleep_is_refused_and_its_capacity_released() {
        let mut budget = retryline::Budget::new(retryline::budget::BudgetConfig::default());
        let mut draws = Draws::scripted(vec![1000], 1);
        let mut op = begin(json!({}), OperationKind::Read, "s", 0);
        op.start(0, &mut draws, &mut budget);
        assert_eq!(
            op.on_outcome(10, WALL, &Outcome::response(503), &mut draws, &mut budget),
            Action::Sleep { until: 1010 }
        );
        let quota_before = budget.snapshot(10, WALL)[0].retry_quota.unwrap().available;
        let stop = op.cancel(20, Reason::Store, None, &mut budget);
        assert_eq!((stop.reason, stop.at_ms), (Reason::Store, 20));
        let r = op.records().last().unwrap();
        assert_eq!((r.attempt, r.decision, r.reason, r.start_ms), (2, Decision::Refused, Some(Reason::Store), 1010));
        assert_eq!(
            budget.snapshot(20, WALL)[0].retry_quota.unwrap().available,
            quota_before + 5,
            "the retry's quota is refunded"
        );
    }

    #[test]
    fn a_stopped_operation_stays_stopped() {
        let mut budget = unlimited();
        let mut draws = Draws::seeded(1);
        let mut op = begin(json!({}), OperationKind::Read, "s", 0);
        op.start(0, &mut draws, &mut budget);
        let Action::Stop(done) = op.on_outcome(5, WALL, &Outcome::response(200), &mut draws, &mut budget) else {
            panic!()
        };
        assert_eq!(op.cancel(9, Reason::Deadline, None, &mut budget), done);
        assert_eq!(op.records().len(), 1);
    }

    #[test]
    fn an_abort_while_sleeping_is_a_refused_proposal() {
        let mut budget = unlimited();
        let mut draws = Draws::scripted(vec![1000], 1);
        let mut op = begin(json!({}), OperationKind::Order, "s", 0);
        op.start(0, &mut draws, &mut budget);
        op.on_outcome(10, WALL, &throttle("1"), &mut draws, &mut budget);
        let stop = op.abort(30, &mut budget);
        assert_eq!(stop.reason, Reason::Aborted);
        assert!(!op.is_unresolved(), "a 429 order was rejected; the abort came before a resend");
        assert_eq!(op.records().last().unwrap().decision, Decision::Refused);
    }

    #[test]
    fn an_abort_in_flight_leaves_an_order_unresolved() {
        let mut budget = unlimited();
        let mut op = begin(json!({}), OperationKind::Order, "s", 0);
        op.start(0, &mut Draws::seeded(1), &mut budget);
        assert_eq!(op.abort(30, &mut budget).reason, Reason::Aborted);
        assert!(op.is_unresolved());
        let r = &op.records()[0];
        assert_eq!((r.decision, r.outcome, r.end_ms), (Decision::Sent, Some(Observed::Aborted), Some(30)));
    }
}

#[test]
fn what_the_platform_said_and_what_was_pending_reach_the_record() {
    let mut budget = unlimited();
    let mut draws = Draws::seeded(1);
    let mut op = begin(json!({ "maxAttempts": 1 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    let failed = Outcome {
        error: Some("TypeError: fetch failed".into()),
        pending: Some(retryline::Pending::Body),
        ..Outcome::failure(Observed::Timeout)
    };
    op.on_outcome(10_000, WALL, &failed, &mut draws, &mut budget);
    let r = &op.records()[0];
    assert_eq!(r.error.as_deref(), Some("TypeError: fetch failed"));
    assert_eq!(r.pending, Some(retryline::Pending::Body));
    op.note_store_failure("delete failed: disk full".into());
    assert_eq!(op.records().last().unwrap().store_error.as_deref(), Some("delete failed: disk full"));
}

#[test]
fn a_shorter_call_deadline_binds_a_resumed_operation() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![3000], 1);
    let mut op = begin(json!({ "deadlineMs": 30000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 0);
    op.limit_deadline(3500);
    assert_eq!(op.deadline_at(), 3500);
    op.limit_deadline(9000);
    assert_eq!(op.deadline_at(), 3500, "never lengthened");
    op.start(0, &mut draws, &mut budget);
    let Action::Stop(stop) = op.on_outcome(100, WALL, &Outcome::response(503), &mut draws, &mut budget) else {
        panic!("3100 + 1000 > 3500: refused")
    };
    assert_eq!(stop.reason, Reason::Deadline);
}

#[test]
fn a_retry_admitted_by_the_gate_keeps_its_full_timeout() {
    let mut budget = unlimited();
    let mut draws = Draws::scripted(vec![0], 1);
    let mut op = begin(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(3500, WALL, &Outcome::response(503), &mut draws, &mut budget);
    // Woken at exactly the latest start: the full timeout fits.
    let mut op2 = op.clone();
    assert_eq!(op2.on_wake(4000, &mut budget), Action::Send { attempt: 2, timeout_ms: 1000 });
    assert_eq!(op.on_wake(3600, &mut budget), Action::Send { attempt: 2, timeout_ms: 1000 });
}
