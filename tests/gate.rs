//! The admission gate: an attempt is admitted only if its whole timeout fits before the deadline.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::run;
use retryline::gate::{admits_initial, attempt_timeout, before_sleep, fits, latest_start, room, Fit};
use retryline::Reason;
use serde_json::json;

#[test]
fn an_attempt_fits_when_its_timeout_ends_at_the_deadline_or_before() {
    assert!(fits(4000, 1000, 5000));
    assert!(fits(3999, 1000, 5000));
    assert!(!fits(4001, 1000, 5000));
    assert!(!fits(u64::MAX - 10, 1000, u64::MAX), "an end past u64::MAX never fits");
}

#[test]
fn the_latest_start_leaves_a_whole_timeout_before_the_deadline() {
    assert_eq!(latest_start(1000, 5000), 4000);
    assert_eq!(latest_start(6000, 5000), 0, "saturates");
}

#[test]
fn room_is_how_much_later_an_attempt_could_still_start() {
    assert_eq!(room(1000, 1000, 5000), 3000);
    assert_eq!(room(4000, 1000, 5000), 0);
    assert_eq!(room(4500, 1000, 5000), 0, "none once past the latest start");
}

#[test]
fn a_provider_wait_that_cannot_fit_is_refused_as_provider_wait_never_shortened() {
    // now 1000, deadline 5000, timeout 1000: the latest start is 4000.
    assert_eq!(before_sleep(1000, 3000, 3000, 1000, 5000), Fit::Fits, "ends exactly at the deadline");
    assert_eq!(before_sleep(1000, 3001, 3001, 1000, 5000), Fit::TooLate(Reason::ProviderWait));
    // The provider's minimum fits, the spread or draw added to it does not: that is the deadline's doing.
    assert_eq!(before_sleep(1000, 2000, 3500, 1000, 5000), Fit::TooLate(Reason::Deadline));
}

#[test]
fn without_a_provider_wait_a_local_wait_that_cannot_fit_is_refused_as_deadline() {
    assert_eq!(before_sleep(1000, 0, 3000, 1000, 5000), Fit::Fits);
    assert_eq!(before_sleep(1000, 0, 3001, 1000, 5000), Fit::TooLate(Reason::Deadline));
    // Even no wait at all cannot fit once the latest start has passed: still the deadline.
    assert_eq!(before_sleep(4500, 0, 0, 1000, 5000), Fit::TooLate(Reason::Deadline));
}

#[test]
fn the_initial_attempt_is_admitted_while_any_time_is_left() {
    assert!(admits_initial(4999, 5000));
    assert!(!admits_initial(5000, 5000));
    assert!(!admits_initial(5001, 5000));
}

#[test]
fn an_attempt_timeout_is_cut_to_the_time_left_and_never_to_zero() {
    assert_eq!(attempt_timeout(1000, 2000, 10_000), 2000);
    assert_eq!(attempt_timeout(9500, 2000, 10_000), 500);
    assert_eq!(attempt_timeout(10_000, 2000, 10_000), 1, "a zero timeout would abort before sending");
}

#[test]
fn spread_after_a_providers_boundary_is_drawn_over_its_whole_range() {
    let waits: Vec<u64> = (0..200u64)
        .map(|seed| {
            let r = run(json!({
                "policy": { "retryAfterSpreadMs": 1000 },
                "seed": seed,
                "draws": [10],
                "outcomes": [{ "status": 429, "retryAfter": "2" }, { "status": 200 }]
            }));
            assert_eq!(r.records[1].provider_wait_ms, 2000);
            r.records[1].planned_wait_ms
        })
        .collect();
    let (lo, hi) = (*waits.iter().min().unwrap(), *waits.iter().max().unwrap());
    assert!((2000..2050).contains(&lo), "never before the boundary, sometimes right at it: {lo}");
    assert!((2950..=3000).contains(&hi), "up to the spread: {hi}");
}

#[test]
fn spread_is_trimmed_to_exactly_the_room_left_before_the_latest_start() {
    // A 1 s Retry-After at 0, deadline 3000, timeout 1000: the latest start is 2000, the room 1000.
    let waits: Vec<u64> = (0..200u64)
        .map(|seed| {
            let r = run(json!({
                "policy": { "retryAfterSpreadMs": 100000, "deadlineMs": 3000, "attemptTimeoutMs": 1000 },
                "seed": seed,
                "draws": [10],
                "outcomes": [{ "status": 429, "retryAfter": "1" }, { "status": 200 }]
            }));
            assert_eq!(r.stop.reason, Reason::Success, "seed {seed}");
            r.records[1].planned_wait_ms
        })
        .collect();
    let hi = *waits.iter().max().unwrap();
    assert!((1950..=2000).contains(&hi), "the whole room is used, never more: {hi}");
    assert!(waits.iter().all(|&w| w >= 1000));
}

#[test]
fn no_spread_is_added_when_the_draw_is_longer_than_the_providers_wait() {
    for seed in 0..20u64 {
        let r = run(json!({
            "policy": { "retryAfterSpreadMs": 5000 },
            "seed": seed,
            "draws": [1500],
            "outcomes": [{ "status": 429, "retryAfter": "1" }, { "status": 200 }]
        }));
        assert_eq!(r.records[1].planned_wait_ms, 1500, "seed {seed}");
    }
}
