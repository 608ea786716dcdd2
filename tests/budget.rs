//! The shared budget under contention, on a virtual clock.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::sim::{Respond, Sim};
use retryline::budget::{Ask, BudgetConfig};
use retryline::input::ErrorClass;
use retryline::{Budget, Loose, Observed, OperationKind, Outcome, Priority, Problem, Reason};
use serde_json::{json, Value};

fn budget(options: Value) -> Budget {
    let options: Loose = serde_json::from_value(options).unwrap();
    Budget::new(BudgetConfig::from_options(&options).expect("valid budget options"))
}

/// A read asking for one token in scope `s` at `earliest`, able to start until `latest`.
fn ask(earliest: u64, latest: u64) -> Ask<'static> {
    Ask { scope: "s", weight: 1, priority: Priority::Read, retry: false, after_timeout: false, earliest, latest }
}

fn ok_after(ms: u64) -> Respond {
    Box::new(move |_, _| (ms, Outcome::response(200)))
}

fn always(status: u16) -> Respond {
    Box::new(move |_, _| (20, Outcome::response(status)))
}

fn start(policy: Value, kind: OperationKind, priority: Priority, weight: u32) -> retryline::Start {
    let mut s = common::start(policy, kind, "https://x.test");
    s.priority = priority;
    s.weight = weight;
    s
}

#[test]
fn two_hundred_concurrent_operations_never_overspend_the_bucket() {
    let mut sim =
        Sim::new(budget(json!({ "capacity": 10, "refillPerSecond": 5, "reserve": 0, "retryQuota": false })), 1);
    for i in 0..200u64 {
        let weight = 1 + (i % 3) as u32;
        sim.add(
            i % 50,
            start(
                json!({ "deadlineMs": 200000, "attemptTimeoutMs": 1000 }),
                OperationKind::Read,
                Priority::Read,
                weight,
            ),
            ok_after(30),
        );
    }
    sim.run(u64::MAX);
    assert!(sim.stops().iter().all(|s| *s == Some(Reason::Success)), "every operation fits its deadline");
    assert_eq!(sim.sends.len(), 200, "one request each");
    for window in [1u64, 100, 999, 1000, 5000, 20_000] {
        let allowed = 10 + 5 * window / 1000;
        let spent = sim.max_weight_in_window(window);
        assert!(spent <= allowed, "{spent} weight in {window} ms; the bucket allows {allowed}");
    }
    // The total weight is 399, so the last request cannot start before (399 − 10) / 5 s.
    let last = sim.sends.iter().map(|s| s.0).max().unwrap();
    assert!(last >= 77_800, "{last}");
}

#[test]
fn timers_that_fire_late_do_not_bunch_sends_together() {
    let mut sim =
        Sim::new(budget(json!({ "capacity": 10, "refillPerSecond": 10, "reserve": 0, "retryQuota": false })), 1);
    for _ in 0..100 {
        sim.add(
            0,
            start(json!({ "deadlineMs": 60000, "attemptTimeoutMs": 1000 }), OperationKind::Read, Priority::Read, 1),
            ok_after(5),
        );
    }
    // The event loop stalls from 2 s to 4.5 s: twenty-five planned sends all wake at once.
    sim.stall = Some((2000, 4500));
    sim.run(u64::MAX);
    assert_eq!(sim.sends.len(), 100);
    for window in [1u64, 500, 1000, 3000] {
        let allowed = 10 + 10 * window / 1000;
        let spent = sim.max_weight_in_window(window);
        assert!(spent <= allowed, "{spent} sent within {window} ms; the bucket allows {allowed}");
    }
}

