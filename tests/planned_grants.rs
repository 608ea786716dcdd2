//! Grants asked for out of the order of their starts: a retry planned seconds ahead is granted
//! before requests that go at once. It holds its own weight, not the bucket, and the bucket's
//! invariant (over any interval `d`, at most `capacity + rate × d` started) holds whatever the order.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::budget;
use proptest::prelude::*;
use retryline::budget::bucket::Bucket;
use retryline::budget::Ask;
use retryline::Priority;
use serde_json::json;

fn ask(earliest: u64, retry: bool) -> Ask<'static> {
    Ask { scope: "s", weight: 1, priority: Priority::Read, retry, after_timeout: false, earliest, latest: 60_000 }
}

#[test]
fn a_retry_planned_ahead_does_not_hold_back_requests_that_go_now() {
    // 10 tokens, 10 a second: a retry planned for 800 ms, then a burst of reads at 0.
    let mut b = budget(json!({ "capacity": 10, "refillPerSecond": 10, "reserve": 0, "retryQuota": false }));
    assert_eq!(b.admit(&ask(800, true)).map(|g| g.start_at), Ok(800));
    let reads: Vec<u64> = (0..11).filter_map(|_| b.admit(&ask(0, false)).ok()).map(|g| g.start_at).collect();
    // The bucket is emptied at 0, refills 8 by 800 for the retry: 11 starts in 800 ms ≤ 10 + 8.
    assert_eq!(reads, [vec![0; 10], vec![100]].concat(), "the eleventh waits for the refill");
}

#[test]
fn a_released_plan_gives_back_its_own_start_and_no_other() {
    let mut b = Bucket::new(2, 1000, 0);
    b.take(2, 0);
    b.take(1, 5000);
    b.give_back_at(1, 5000);
    assert_eq!((b.level(0), b.level(1000), b.level(2000)), (0, 1, 2), "the grant at 0 still holds its two");
    assert_eq!(b.earliest_start(2, Priority::Read, 0), Some(2000));
}

/// Checks a schedule against a plain token bucket charged at each start, in start order.
fn fits_one_bucket(mut starts: Vec<(u64, u32)>, capacity: u64, rate_milli: u64) -> Result<(), String> {
    starts.sort_unstable();
    let full = u128::from(capacity) * 1_000_000;
    let (mut level, mut at) = (full, 0u64);
    for (start, weight) in starts {
        // µ-tokens: one ms at `rate_milli` milli-tokens a second adds `rate_milli`.
        level = (level + u128::from(start - at) * u128::from(rate_milli)).min(full);
        at = start;
        let need = u128::from(weight) * 1_000_000;
        level = level.checked_sub(need).ok_or(format!("weight {weight} at {start} ms finds {level} µ-tokens"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn grants_asked_in_any_order_never_start_more_than_one_bucket_allows(
        capacity in 1u64..20,
        rate_milli in 100u64..20_000,
        asks in prop::collection::vec((0u64..5000, 1u32..5, 0usize..4, any::<bool>(), prop::option::weighted(0.2, 0u64..5000)), 1..60),
    ) {
        let mut bucket = Bucket::new(capacity, rate_milli, 300);
        let priorities = [Priority::Refresh, Priority::Read, Priority::Order, Priority::Reconcile];
        let mut starts = Vec::new();
        for (earliest, weight, priority, released, history) in asks {
            // Now and then the clock moves on: folding starts into history may only make it stricter.
            if let Some(now) = history {
                bucket.advance(now);
            }
            let Some(at) = bucket.earliest_start(weight, priorities[priority], earliest) else { continue };
            prop_assert!(at >= earliest);
            bucket.take(weight, at);
            if released {
                bucket.give_back_at(weight, at);
            } else {
                starts.push((at, weight));
            }
        }
        prop_assert_eq!(fits_one_bucket(starts, capacity, rate_milli), Ok(()));
    }
}
