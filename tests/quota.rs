//! The retry quota: retries spend it, successes pay it back, and its options are honoured.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::quota::{Quota, QuotaConfig};
use retryline::budget::{Ask, BudgetConfig, Limit};
use retryline::{Budget, Loose, Priority};
use serde_json::{json, Value};

fn budget(options: Value) -> Budget {
    let options: Loose = serde_json::from_value(options).unwrap();
    Budget::new(BudgetConfig::from_options(&options).expect("valid budget options"))
}

fn first() -> Ask<'static> {
    Ask {
        scope: "s",
        weight: 1,
        priority: Priority::Read,
        retry: false,
        after_timeout: false,
        earliest: 0,
        latest: 60_000,
    }
}

fn retry() -> Ask<'static> {
    Ask { retry: true, ..first() }
}

fn retry_after_timeout() -> Ask<'static> {
    Ask { after_timeout: true, ..retry() }
}

fn available(b: &Budget) -> u32 {
    b.snapshot(0, 0)[0].retry_quota.expect("a retry quota").available
}

#[test]
fn the_default_quota_is_the_aws_standard_one() {
    assert_eq!(
        QuotaConfig::default(),
        QuotaConfig { capacity: 500, retry_cost: 5, timeout_cost: 10, success_credit: 1 }
    );
    let mut b = Budget::default();
    b.admit(&first()).unwrap();
    assert_eq!(available(&b), 500, "first attempts cost nothing");
    b.admit(&retry()).unwrap();
    assert_eq!(available(&b), 495);
    b.admit(&retry_after_timeout()).unwrap();
    assert_eq!(available(&b), 485);
}

#[test]
fn retries_are_refused_once_the_quota_cannot_pay_for_them_while_first_attempts_still_go() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 12, "retryCost": 5 } }));
    assert!(b.admit(&retry()).is_ok());
    assert!(b.admit(&retry()).is_ok());
    assert_eq!(b.admit(&retry()).unwrap_err(), Limit::RetryQuota, "2 units left, a retry costs 5");
    assert_eq!(available(&b), 2, "a refused retry spends nothing");
    assert!(b.admit(&first()).is_ok());
}

#[test]
fn a_success_on_the_first_attempt_adds_the_success_credit() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 10, "retryCost": 5, "successCredit": 2 } }));
    b.admit(&retry()).unwrap();
    b.admit(&retry()).unwrap();
    assert_eq!(available(&b), 0);
    for expected in [2, 4, 6] {
        let g = b.admit(&first()).unwrap();
        b.settle("s", g, true);
        assert_eq!(available(&b), expected);
    }
    assert!(b.admit(&retry()).is_ok(), "three first-attempt successes paid for a retry");
}

#[test]
fn a_failed_first_attempt_earns_nothing() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 10, "retryCost": 10 } }));
    b.admit(&retry()).unwrap();
    let g = b.admit(&first()).unwrap();
    b.settle("s", g, false);
    assert_eq!(available(&b), 0);
}

#[test]
fn a_retry_that_succeeds_refunds_its_cost_and_one_that_fails_does_not() {
    let mut b =
        budget(json!({ "retryQuota": { "capacity": 30, "retryCost": 5, "timeoutCost": 10, "successCredit": 1 } }));
    let ok = b.admit(&retry_after_timeout()).unwrap();
    let failed = b.admit(&retry()).unwrap();
    assert_eq!(available(&b), 15);
    b.settle("s", failed, false);
    assert_eq!(available(&b), 15);
    b.settle("s", ok, true);
    assert_eq!(available(&b), 25, "the timeout retry's 10 units come back, not the success credit");
}

#[test]
fn the_quota_never_grows_beyond_its_capacity() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 7, "successCredit": 5 } }));
    let g = b.admit(&first()).unwrap();
    b.settle("s", g, true);
    assert_eq!(available(&b), 7);
}

#[test]
fn a_retry_after_a_timeout_costs_the_configured_timeout_cost() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 30, "timeoutCost": 15 } }));
    assert!(b.admit(&retry_after_timeout()).is_ok());
    assert!(b.admit(&retry_after_timeout()).is_ok());
    assert_eq!(b.admit(&retry_after_timeout()).unwrap_err(), Limit::RetryQuota);
    // An ordinary retry still costs the default 5: nothing is left for it either.
    assert_eq!(b.admit(&retry()).unwrap_err(), Limit::RetryQuota);
}

#[test]
fn a_zero_cost_retry_is_never_refused_by_the_quota() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 0, "retryCost": 0, "timeoutCost": 0 } }));
    for _ in 0..3 {
        assert!(b.admit(&retry()).is_ok());
        assert!(b.admit(&retry_after_timeout()).is_ok());
    }
}

#[test]
fn released_retries_give_their_units_back() {
    let mut b = budget(json!({ "retryQuota": { "capacity": 10, "retryCost": 10 } }));
    let g = b.admit(&retry()).unwrap();
    assert_eq!(b.admit(&retry()).unwrap_err(), Limit::RetryQuota);
    b.release("s", g);
    assert_eq!(available(&b), 10);
    // Released twice: the units are not given back twice.
    b.release("s", g);
    assert_eq!(available(&b), 10);
}

#[test]
fn the_quota_by_itself_spends_and_refunds_as_configured() {
    let mut q = Quota::new(QuotaConfig { capacity: 20, retry_cost: 3, timeout_cost: 8, success_credit: 2 });
    assert_eq!((q.cost(false), q.cost(true)), (3, 8));
    assert!(q.spend(8));
    assert!(q.spend(12));
    assert!(!q.spend(1), "nothing left");
    q.credit();
    assert_eq!((q.snapshot().available, q.snapshot().capacity), (2, 20));
    q.refund(100);
    assert_eq!(q.snapshot().available, 20);
}

#[test]
fn turning_the_quota_off_lets_every_retry_through() {
    let mut b = budget(json!({ "retryQuota": false }));
    for _ in 0..1000 {
        assert!(b.admit(&retry_after_timeout()).is_ok());
    }
    assert_eq!(b.snapshot(0, 0)[0].retry_quota, None);
    // An unlimited budget has no quota either: only the provider's holds and bans limit it.
    let mut b = Budget::unlimited();
    for _ in 0..1000 {
        assert!(b.admit(&retry()).is_ok());
    }
    assert_eq!(b.snapshot(0, 0)[0].retry_quota, None);
}