#[test]
fn operations_the_bucket_cannot_serve_in_time_are_refused_before_sending() {
    let mut sim =
        Sim::new(budget(json!({ "capacity": 5, "refillPerSecond": 1, "reserve": 0, "retryQuota": false })), 1);
    let ops: Vec<usize> = (0..20)
        .map(|_| {
            sim.add(
                0,
                start(json!({ "deadlineMs": 4000, "attemptTimeoutMs": 1000 }), OperationKind::Read, Priority::Read, 1),
                ok_after(10),
            )
        })
        .collect();
    sim.run(u64::MAX);
    let refused: Vec<usize> = ops.iter().copied().filter(|&i| sim.stop(i) == Some(Reason::Budget)).collect();
    // 5 at once, then one a second until 3000 ms (the last start that fits a 1 s attempt before 4 s).
    assert_eq!(sim.sends.len(), 8);
    assert_eq!(refused.len(), 12);
    for i in refused {
        let op = sim.operation(i);
        assert_eq!(op.attempts_sent(), 0, "refused without touching the wire");
        assert_eq!(op.records()[0].decided_at_ms, 0, "refused before any sleep");
    }
}

#[test]
fn a_refresh_flood_leaves_the_reserve_to_a_reconcile_query() {
    let mut sim = Sim::new(budget(json!({ "capacity": 100, "refillPerSecond": 1, "reserve": 0.3 })), 1);
    for _ in 0..500 {
        sim.add(
            0,
            start(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), OperationKind::Read, Priority::Refresh, 1),
            ok_after(10),
        );
    }
    let reconcile = sim.add(
        100,
        start(json!({ "deadlineMs": 2000, "attemptTimeoutMs": 1000 }), OperationKind::Read, Priority::Reconcile, 1),
        ok_after(10),
    );
    let order = sim.add(
        100,
        start(json!({ "deadlineMs": 2000, "attemptTimeoutMs": 1000 }), OperationKind::Order, Priority::Order, 5),
        ok_after(10),
    );
    sim.run(u64::MAX);
    let refreshes_first_second = sim.sends.iter().filter(|s| s.0 < 1000 && s.1 < 500).count();
    assert!(refreshes_first_second <= 70, "refreshes kept out of the 30-token reserve: {refreshes_first_second}");
    let sent_at = |i: usize| sim.sends.iter().find(|s| s.1 == i).map(|s| s.0);
    assert_eq!(sent_at(reconcile), Some(100), "the reconcile query went at once");
    assert_eq!(sent_at(order), Some(100), "so did the order, from the upper part of the reserve");
    let refused = sim.stops()[..500].iter().filter(|s| **s == Some(Reason::Budget)).count();
    assert!(refused >= 400, "most refreshes were refused: {refused}");
}

#[test]
fn the_retry_quota_stops_a_retry_storm_while_first_attempts_continue() {
    // Default budget: no token limit, the AWS-style retry quota (500; retry 5, after a timeout 10).
    let mut sim = Sim::new(Budget::default(), 3);
    let policy = json!({ "maxAttempts": 5, "baseDelayMs": 10, "maxDelayMs": 100, "deadlineMs": 60000, "attemptTimeoutMs": 1000 });
    let ops: Vec<usize> = (0..300u64)
        .map(|i| sim.add(i * 20, start(policy.clone(), OperationKind::Read, Priority::Read, 1), always(503)))
        .collect();
    sim.run(u64::MAX);
    let operations_sent: std::collections::BTreeSet<usize> = sim.sends.iter().map(|s| s.1).collect();
    let retries = sim.sends.len() - ops.len();
    assert_eq!(operations_sent.len(), 300, "first attempts kept flowing after the quota ran out");
    assert!(ops.iter().all(|&i| sim.operation(i).attempts_sent() >= 1), "every first attempt went out");
    assert_eq!(retries, 100, "500 units / 5 per retry, never refunded while everything fails");
    assert!(ops.iter().filter(|&&i| sim.stop(i) == Some(Reason::Budget)).count() >= 250);
    // Without the quota the same storm would send 1500 requests.
    let mut unlimited = Sim::new(budget(json!({ "retryQuota": false })), 3);
    for i in 0..300u64 {
        unlimited.add(i * 20, start(policy.clone(), OperationKind::Read, Priority::Read, 1), always(503));
    }
    unlimited.run(u64::MAX);
    assert_eq!(unlimited.sends.len(), 1500);
}

