//! Reset headers as provider waits: delta seconds, fractions rounded up, epoch seconds against the
//! response's `Date` (or the wall clock), anything else no wait; `Retry-After` first.
#![cfg(not(target_arch = "wasm32"))]

use retryline::retry_after::{parse_reset, RetryAfterForm};
use retryline::{Budget, Draws, Observed, Operation, OperationKind, Outcome, Policy, Priority, Start};

const WALL: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const FORM: RetryAfterForm = RetryAfterForm::RateLimitReset;

#[test]
fn deltas_fractions_and_epochs() {
    let wait = |v: &str, date: Option<&str>| parse_reset(v, FORM, date, WALL).map(|w| (w.wait_ms, w.form));
    assert_eq!(wait("1", None), Some((1000, FORM)));
    assert_eq!(wait(" 0.25 ", None), Some((250, FORM)));
    assert_eq!(wait("0.0001", None), Some((1, FORM)), "a fraction below a millisecond still waits one");
    // Epoch seconds: 2 s after the response's Date, whatever the local clock says.
    let at = (WALL / 1000 + 3600 + 2).to_string();
    assert_eq!(wait(&at, Some("Thu, 01 Jan 2026 01:00:00 GMT")), Some((2000, FORM)));
    // Without a Date, against the wall clock; an instant already past is no wait.
    assert_eq!(wait(&(WALL / 1000 + 5).to_string(), None), Some((5000, FORM)));
    assert_eq!(wait(&(WALL / 1000 - 5).to_string(), None), Some((0, FORM)));
    for garbage in ["", "soon", "-1", "1e3", "1.2.3", "１"] {
        assert_eq!(wait(garbage, None), None, "{garbage:?}");
    }
    assert_eq!(
        wait("999999999", None).map(|w| w.1),
        Some(RetryAfterForm::Clamped),
        "a delta past the longest timer is clamped"
    );
}

#[test]
fn retry_after_wins_and_the_reset_counts_without_it() {
    let policy = Policy::default();
    let start = || Start {
        policy: policy.clone(),
        kind: OperationKind::Read,
        priority: Priority::Read,
        scope: "s".into(),
        weight: 1,
        key: None,
        method: None,
        url: None,
    };
    let run = |outcome: Outcome| {
        let (mut budget, mut draws) = (Budget::default(), Draws::scripted(vec![0], 1));
        let mut op = Operation::begin(start(), 0, WALL);
        op.start(0, &mut draws, &mut budget);
        op.on_outcome(10, WALL, &outcome, &mut draws, &mut budget);
        budget.hold_remaining("s", 10)
    };
    let reset = |value: &str| Some((FORM, value.to_owned()));
    assert_eq!(run(Outcome { reset: reset("2"), ..Outcome::response(429) }), 2000);
    assert_eq!(run(Outcome { retry_after: Some("1".into()), reset: reset("3"), ..Outcome::response(429) }), 1000);
    assert_eq!(run(Outcome { retry_after: Some("later".into()), reset: reset("3"), ..Outcome::response(503) }), 3000);
    assert_eq!(
        run(Outcome { reset: reset("3"), ..Outcome::failure(Observed::Timeout) }),
        0,
        "only a response has headers"
    );
}
