//! Each grant of a budget is its own: queued, released and dispatched one by one.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::{Ask, BudgetConfig};
use retryline::{Budget, Loose, OperationKind, Priority};
use serde_json::json;

/// 2 tokens, 1 a second, no reserve, no retry quota.
fn two_tokens() -> Budget {
    let options: Loose =
        serde_json::from_value(json!({ "capacity": 2, "refillPerSecond": 1, "reserve": 0, "retryQuota": false }))
            .unwrap();
    Budget::new(BudgetConfig::from_options(&options).unwrap())
}

fn ask(weight: u32) -> Ask<'static> {
    Ask {
        scope: "s",
        weight,
        priority: Priority::Read,
        retry: false,
        after_timeout: false,
        earliest: 0,
        latest: 60_000,
    }
}

fn queued(b: &Budget, now: u64) -> usize {
    b.snapshot(now, 0)[0].queued
}

#[test]
fn every_grant_waiting_for_its_start_is_counted_as_queued() {
    let mut b = two_tokens();
    let now = b.admit(&ask(2)).unwrap();
    let later: Vec<u64> = (0..3).map(|_| b.admit(&ask(1)).unwrap().start_at).collect();
    assert_eq!((now.start_at, later.clone()), (0, vec![1000, 2000, 3000]));
    assert_eq!(queued(&b, 0), 3, "three grants wait for their tokens");
    assert_eq!(queued(&b, 1000), 2, "a grant whose start has come is no longer waiting");
}

#[test]
fn releasing_one_grant_returns_its_tokens_and_leaves_the_others_queued() {
    let mut b = two_tokens();
    b.admit(&ask(2)).unwrap();
    let a = b.admit(&ask(1)).unwrap();
    let c = b.admit(&ask(1)).unwrap();
    assert_eq!((a.start_at, c.start_at), (1000, 2000));
    b.release("s", c);
    assert_eq!(queued(&b, 0), 1);
    assert_eq!(b.admit(&ask(1)).unwrap().start_at, 2000, "the released token is granted again");
    // Releasing a grant that already went on the wire gives nothing back.
    assert_eq!(b.dispatch("s", a, 1000), Ok(()));
    b.release("s", a);
    assert_eq!(b.admit(&ask(1)).unwrap().start_at, 3000);
}

#[test]
fn dispatching_one_grant_leaves_another_queued() {
    let mut b = two_tokens();
    let first = b.admit(&ask(1)).unwrap();
    b.admit(&ask(1)).unwrap();
    let waiting = b.admit(&ask(1)).unwrap();
    assert_eq!(waiting.start_at, 1000);
    assert_eq!(b.dispatch("s", first, 0), Ok(()));
    assert_eq!(queued(&b, 0), 1);
    b.release("s", waiting);
    assert_eq!(queued(&b, 0), 0);
}

#[test]
fn a_dispatch_the_meter_cannot_pay_for_says_how_long_to_wait() {
    let mut b = two_tokens();
    let grants: Vec<_> = (0..2).map(|_| b.admit(&ask(1)).unwrap()).collect();
    let late = b.admit(&ask(1)).unwrap();
    // The late grant's timer fired early, at 400 ms: its token is not there yet.
    assert_eq!(b.dispatch("s", grants[0], 0), Ok(()));
    assert_eq!(b.dispatch("s", grants[1], 0), Ok(()));
    assert_eq!(b.dispatch("s", late, 400), Err(600));
    assert_eq!(b.dispatch("s", late, 1000), Ok(()));
}

#[test]
fn orders_ask_with_order_priority_and_everything_else_as_reads() {
    assert_eq!(Priority::for_kind(OperationKind::Order), Priority::Order);
    assert_eq!(Priority::for_kind(OperationKind::Read), Priority::Read);
    assert_eq!(Priority::for_kind(OperationKind::Idempotent), Priority::Read);
}