#[test]
fn timeouts_cost_more_of_the_quota_and_successes_pay_it_back() {
    let mut sim = Sim::new(budget(json!({ "retryQuota": { "capacity": 100 } })), 3);
    let policy =
        json!({ "maxAttempts": 3, "baseDelayMs": 10, "maxDelayMs": 10, "deadlineMs": 60000, "attemptTimeoutMs": 1000 });
    for i in 0..50u64 {
        let timeouts: Respond = Box::new(|_, _| (1000, Outcome::failure(Observed::Timeout)));
        sim.add(i * 5000, start(policy.clone(), OperationKind::Read, Priority::Read, 1), timeouts);
    }
    sim.run(u64::MAX);
    assert_eq!(sim.sends.len() - 50, 10, "100 units / 10 per retry after a timeout");

    // A retry that succeeds refunds its cost; a first-attempt success adds 1.
    let mut sim = Sim::new(budget(json!({ "retryQuota": { "capacity": 10, "retryCost": 5 } })), 3);
    let flaky = || -> Respond { Box::new(|attempt, _| (10, Outcome::response(if attempt == 1 { 503 } else { 200 }))) };
    for i in 0..20u64 {
        sim.add(i * 1000, start(policy.clone(), OperationKind::Read, Priority::Read, 1), flaky());
    }
    sim.run(u64::MAX);
    assert!(sim.stops().iter().all(|s| *s == Some(Reason::Success)), "refunds keep the quota from draining");
}

#[test]
fn a_reconcile_query_is_exempt_from_the_retry_quota() {
    let mut sim = Sim::new(budget(json!({ "retryQuota": { "capacity": 0 } })), 3);
    let policy = json!({ "maxAttempts": 3, "baseDelayMs": 10, "maxDelayMs": 10 });
    let read = sim.add(0, start(policy.clone(), OperationKind::Read, Priority::Read, 1), always(503));
    let reconcile = sim.add(0, start(policy, OperationKind::Read, Priority::Reconcile, 1), always(503));
    sim.run(u64::MAX);
    assert_eq!((sim.stop(read), sim.operation(read).attempts_sent()), (Some(Reason::Budget), 1));
    assert_eq!((sim.stop(reconcile), sim.operation(reconcile).attempts_sent()), (Some(Reason::Attempts), 3));
}

#[test]
fn a_hold_starts_at_receipt_and_ends_on_time() {
    let mut sim = Sim::new(Budget::default(), 3);
    let throttled: Respond = Box::new(|attempt, _| {
        let o = if attempt == 1 {
            Outcome { retry_after: Some("2".into()), ..Outcome::response(429) }
        } else {
            Outcome::response(200)
        };
        (100, o)
    });
    let a = sim.add(1000, start(json!({}), OperationKind::Read, Priority::Read, 1), throttled);
    let b = sim.add(1500, start(json!({}), OperationKind::Read, Priority::Read, 1), ok_after(10));
    let c = sim.add(3100, start(json!({}), OperationKind::Read, Priority::Read, 1), ok_after(10));
    sim.run(u64::MAX);
    let sent = |i: usize| sim.sends.iter().filter(|s| s.1 == i).map(|s| s.0).collect::<Vec<_>>();
    assert_eq!(sent(a), vec![1000, 3100], "the 429 arrived at 1100: 2 s from receipt");
    assert_eq!(sent(b), vec![3100], "B waited for the same boundary");
    assert_eq!(sent(c), vec![3100], "the hold is over at 3100, not later");
}

