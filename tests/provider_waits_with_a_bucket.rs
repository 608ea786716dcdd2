//! A token bucket never shortens a provider's wait: throttles, holds and retries under `capacity`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::sim::{Respond, Sim};
use retryline::budget::BudgetConfig;
use retryline::{Action, Budget, Decision, Draws, Loose, Operation, OperationKind, Outcome, Priority, Reason};
use serde_json::{json, Value};

const WALL: u64 = 1_767_225_600_000;

fn budget(options: Value) -> Budget {
    let options: Loose = serde_json::from_value(options).unwrap();
    Budget::new(BudgetConfig::from_options(&options).expect("valid budget options"))
}

fn throttle(seconds: &str) -> Outcome {
    Outcome { retry_after: Some(seconds.to_owned()), ..Outcome::response(429) }
}

fn read(policy: Value, at: u64) -> Operation {
    common::begin(policy, OperationKind::Read, "https://x.test", at)
}

#[test]
fn a_429_with_retry_after_3_is_resent_3_s_after_receipt_with_tokens_to_spare() {
    for options in [
        json!({ "capacity": 5, "refillPerSecond": 1 }),
        json!({ "capacity": 1000, "refillPerSecond": 100, "reserve": 0 }),
        json!({ "capacity": 1, "refillPerSecond": 1, "reserve": 0, "retryQuota": false }),
    ] {
        let mut b = budget(options.clone());
        let mut draws = Draws::scripted(vec![100], 1);
        let mut op = read(json!({}), 0);
        assert!(matches!(op.start(0, &mut draws, &mut b), Action::Send { attempt: 1, .. }), "{options}");
        let action = op.on_outcome(200, WALL + 200, &throttle("3"), &mut draws, &mut b);
        assert_eq!(action, Action::Sleep { until: 3200 }, "{options}: never an immediate resend");
        assert_eq!(op.on_wake(3199, &mut b), Action::Sleep { until: 3200 }, "{options}");
        assert!(matches!(op.on_wake(3200, &mut b), Action::Send { attempt: 2, .. }), "{options}");
        op.on_outcome(3250, WALL + 3250, &Outcome::response(200), &mut draws, &mut b);
        let sent = &op.records()[1];
        assert_eq!(
            (sent.provider_wait_ms, sent.budget_wait_ms, sent.planned_wait_ms, sent.start_ms),
            (3000, 0, 3000, 3200),
            "{options}"
        );
    }
}

#[test]
fn tokens_that_come_after_the_providers_boundary_lengthen_the_wait_and_say_so() {
    // One token, refilled every 4 s: the retry's token comes at 4000, after the 1 s Retry-After.
    let mut b = budget(json!({ "capacity": 1, "refillPerSecond": 0.25, "reserve": 0 }));
    let mut draws = Draws::scripted(vec![100], 1);
    let mut op = read(json!({}), 0);
    op.start(0, &mut draws, &mut b);
    let action = op.on_outcome(
        100,
        WALL + 100,
        &Outcome { retry_after: Some("1".into()), ..Outcome::response(503) },
        &mut draws,
        &mut b,
    );
    assert_eq!(action, Action::Sleep { until: 4000 });
    assert!(matches!(op.on_wake(4000, &mut b), Action::Send { attempt: 2, .. }));
    op.on_outcome(4050, WALL + 4050, &Outcome::response(200), &mut draws, &mut b);
    let r = &op.records()[1];
    assert_eq!((r.provider_wait_ms, r.budget_wait_ms, r.planned_wait_ms), (1000, 2900, 3900));
}

#[test]
fn a_draw_longer_than_the_providers_wait_is_kept_under_a_bucket() {
    let mut b = budget(json!({ "capacity": 10, "refillPerSecond": 10 }));
    let mut draws = Draws::scripted(vec![2500], 1);
    let mut op = read(json!({}), 0);
    op.start(0, &mut draws, &mut b);
    assert_eq!(op.on_outcome(100, WALL, &throttle("1"), &mut draws, &mut b), Action::Sleep { until: 2600 });
}

#[test]
fn a_provider_wait_that_cannot_fit_is_refused_before_the_bucket_is_asked() {
    let mut b = budget(json!({ "capacity": 2, "refillPerSecond": 1, "reserve": 0 }));
    let mut draws = Draws::scripted(vec![100], 1);
    let mut op = read(json!({ "deadlineMs": 5000, "attemptTimeoutMs": 1000 }), 0);
    op.start(0, &mut draws, &mut b);
    let Action::Stop(stop) = op.on_outcome(100, WALL, &throttle("10"), &mut draws, &mut b) else { panic!() };
    assert_eq!(stop.reason, Reason::ProviderWait);
    assert_eq!(b.snapshot(100, WALL)[0].tokens, Some(1), "the refused retry holds no token");
}

#[test]
fn no_operation_in_a_throttled_scope_sends_before_the_boundary() {
    let mut sim = Sim::new(budget(json!({ "capacity": 20, "refillPerSecond": 10 })), 7);
    let throttled: Respond =
        Box::new(|attempt, _| (100, if attempt == 1 { throttle("3") } else { Outcome::response(200) }));
    let first = sim.add(0, common::start(json!({}), OperationKind::Read, "https://x.test"), throttled);
    let others: Vec<usize> = (1..6u64)
        .map(|i| {
            let ok: Respond = Box::new(|_, _| (50, Outcome::response(200)));
            sim.add(i * 400, common::start(json!({}), OperationKind::Read, "https://x.test"), ok)
        })
        .collect();
    sim.run(u64::MAX);
    assert!(sim.stops().iter().all(|s| *s == Some(Reason::Success)));
    let sends: Vec<(u64, usize)> = sim.sends.iter().map(|s| (s.0, s.1)).collect();
    assert_eq!(sends[0], (0, first));
    for &(at, op) in &sends[1..] {
        assert!(at >= 3100, "operation {op} sent at {at}, inside the hold that ends at 3100");
    }
    assert_eq!(sends.len(), 1 + 1 + others.len());
}

#[test]
fn an_order_throttled_under_a_bucket_is_resent_only_after_its_wait() {
    let mut b = budget(json!({ "capacity": 50, "refillPerSecond": 10 }));
    let mut s = common::start(json!({}), OperationKind::Order, "https://x.test");
    s.priority = Priority::Order;
    let mut op = Operation::begin(s, 0, WALL);
    let mut draws = Draws::scripted(vec![0], 1);
    op.start(0, &mut draws, &mut b);
    assert_eq!(op.on_outcome(40, WALL, &throttle("2"), &mut draws, &mut b), Action::Sleep { until: 2040 });
    let refused = op.records().iter().filter(|r| r.decision == Decision::Refused).count();
    assert_eq!(refused, 0);
}
