//! Hedged reads on the virtual clock: a hedge sent after its delay, won and lost, refused by the
//! attempts, the gate, the retry quota, the breaker and a hold; never for an order; `"p95"` from
//! the scope's observed answers; records that say which request won.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::budget;
use retryline::budget::Limit;
use retryline::record::AttemptRecord;
use retryline::{
    Action, Budget, Draws, Loose, Observed, Operation, OperationKind, Outcome, Policy, Priority, Reason, Start,
};
use serde_json::{json, Value};

const WALL: u64 = 1_767_225_600_000;

fn loose(v: Value) -> Loose {
    serde_json::from_value(v).unwrap()
}

fn start(kind: OperationKind, policy: Value) -> Start {
    Start {
        policy: Policy::default().with_options(&loose(policy)).unwrap(),
        kind,
        priority: Priority::for_kind(kind),
        scope: "s".into(),
        weight: 1,
        key: None,
        method: None,
        url: None,
    }
}

/// An operation whose first request went at 0.
fn sent(kind: OperationKind, policy: Value, budget: &mut Budget, draws: &mut Draws) -> Operation {
    let mut op = Operation::begin(start(kind, policy), 0, WALL);
    assert!(matches!(op.start(0, draws, budget), Action::Send { attempt: 1, .. }));
    op
}

/// A record as the tests read it: attempt, sent, reason, hedge, winner.
type Row = (u32, bool, Option<Reason>, bool, Option<u32>);

fn reasons(records: &[AttemptRecord]) -> Vec<Row> {
    records.iter().map(|r| (r.attempt, r.is_sent(), r.reason, r.hedge, r.winner)).collect()
}

const HEDGED: fn() -> Value = || json!({ "maxHedges": 1, "hedgeAfterMs": 50 });

#[test]
fn a_late_read_is_hedged_after_its_delay_and_the_faster_answer_wins() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(1));
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert_eq!(op.hedge_delay(&mut b), Some(50));
    assert_eq!(op.hedge(50, &mut b), Some(Action::Send { attempt: 2, timeout_ms: 10_000 }));
    // One hedge per operation at most: no second delay.
    assert_eq!(op.hedge_delay(&mut b), None);
    let won = op.on_flight_outcome(70, WALL, 2, &Outcome::response(200), &mut d, &mut b);
    assert!(matches!(won, Some(Action::Stop(stop)) if stop.reason == Reason::Success), "{won:?}");
    let records = op.records();
    assert_eq!(
        reasons(records),
        vec![(2, true, Some(Reason::Success), true, Some(2)), (1, true, Some(Reason::Aborted), false, Some(2))]
    );
    assert_eq!((records[0].start_ms, records[0].end_ms), (50, Some(70)));
    assert_eq!((records[1].outcome, records[1].end_ms), (Some(Observed::Aborted), Some(70)));
    assert_eq!(op.attempts_sent(), 2);
}

#[test]
fn the_first_request_can_still_win_the_race() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(2));
    let mut op = sent(OperationKind::Idempotent, HEDGED(), &mut b, &mut d);
    assert!(op.hedge(50, &mut b).is_some());
    let won = op.on_flight_outcome(60, WALL, 1, &Outcome::response(200), &mut d, &mut b);
    assert!(matches!(won, Some(Action::Stop(stop)) if stop.reason == Reason::Success));
    assert_eq!(
        reasons(op.records()),
        vec![(1, true, Some(Reason::Success), false, Some(1)), (2, true, Some(Reason::Aborted), true, Some(1))]
    );
}

#[test]
fn an_answer_before_the_delay_is_no_race() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(3));
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    let done = op.on_flight_outcome(20, WALL, 1, &Outcome::response(200), &mut d, &mut b);
    assert!(matches!(done, Some(Action::Stop(stop)) if stop.reason == Reason::Success));
    assert_eq!(reasons(op.records()), vec![(1, true, Some(Reason::Success), false, None)]);
    assert_eq!((op.hedge_delay(&mut b), op.hedge(60, &mut b)), (None, None));
}