#[test]
fn a_ban_ends_on_time_by_the_monotonic_clock() {
    let mut b = Budget::default();
    b.ban("s", 6000);
    assert_eq!(b.ban_remaining("s", 5999), 1);
    assert_eq!(b.ban_remaining("s", 6000), 0);
    assert!(b.admit(&ask(6000, 16_000)).is_ok());
    let snapshot = b.snapshot(1000, 1_000_000);
    assert_eq!((snapshot[0].banned_until, snapshot[0].ban_remaining_ms), (Some(1_005_000), 5000));
}

#[test]
fn the_snapshot_describes_each_scope() {
    let mut b = budget(
        json!({ "capacity": 10, "refillPerSecond": 2, "reserve": 0, "scopes": { "acct:7": { "capacity": 3 } } }),
    );
    let ask = |scope, at| Ask {
        scope,
        weight: 2,
        priority: Priority::Read,
        retry: false,
        after_timeout: false,
        earliest: at,
        latest: 1_000_000,
    };
    for _ in 0..6 {
        b.admit(&ask("https://x.test", 0)).unwrap();
    }
    b.admit(&ask("acct:7", 0)).unwrap();
    b.hold("https://x.test", 2500);
    let s = b.snapshot(0, 10_000);
    let x = s.iter().find(|s| s.scope == "https://x.test").unwrap();
    assert_eq!((x.tokens, x.capacity, x.queued), (Some(0), Some(10), 1), "12 weight granted: 10 now, 2 waiting");
    assert_eq!((x.held_until, x.hold_remaining_ms), (Some(12_500), 2500));
    assert_eq!(x.retry_quota.map(|q| q.available), Some(500));
    let acct = s.iter().find(|s| s.scope == "acct:7").unwrap();
    assert_eq!((acct.tokens, acct.capacity), (Some(1), Some(3)), "a scope's own capacity, the shared refill rate");
}

#[test]
fn the_providers_used_weight_corrects_the_local_bucket() {
    let mut b = budget(
        json!({ "capacity": 1200, "refillPerSecond": 20, "usedWeightHeader": "X-MBX-USED-WEIGHT-1M", "reserve": 0 }),
    );
    assert_eq!(b.used_weight_header("https://x.test"), Some("x-mbx-used-weight-1m"));
    let ask = |w, at| Ask {
        scope: "https://x.test",
        weight: w,
        priority: Priority::Read,
        retry: false,
        after_timeout: false,
        earliest: at,
        latest: u64::MAX / 2,
    };
    b.admit(&ask(1, 0)).unwrap();
    // Other processes behind the same IP have spent 1100 of the 1200 this minute.
    b.observe_used_weight("https://x.test", 1100, 0);
    assert_eq!(b.snapshot(0, 0)[0].tokens, Some(100));
    assert_eq!(b.admit(&ask(100, 0)).unwrap().start_at, 0);
    assert_eq!(b.admit(&ask(20, 0)).unwrap().start_at, 1000, "20 tokens take a second to refill");
    // A lower count never raises the local level: other traffic may not be visible to the provider yet.
    b.observe_used_weight("https://x.test", 0, 1000);
    assert_eq!(b.snapshot(1000, 0)[0].tokens, Some(0));
}

#[test]
fn a_weight_larger_than_the_bucket_is_refused() {
    let mut sim = Sim::new(budget(json!({ "capacity": 5, "refillPerSecond": 5 })), 1);
    let heavy = sim.add(0, start(json!({}), OperationKind::Read, Priority::Read, 6), ok_after(1));
    sim.run(u64::MAX);
    assert_eq!((sim.stop(heavy), sim.sends.len()), (Some(Reason::Budget), 0));
}

