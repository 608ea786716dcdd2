//! A fleet's realm (a process of `new Budget({ redis })`) spends at most its share of the bucket
//! while it cannot reach the fleet: the bucket divided among the processes Redis last counted, or
//! among the ones it assumes before Redis has counted any. Isolates (whose coordinator counts
//! none) keep the whole bucket.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::{Ask, BudgetConfig};
use retryline::{Budget, Loose, Priority};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

/// Capacity 10, 5 a second, kept by coordinators; until counted, a share of `assumed` (0: the default).
fn fleet_budget(assumed: u64) -> Budget {
    let options: Loose = serde_json::from_value(json!({ "capacity": 10, "refillPerSecond": 5 })).unwrap();
    let mut budget = Budget::new(BudgetConfig::from_options(&options).unwrap());
    budget.lease_from_coordinators(0, assumed);
    budget
}

/// What a budget of its own starts at once: the whole bucket, less the reserve kept from reads.
fn whole_bucket() -> usize {
    let options: Loose = serde_json::from_value(json!({ "capacity": 10, "refillPerSecond": 5 })).unwrap();
    started_by(&mut Budget::new(BudgetConfig::from_options(&options).unwrap()), 0)
}

/// How many one-token reads start within `[0, until]`, asked one after another.
fn started_by(budget: &mut Budget, until: u64) -> usize {
    let ask = Ask {
        scope: "s",
        weight: 1,
        priority: Priority::Read,
        retry: false,
        after_timeout: false,
        earliest: 0,
        latest: until,
    };
    (0..100).take_while(|_| budget.admit(&ask).is_ok()).count()
}

/// The coordinator answered a news visit, counting the fleet.
fn counted(budget: &mut Budget, members: u64) {
    budget.visited("s", Some([0, 0, 0, 0, 0, 0, members]), 0, 0, WALL);
}

#[test]
fn before_redis_has_counted_the_fleet_a_process_spends_a_share_of_the_fleet_it_assumes() {
    let mut budget = fleet_budget(0);
    assert_eq!(budget.share_of(), 8, "eight processes assumed by default");
    assert_eq!(started_by(&mut budget, 0), 1, "10 / 8: one token at once");
    let mut given = fleet_budget(2);
    assert_eq!(started_by(&mut given, 0), 5, "fleetSize 2: half the bucket");
}

#[test]
fn the_fleets_count_makes_the_share_and_never_more_than_the_whole_bucket() {
    let mut budget = fleet_budget(0);
    counted(&mut budget, 4);
    assert_eq!(budget.share_of(), 4);
    assert_eq!(started_by(&mut budget, 0), 2, "10 / 4, rounded down");
    // Its share refills at a quarter of the rate: 1.25 a second, so 2 + 2 more by 2 s (2.5 rounded down).
    assert_eq!(started_by(&mut budget, 2_000), 2);
    let mut alone = fleet_budget(0);
    counted(&mut alone, 1);
    assert_eq!(started_by(&mut alone, 0), whole_bucket(), "a fleet of one: the whole bucket");
    assert_eq!(alone.snapshot(0, WALL)[0].capacity, Some(10), "the snapshot shows the bucket's capacity");
    assert_eq!(alone.snapshot(0, WALL)[0].share_of, None);
}

#[test]
fn four_processes_falling_back_together_spend_one_bucket_between_them() {
    let mut fleet: Vec<Budget> = (0..4).map(|_| fleet_budget(0)).collect();
    for budget in &mut fleet {
        counted(budget, 4);
        // Redis stops answering: each goes on with what it has, its share.
        budget.visited("s", None, 250, 0, WALL);
        assert!(budget.unreachable());
    }
    let over_3s: usize = fleet.iter_mut().map(|b| started_by(b, 3_000)).sum();
    // One bucket over 3 s is 10 + 5 × 3 = 25; four shares of it, each rounded down, no more.
    assert!(over_3s <= 25, "{over_3s} started");
    assert!(over_3s >= 20, "the shares were spent: {over_3s}");
}

#[test]
fn an_isolates_budget_keeps_the_whole_bucket() {
    let mut budget = fleet_budget(1);
    assert_eq!(budget.share_of(), 1);
    // A Durable Object's answer counts no members: the share stays the whole bucket.
    counted(&mut budget, 0);
    assert_eq!(started_by(&mut budget, 0), whole_bucket());
    assert_eq!(budget.snapshot(0, WALL)[0].share_of, None);
}

#[test]
fn a_count_that_comes_and_goes_refills_nothing() {
    let mut budget = fleet_budget(0);
    counted(&mut budget, 2);
    assert_eq!(started_by(&mut budget, 0), 5, "half the bucket");
    // The fleet counts 4, then 2 again, at once: nothing spent comes back.
    counted(&mut budget, 4);
    counted(&mut budget, 2);
    assert_eq!(started_by(&mut budget, 0), 0);
}

#[test]
fn what_a_process_spent_alone_is_charged_to_the_fleets_bucket_when_it_is_heard_of() {
    let mut process = fleet_budget(0);
    counted(&mut process, 4);
    process.visited("s", None, 250, 0, WALL);
    assert_eq!(started_by(&mut process, 0), 2);
    assert_eq!(process.spent_alone("s"), 2, "its share's two tokens, which Redis has not heard of");
    // The coordinator's side: told of them, its bucket is charged.
    let options: Loose = serde_json::from_value(json!({ "capacity": 10, "refillPerSecond": 5 })).unwrap();
    let mut authority = Budget::new(BudgetConfig::from_options(&options).unwrap());
    authority.lease_spent("s", 2, 0);
    assert_eq!(started_by(&mut authority, 0), whole_bucket() - 2);
    // Heard of, they are not told again.
    process.spent_alone_told("s", 2);
    assert_eq!(process.spent_alone("s"), 0);
}