#[test]
fn a_retryable_failure_waits_for_the_other_request_and_two_retry_after_the_race() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(4));
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert!(op.hedge(50, &mut b).is_some());
    assert_eq!(op.on_flight_outcome(80, WALL, 1, &Outcome::response(503), &mut d, &mut b), None);
    // An outcome for a request not in flight changes nothing.
    let pending = Some(Action::Send { attempt: 2, timeout_ms: 10_000 });
    assert_eq!(op.on_flight_outcome(81, WALL, 1, &Outcome::response(200), &mut d, &mut b), pending);
    assert_eq!(op.on_flight_outcome(81, WALL, 9, &Outcome::response(200), &mut d, &mut b), pending);
    let next = op.on_flight_outcome(90, WALL, 2, &Outcome::response(502), &mut d, &mut b);
    assert!(matches!(next, Some(Action::Sleep { .. })), "both failed: a retry is proposed, {next:?}");
    assert_eq!(
        reasons(op.records()),
        vec![(1, true, Some(Reason::Retryable), false, Some(2)), (2, true, Some(Reason::Retryable), true, Some(2))]
    );
}

#[test]
fn a_retryable_failure_then_a_success_of_the_hedge() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(5));
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert!(op.hedge(50, &mut b).is_some());
    assert_eq!(op.on_flight_outcome(80, WALL, 2, &Outcome::failure(Observed::NetworkError), &mut d, &mut b), None);
    let won = op.on_flight_outcome(95, WALL, 1, &Outcome::response(200), &mut d, &mut b);
    assert!(matches!(won, Some(Action::Stop(stop)) if stop.reason == Reason::Success));
    assert_eq!(op.records().iter().filter(|r| r.winner == Some(1)).count(), 2);
}

#[test]
fn an_order_and_a_policy_without_hedges_are_never_hedged() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(6));
    let mut order = sent(OperationKind::Order, HEDGED(), &mut b, &mut d);
    assert_eq!((order.hedge_delay(&mut b), order.hedge(50, &mut b)), (None, None));
    let mut plain = sent(OperationKind::Read, json!({ "hedgeAfterMs": 50 }), &mut b, &mut d);
    assert_eq!((plain.hedge_delay(&mut b), plain.hedge(50, &mut b)), (None, None));
    assert_eq!(order.records().len() + plain.records().len(), 0, "no records: nothing was proposed");
}

#[test]
fn two_hedges_at_most_with_max_hedges_two_and_all_count_as_attempts() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(7));
    let policy = json!({ "maxHedges": 2, "hedgeAfterMs": 30, "maxAttempts": 2 });
    let mut op = sent(OperationKind::Read, policy, &mut b, &mut d);
    assert!(op.hedge(30, &mut b).is_some());
    assert_eq!(op.hedge_delay(&mut b), Some(30));
    // The second hedge would be a third request: `maxAttempts` refuses it, and the race goes on.
    assert_eq!(op.hedge(60, &mut b), None);
    let last = op.records().last().unwrap();
    assert_eq!((last.attempt, last.hedge, last.reason), (3, true, Some(Reason::Attempts)));
    assert_eq!(op.hedge_delay(&mut b), None);
    assert!(op.stopped().is_none());
}

#[test]
fn a_hedge_must_fit_the_deadline() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(8));
    let policy = json!({ "maxHedges": 1, "hedgeAfterMs": 600, "deadlineMs": 1000, "attemptTimeoutMs": 500 });
    let mut op = sent(OperationKind::Read, policy, &mut b, &mut d);
    assert_eq!(op.hedge(600, &mut b), None);
    let refused = op.records().last().unwrap();
    assert_eq!(
        (refused.reason, refused.decision, refused.remaining_ms),
        (Some(Reason::Deadline), retryline::record::Decision::Refused, 400)
    );
}