#[test]
fn tokens_of_a_refused_wake_go_back_to_the_bucket() {
    let mut b = budget(json!({ "capacity": 1, "refillPerSecond": 1, "reserve": 0 }));
    let grant = b.admit(&ask(0, 10_000)).unwrap();
    assert_eq!(b.admit(&ask(0, 10_000)).unwrap().start_at, 1000);
    b.release("s", grant);
    assert_eq!(b.snapshot(0, 0)[0].tokens, Some(0), "one grant still holds the token refilled by 1000");
    // The released token is free again, at once: spent now, it is refilled by 1000 for the grant
    // that waits (two starts in one second, as one token a second allows). The bucket once kept
    // the waiting grant's schedule in front of it and granted 1000.
    assert_eq!(b.admit(&ask(0, 10_000)).unwrap().start_at, 0, "the released token is free again");
    assert_eq!(b.admit(&ask(0, 10_000)).unwrap().start_at, 2000, "and the next waits behind both");
}

#[test]
fn budget_options_are_validated_by_name() {
    let table: Vec<(Value, &str, Problem, ErrorClass)> = vec![
        (json!({ "capacity": 10 }), "capacity", Problem::Requires { other: "refillPerSecond" }, ErrorClass::TypeError),
        (
            json!({ "refillPerSecond": 10 }),
            "refillPerSecond",
            Problem::Requires { other: "capacity" },
            ErrorClass::TypeError,
        ),
        (
            json!({ "capacity": 0, "refillPerSecond": 1 }),
            "capacity",
            Problem::TooSmall { min: 1 },
            ErrorClass::RangeError,
        ),
        (
            json!({ "capacity": 5, "refillPerSecond": 0 }),
            "refillPerSecond",
            Problem::NotPositive,
            ErrorClass::RangeError,
        ),
        (
            json!({ "capacity": 5, "refillPerSecond": -1 }),
            "refillPerSecond",
            Problem::NotPositive,
            ErrorClass::RangeError,
        ),
        (json!({ "reserve": 1 }), "reserve", Problem::NotAFraction, ErrorClass::RangeError),
        (json!({ "reserve": -0.1 }), "reserve", Problem::NotAFraction, ErrorClass::RangeError),
        (json!({ "usedWeightHeader": "" }), "usedWeightHeader", Problem::Empty, ErrorClass::RangeError),
        (
            json!({ "retryQuota": "yes" }),
            "retryQuota",
            Problem::WrongType { expected: "a boolean or an object", found: "a string" },
            ErrorClass::TypeError,
        ),
        (json!({ "retryQuota": { "cost": 1 } }), "retryQuota.cost", Problem::UnknownField, ErrorClass::TypeError),
        (
            json!({ "scopes": { "a": { "capacity": 1 } } }),
            "scopes.a.capacity",
            Problem::Requires { other: "refillPerSecond" },
            ErrorClass::TypeError,
        ),
        (json!({ "scopes": { "a": { "burst": 1 } } }), "scopes.a.burst", Problem::UnknownField, ErrorClass::TypeError),
        (json!({ "capacty": 1 }), "capacty", Problem::UnknownField, ErrorClass::TypeError),
    ];
    for (options, field, problem, class) in table {
        let loose: Loose = serde_json::from_value(options.clone()).unwrap();
        let err = BudgetConfig::from_options(&loose).expect_err("invalid");
        assert_eq!((err.field.as_str(), &err.problem, err.class()), (field, &problem, class), "{options}");
    }
    let ok: Loose = serde_json::from_value(
        json!({ "capacity": 6000, "refillPerSecond": 100, "reserve": 0.25, "retryQuota": false }),
    )
    .unwrap();
    let config = BudgetConfig::from_options(&ok).unwrap();
    assert_eq!(
        (config.limits.capacity, config.limits.refill_milli, config.limits.reserve_permille),
        (Some(6000), 100_000, 250)
    );
    assert!(config.retry_quota.is_none());
}

