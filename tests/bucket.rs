//! The token bucket on its own: what it grants, when, and to which priority.
//!
//! Numbers follow from the bucket's definition: `capacity` tokens, refilled at the configured
//! rate, a reserve of which `refresh` may use nothing, `read` the upper third, `order` the upper
//! two thirds and `reconcile` all.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::bucket::Bucket;
use retryline::Priority;

/// 10 tokens, 1 token a second, 30 % reserve: floors of 3, 2, 1 and 0 tokens.
fn ten_per_ten_seconds() -> Bucket {
    Bucket::new(10, 1000, 300)
}

/// Grants `weight` at the earliest instant allowed (from `earliest`) and takes it.
fn grant(bucket: &mut Bucket, weight: u32, priority: Priority, earliest: u64) -> u64 {
    let at = bucket.earliest_start(weight, priority, earliest).expect("the weight fits above the floor");
    bucket.take(weight, at);
    at
}

#[test]
fn a_bucket_reports_its_capacity_and_refill_rate() {
    let b = Bucket::new(1200, 20_500, 0);
    assert_eq!((b.capacity(), b.refill_milli_per_second()), (1200, 20_500));
    // A zero rate would never refill (and divide by zero): it is the slowest rate instead.
    assert_eq!(Bucket::new(5, 0, 0).refill_milli_per_second(), 1);
}

#[test]
fn each_priority_may_take_down_to_its_own_floor_and_no_further() {
    let b = ten_per_ten_seconds();
    let cases = [(Priority::Refresh, 7), (Priority::Read, 8), (Priority::Order, 9), (Priority::Reconcile, 10)];
    for (priority, room) in cases {
        assert_eq!(b.earliest_start(room, priority, 0), Some(0), "{priority:?} may take {room} of a full bucket");
        assert_eq!(b.earliest_start(room + 1, priority, 0), None, "{priority:?} can never take {}", room + 1);
    }
}

#[test]
fn without_a_reserve_every_priority_may_empty_the_bucket() {
    let b = Bucket::new(10, 1000, 0);
    for priority in [Priority::Refresh, Priority::Read, Priority::Order, Priority::Reconcile] {
        assert_eq!(b.earliest_start(10, priority, 0), Some(0), "{priority:?}");
        assert_eq!(b.earliest_start(11, priority, 0), None, "{priority:?}");
    }
}

#[test]
fn an_empty_bucket_serves_each_priority_once_its_floor_is_refilled() {
    let mut b = ten_per_ten_seconds();
    assert_eq!(grant(&mut b, 10, Priority::Reconcile, 0), 0, "reconcile may empty a full bucket");
    assert_eq!(b.level(0), 0);
    // One token a second: reconcile needs 1 token, order 1 above its floor of 1, and so on.
    let waits: Vec<Option<u64>> = [Priority::Reconcile, Priority::Order, Priority::Read, Priority::Refresh]
        .into_iter()
        .map(|p| b.earliest_start(1, p, 0))
        .collect();
    assert_eq!(waits, vec![Some(1000), Some(2000), Some(3000), Some(4000)]);
}

#[test]
fn a_grant_never_starts_before_it_was_asked_to() {
    let mut b = ten_per_ten_seconds();
    // Tokens are there at once, but the attempt may not start before 5 s (a provider's wait, say).
    assert_eq!(b.earliest_start(1, Priority::Read, 5000), Some(5000));
    grant(&mut b, 10, Priority::Reconcile, 0);
    // Tokens come at 3 s for a read: a later `earliest` wins, an earlier one waits for them.
    assert_eq!(b.earliest_start(1, Priority::Read, 5000), Some(5000));
    assert_eq!(b.earliest_start(1, Priority::Read, 2500), Some(3000));
    assert_eq!(b.earliest_start(1, Priority::Read, 3001), Some(3001));
}