#[test]
fn hedges_spend_the_retry_quota_and_stop_when_it_is_spent() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 5, "retryCost": 5 } }));
    let mut d = Draws::seeded(9);
    let mut first = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert!(first.hedge(50, &mut b).is_some());
    assert_eq!(b.snapshot(50, WALL)[0].retry_quota.unwrap().available, 0);
    let mut second = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert_eq!(second.hedge(50, &mut b), None);
    let refused = second.records().last().unwrap();
    assert_eq!((refused.reason, refused.limit, refused.hedge), (Some(Reason::Budget), Some(Limit::RetryQuota), true));
    // The winning hedge's success pays its cost back; the loser's request was sent and stays spent.
    first.on_flight_outcome(60, WALL, 2, &Outcome::response(200), &mut d, &mut b);
    assert_eq!(b.snapshot(60, WALL)[0].retry_quota.unwrap().available, 5);
}

#[test]
fn hedges_spend_tokens_and_wait_for_none() {
    let mut b = budget(json!({ "capacity": 1, "refillPerSecond": 1, "reserve": 0, "retryQuota": false }));
    let mut d = Draws::seeded(10);
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert_eq!(op.hedge(50, &mut b), None);
    let refused = op.records().last().unwrap();
    assert_eq!((refused.reason, refused.limit), (Some(Reason::Budget), Some(Limit::Tokens)));
}

#[test]
fn an_open_breaker_and_a_hold_stop_hedges() {
    let mut b = budget(json!({ "retryQuota": false, "breaker": { "consecutiveFailures": 1, "openMs": 1000 } }));
    let mut d = Draws::seeded(11);
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    let mut other = sent(OperationKind::Read, json!({ "maxAttempts": 1 }), &mut b, &mut d);
    other.on_outcome(40, WALL, &Outcome::failure(Observed::Timeout), &mut d, &mut b);
    assert_eq!(op.hedge(50, &mut b), None);
    assert_eq!(op.records().last().unwrap().reason, Some(Reason::CircuitOpen));

    let mut b = Budget::unlimited();
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    b.hold("s", 5_000);
    assert_eq!(op.hedge(50, &mut b), None);
    assert_eq!(op.records().last().unwrap().reason, Some(Reason::ProviderWait));

    let mut b = Budget::unlimited();
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    b.ban("s", 5_000);
    assert_eq!(op.hedge(50, &mut b), None);
    assert_eq!(op.records().last().unwrap().reason, Some(Reason::Banned));
}

#[test]
fn an_abort_ends_every_request_of_the_race() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(12));
    let mut op = sent(OperationKind::Read, HEDGED(), &mut b, &mut d);
    assert!(op.hedge(50, &mut b).is_some());
    assert_eq!(op.abort(70, &mut b).reason, Reason::Aborted);
    let aborted: Vec<_> = op.records().iter().map(|r| (r.attempt, r.outcome)).collect();
    assert_eq!(aborted, vec![(2, Some(Observed::Aborted)), (1, Some(Observed::Aborted))]);
}

#[test]
fn p95_waits_for_twenty_answers_then_follows_the_scope() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(13));
    let policy = json!({ "maxHedges": 1, "hedgeAfterMs": "p95", "maxAttempts": 1 });
    for i in 0..19u64 {
        let mut op = sent(OperationKind::Read, policy.clone(), &mut b, &mut d);
        assert_eq!(op.hedge_delay(&mut b), None, "{i} answers are too few");
        op.on_outcome(20, WALL, &Outcome::response(200), &mut d, &mut b);
    }
    let mut op = sent(OperationKind::Read, policy.clone(), &mut b, &mut d);
    op.on_outcome(1000, WALL, &Outcome::failure(Observed::Timeout), &mut d, &mut b);
    // 19 answers in 20 ms and one timeout at 1 s: the 95th percentile is the 20 ms bucket (bound 21).
    let op = sent(OperationKind::Read, policy.clone(), &mut b, &mut d);
    let p95 = op.hedge_delay(&mut b).unwrap();
    assert!((20..=25).contains(&p95), "{p95}");
    // A tail of slow answers moves it up.
    for _ in 0..20 {
        let mut op = sent(OperationKind::Read, policy.clone(), &mut b, &mut d);
        op.on_outcome(400, WALL, &Outcome::response(200), &mut d, &mut b);
    }
    let p95 = sent(OperationKind::Read, policy, &mut b, &mut d).hedge_delay(&mut b).unwrap();
    assert!((400..=500).contains(&p95), "{p95}");
}