#[test]
fn a_refusal_names_the_limit_that_refused() {
    use retryline::budget::Limit;
    let mut b = budget(
        json!({ "capacity": 2, "refillPerSecond": 1, "reserve": 0, "retryQuota": { "capacity": 5, "retryCost": 5 } }),
    );
    assert!(b.admit(&ask(0, 0)).is_ok());
    assert!(b.admit(&ask(0, 0)).is_ok());
    assert_eq!(b.admit(&ask(0, 500)).unwrap_err(), Limit::Tokens, "the next token comes at 1000");
    let retry = |earliest| Ask { retry: true, ..ask(earliest, 60_000) };
    assert!(b.admit(&retry(0)).is_ok(), "the quota's 5 units pay for one retry");
    assert_eq!(b.admit(&retry(0)).unwrap_err(), Limit::RetryQuota);
}

#[test]
fn records_of_budget_refusals_say_which_limit() {
    use retryline::budget::Limit;
    use retryline::{Action, Draws};
    // The quota: one retry's worth.
    let mut b = budget(json!({ "retryQuota": { "capacity": 5 } }));
    let mut draws = Draws::scripted(vec![10, 10], 1);
    let mut op =
        retryline::Operation::begin(start(json!({ "maxAttempts": 5 }), OperationKind::Read, Priority::Read, 1), 0, 0);
    op.start(0, &mut draws, &mut b);
    assert!(matches!(op.on_outcome(5, 5, &Outcome::response(503), &mut draws, &mut b), Action::Sleep { .. }));
    assert!(matches!(op.on_wake(15, &mut b), Action::Send { .. }));
    let Action::Stop(stop) = op.on_outcome(20, 20, &Outcome::response(503), &mut draws, &mut b) else { panic!() };
    assert_eq!(stop.reason, Reason::Budget);
    assert_eq!(op.records().last().unwrap().limit, Some(Limit::RetryQuota));
    // The tokens: a weight the bucket can never hold.
    let mut b = budget(json!({ "capacity": 2, "refillPerSecond": 1 }));
    let mut op = retryline::Operation::begin(start(json!({}), OperationKind::Read, Priority::Read, 5), 0, 0);
    let Action::Stop(stop) = op.start(0, &mut Draws::seeded(1), &mut b) else { panic!() };
    assert_eq!(stop.reason, Reason::Budget);
    assert_eq!(op.records()[0].limit, Some(Limit::Tokens));
}

/// README, index.d.ts and config.rs say it this way round: reads may use only the upper third of
/// the reserve, orders its upper two thirds, reconciliation all of it (they once said the opposite).
#[test]
fn the_reserve_gives_reads_its_upper_third_and_orders_its_upper_two_thirds() {
    // 30 tokens, a reserve of 9 (0.3), no refill to speak of within the test.
    let available = |priority: Priority| {
        let mut b = budget(json!({ "capacity": 30, "refillPerSecond": 0.001, "reserve": 0.3, "retryQuota": false }));
        // Bounded: a mutant without a bucket must fail this test, not hang it.
        (0..100).take_while(|_| b.admit(&Ask { priority, ..ask(0, 0) }).is_ok()).count()
    };
    assert_eq!(available(Priority::Refresh), 21, "refreshes stay out of the 9-token reserve");
    assert_eq!(available(Priority::Read), 24, "reads take its upper third (3 of 9)");
    assert_eq!(available(Priority::Order), 27, "orders take its upper two thirds (6 of 9)");
    assert_eq!(available(Priority::Reconcile), 30, "reconciliation takes all of it");
}

#[test]
fn a_one_token_bucket_serves_every_priority_a_fraction_of_a_token_reserves_nothing() {
    for priority in [Priority::Refresh, Priority::Read, Priority::Order, Priority::Reconcile] {
        // The default reserve is 0.2: a fifth of one token, which no request could use.
        let mut b = budget(json!({ "capacity": 1, "refillPerSecond": 1, "retryQuota": false }));
        assert!(b.admit(&Ask { priority, ..ask(0, 0) }).is_ok(), "{priority:?} refused by a one-token bucket");
    }
}
