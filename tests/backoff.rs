//! The four jitter strategies draw from the windows DESIGN.md §2 gives them.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{policy, run};
use retryline::backoff::{sample, window_for, MAX_TIMER_MS};
use retryline::{Decision, Rng};
use serde_json::json;

/// `n` delays of retry 0 drawn from a window of exactly `window_ms`.
fn delays(jitter: &str, window_ms: u64, n: usize) -> Vec<u64> {
    let p = policy(json!({ "jitter": jitter, "baseDelayMs": window_ms, "maxDelayMs": window_ms }));
    let mut rng = Rng::seeded(5);
    (0..n)
        .map(|_| {
            let step = sample(&p, 0, 0, &mut rng);
            assert_eq!(step.window_ms, window_ms);
            step.delay_ms
        })
        .collect()
}

#[test]
fn equal_jitter_covers_the_upper_half_of_its_window() {
    let d = delays("equal", 1000, 2000);
    let (lo, hi) = (*d.iter().min().unwrap(), *d.iter().max().unwrap());
    assert!((500..520).contains(&lo), "never below half the window, and close to it: {lo}");
    assert!((980..=1000).contains(&hi), "up to the whole window: {hi}");
    // An odd window: the upper half is [3, 7].
    let d = delays("equal", 7, 500);
    for value in 3..=7 {
        assert!(d.contains(&value), "{value} never drawn from [3, 7]");
    }
    assert!(d.iter().all(|v| (3..=7).contains(v)));
}

#[test]
fn no_jitter_waits_the_window_itself() {
    assert!(delays("none", 800, 20).iter().all(|&d| d == 800));
}

#[test]
fn decorrelated_windows_grow_from_the_previous_delay_not_from_the_retry_number() {
    let p = policy(json!({ "jitter": "decorrelated", "baseDelayMs": 100, "maxDelayMs": 5000 }));
    // [base, previous × 3]; a previous delay below the base counts as the base.
    assert_eq!(window_for(&p, 0, 100), 300);
    assert_eq!(window_for(&p, 0, 40), 300);
    assert_eq!(window_for(&p, 5, 250), 750, "the retry number plays no part");
    assert_eq!(window_for(&p, 0, 4000), 5000, "capped at maxDelayMs");
    let huge = policy(json!({ "jitter": "decorrelated", "baseDelayMs": 100, "maxDelayMs": 1e15 }));
    assert_eq!(window_for(&huge, 0, u64::MAX / 2), MAX_TIMER_MS, "and at the largest timer");
}

#[test]
fn decorrelated_draws_cover_base_to_three_times_the_previous_delay() {
    let p = policy(json!({ "jitter": "decorrelated", "baseDelayMs": 100, "maxDelayMs": 5000 }));
    let mut rng = Rng::seeded(9);
    let d: Vec<u64> = (0..3000).map(|_| sample(&p, 0, 1000, &mut rng).delay_ms).collect();
    let (lo, hi) = (*d.iter().min().unwrap(), *d.iter().max().unwrap());
    assert!((100..110).contains(&lo), "{lo}");
    assert!((2980..=3000).contains(&hi), "{hi}");
}

/// min(cap, Uniform[base, previous × 3]): past the cap, the draw is capped, so the cap comes up
/// as often as the uniform would have gone beyond it — here (3000 − 1000) / (3000 − 100) ≈ 69 %.
#[test]
fn a_decorrelated_draw_past_the_cap_is_the_cap() {
    let p = policy(json!({ "jitter": "decorrelated", "baseDelayMs": 100, "maxDelayMs": 1000 }));
    let mut rng = Rng::seeded(4);
    let d: Vec<u64> = (0..10_000).map(|_| sample(&p, 0, 1000, &mut rng).delay_ms).collect();
    assert!(d.iter().all(|&x| (100..=1000).contains(&x)));
    let at_cap = d.iter().filter(|&&x| x == 1000).count() as f64 / d.len() as f64;
    assert!((0.66..0.72).contains(&at_cap), "{at_cap}");
    // Below the cap the draw is still uniform: about as many under 550 as between 550 and 1000.
    let low = d.iter().filter(|&&x| x < 550).count() as f64;
    let high = d.iter().filter(|&&x| (550..1000).contains(&x)).count() as f64;
    assert!((low / high - 1.0).abs() < 0.1, "{low} {high}");
}

#[test]
fn a_replayed_decorrelated_schedule_records_each_window_from_the_delay_before_it() {
    let r = run(json!({
        "policy": { "jitter": "decorrelated", "baseDelayMs": 100, "maxDelayMs": 5000, "maxAttempts": 4, "attemptTimeoutMs": 100 },
        "draws": [250, 40, 900],
        "outcomes": [{ "status": 503 }, { "status": 503 }, { "status": 503 }, { "status": 200 }]
    }));
    let windows: Vec<Option<u64>> =
        r.records.iter().filter(|r| r.decision == Decision::Sent).map(|r| r.window_ms).collect();
    assert_eq!(windows, vec![None, Some(300), Some(750), Some(300)]);
}

#[test]
fn full_jitter_windows_double_per_retry_up_to_the_cap() {
    let r = run(json!({
        "policy": { "baseDelayMs": 100, "maxDelayMs": 500, "maxAttempts": 5, "attemptTimeoutMs": 100 },
        "draws": [0, 0, 0, 0],
        "outcomes": [{ "status": 503 }, { "status": 503 }, { "status": 503 }, { "status": 503 }, { "status": 200 }]
    }));
    let windows: Vec<Option<u64>> = r.records.iter().map(|r| r.window_ms).collect();
    assert_eq!(windows, vec![None, Some(100), Some(200), Some(400), Some(500)]);
}