#[test]
fn successive_grants_are_spaced_by_the_refill_rate() {
    // 2 tokens, 4 tokens a second: two at once, then one every 250 ms.
    let mut b = Bucket::new(2, 4000, 0);
    let starts: Vec<u64> = (0..6).map(|_| grant(&mut b, 1, Priority::Read, 0)).collect();
    assert_eq!(starts, vec![0, 0, 250, 500, 750, 1000]);
    // A heavier request waits for its whole weight.
    assert_eq!(b.earliest_start(2, Priority::Read, 0), Some(1500));
}

#[test]
fn waits_round_up_to_the_next_millisecond_never_down() {
    // 3 tokens a second: a token every 333.3 ms, granted at 334 ms, not 333.
    let mut b = Bucket::new(1, 3000, 0);
    grant(&mut b, 1, Priority::Read, 0);
    assert_eq!(b.earliest_start(1, Priority::Read, 0), Some(334));
}

#[test]
fn the_level_counts_whole_tokens_refilled_since_the_bucket_was_emptied() {
    let mut b = ten_per_ten_seconds();
    assert_eq!(b.level(0), 10, "a new bucket is full");
    grant(&mut b, 10, Priority::Reconcile, 0);
    let levels: Vec<u64> = [0, 999, 1000, 4000, 4500, 10_000, 60_000].into_iter().map(|t| b.level(t)).collect();
    assert_eq!(levels, vec![0, 0, 1, 4, 4, 10, 10], "never more than the capacity");
}

#[test]
fn a_grant_for_a_later_start_spends_its_tokens_at_that_start() {
    let mut b = Bucket::new(2, 1000, 0);
    b.take(1, 3000);
    assert_eq!(b.level(3000), 1, "one of two tokens is spent at 3 s");
    assert_eq!(b.level(4000), 2, "and refilled a second later");
}

#[test]
fn tokens_given_back_are_available_again_at_once() {
    let mut b = Bucket::new(3, 1000, 0);
    let at = grant(&mut b, 3, Priority::Read, 0);
    assert_eq!((b.level(0), b.earliest_start(1, Priority::Read, 0)), (0, Some(1000)));
    b.give_back(2);
    assert_eq!(b.level(at), 2);
    assert_eq!(b.earliest_start(2, Priority::Read, 0), Some(0));
    assert_eq!(b.earliest_start(3, Priority::Read, 0), Some(1000));
}

#[test]
fn the_providers_count_of_used_weight_lowers_the_level_from_the_moment_it_is_seen() {
    // 100 tokens, 10 a second.
    let mut b = Bucket::new(100, 10_000, 0);
    b.observe_used(40, 1000);
    assert_eq!((b.level(1000), b.level(2000), b.level(7000)), (60, 70, 100));
    assert_eq!(b.earliest_start(61, Priority::Read, 1000), Some(1100), "the 61st token is refilled 100 ms later");
}

#[test]
fn a_used_count_above_the_capacity_empties_the_bucket_but_no_more() {
    let mut b = Bucket::new(100, 10_000, 0);
    b.observe_used(500, 0);
    assert_eq!((b.level(0), b.level(5000), b.level(10_000)), (0, 50, 100), "refilled like any empty bucket");
}

#[test]
fn a_used_count_never_raises_the_level() {
    let mut b = Bucket::new(10, 1000, 0);
    grant(&mut b, 8, Priority::Read, 0);
    b.observe_used(1, 0);
    assert_eq!(b.level(0), 2, "the provider may not have seen our own requests yet");
}

/// The module promises that "an operation that plans to send in 800 ms holds its tokens now":
/// its own weight, not the bucket. A grant for a start later than the bucket's refill horizon
/// once moved the whole schedule to that start, so one weight-1 retry planned 800 ms ahead on a
/// full 10-token bucket (10 a second) left 1 token, not 9, to everyone else at time 0.
#[test]
fn a_grant_for_a_later_start_holds_only_its_own_weight_now() {
    let mut b = Bucket::new(10, 10_000, 0);
    b.take(1, 800);
    assert_eq!(b.level(0), 9);
    assert_eq!(b.earliest_start(2, Priority::Read, 0), Some(0));
}