#[test]
fn the_options_are_checked_and_a_saved_policy_reads_back() {
    for (options, field) in [
        (json!({ "hedgeAfterMs": "p99" }), "hedgeAfterMs"),
        (json!({ "hedgeAfterMs": 0 }), "hedgeAfterMs"),
        (json!({ "hedgeAfterMs": true }), "hedgeAfterMs"),
        (json!({ "maxHedges": 5 }), "maxHedges"),
        (json!({ "maxHedges": 1.5 }), "maxHedges"),
    ] {
        let error = Policy::default().with_options(&loose(options.clone())).unwrap_err();
        assert!(error.to_string().contains(field), "{options}: {error}");
    }
    // A name that is not "p95" is told what the one name is.
    let error = Policy::default().with_options(&loose(json!({ "hedgeAfterMs": "p99" }))).unwrap_err();
    assert!(error.to_string().contains("\"p95\""), "{error}");
    for options in [json!({ "maxHedges": 2, "hedgeAfterMs": "p95" }), json!({ "maxHedges": 1, "hedgeAfterMs": 25 })] {
        let policy = Policy::default().with_options(&loose(options)).unwrap();
        let text = serde_json::to_value(&policy).unwrap();
        let back: Policy = serde_json::from_value(text).unwrap();
        assert_eq!(back, policy);
        assert_ne!(back, Policy::default());
    }
}

#[test]
fn a_latency_past_every_bucket_is_counted_in_the_last() {
    let mut latency = retryline::budget::latency::Latency::default();
    for _ in 0..20 {
        latency.observe(3_600_000);
    }
    let p95 = latency.quantile(950).expect("twenty observations");
    assert!(p95 >= 49_000, "{p95}");
    // Halved at a thousand: recent answers weigh most (60 slow ones after 1 000 fast are 11 %, not 6 %).
    let mut latency = retryline::budget::latency::Latency::default();
    (0..1000).for_each(|_| latency.observe(10));
    assert_eq!(latency.quantile(950), Some(10));
    (0..60).for_each(|_| latency.observe(1000));
    assert!(latency.quantile(950) >= Some(1000), "{:?}", latency.quantile(950));
    // A time on a bucket's bound is that bucket's: twenty answers in 1 ms read as 1 ms.
    let mut latency = retryline::budget::latency::Latency::default();
    (0..20).for_each(|_| latency.observe(1));
    assert_eq!(latency.quantile(950), Some(1));
}

#[test]
fn only_the_race_names_its_winner_and_in_flight_follows_the_chosen_request() {
    let (mut b, mut d) = (Budget::unlimited(), Draws::seeded(14));
    let policy = json!({ "maxHedges": 1, "hedgeAfterMs": 50, "baseDelayMs": 100, "maxDelayMs": 100, "jitter": "none" });
    let mut op = sent(OperationKind::Read, policy, &mut b, &mut d);
    assert_eq!(op.in_flight(), Some(1));
    // Attempt 1 answers 503 before any hedge: a retry, then attempt 2 raced by hedge 3.
    let until = match op.on_flight_outcome(20, WALL, 1, &Outcome::response(503), &mut d, &mut b) {
        Some(Action::Sleep { until }) => until,
        other => panic!("{other:?}"),
    };
    assert_eq!(op.in_flight(), None);
    assert!(matches!(op.on_wake(until, &mut b), Action::Send { attempt: 2, .. }));
    assert!(matches!(op.hedge(until + 50, &mut b), Some(Action::Send { attempt: 3, .. })));
    assert!(op.select_flight(3));
    assert_eq!(op.in_flight(), Some(3));
    assert!(!op.select_flight(1), "attempt 1 is over");
    op.on_flight_outcome(until + 60, WALL, 3, &Outcome::response(200), &mut d, &mut b);
    let winners: Vec<_> = op.records().iter().map(|r| (r.attempt, r.winner)).collect();
    assert_eq!(winners, vec![(1, None), (3, Some(3)), (2, Some(3))]);
    assert_eq!(op.in_flight(), None);
}
