//! Properties over thousands of random schedules.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use proptest::prelude::*;
use retryline::backoff::{sample, window, MAX_TIMER_MS};
use retryline::replay::ScriptedError;
use retryline::{replay, Decision, Jitter, Loose, OperationKind, Policy, Reason, ReplaySpec, Rng, ScriptedOutcome};
use serde_json::json;

fn policies() -> impl Strategy<Value = Policy> {
    (0u64..3000, 0u64..20_000, 0usize..4, 1u64..12, 1u64..5000, 0u64..60_000, 0u64..2000).prop_map(
        |(base, extra, jitter, attempts, timeout, slack, spread)| {
            let jitter = ["full", "equal", "decorrelated", "none"][jitter];
            common::policy(json!({
                "baseDelayMs": base, "maxDelayMs": base + extra,
                "jitter": jitter,
                "maxAttempts": attempts, "attemptTimeoutMs": timeout, "deadlineMs": timeout + slack,
                "retryAfterSpreadMs": spread,
            }))
        },
    )
}

fn outcomes() -> impl Strategy<Value = ScriptedOutcome> {
    let status = prop::sample::select(vec![200u16, 201, 400, 404, 408, 418, 429, 500, 502, 503, 504]);
    let retry_after = prop::option::of(prop_oneof![
        (0u64..20).prop_map(|s| s.to_string()),
        Just("garbage".to_owned()),
        Just("Thu, 01 Jan 2026 00:00:03 GMT".to_owned()),
    ]);
    let error = prop::option::of(prop::sample::select(vec![ScriptedError::Timeout, ScriptedError::NetworkError]));
    (0u64..6000, status, retry_after, error).prop_map(|(after_ms, status, retry_after, error)| ScriptedOutcome {
        after_ms,
        status: Some(status),
        retry_after: retry_after.map_or(Loose::Absent, Loose::Text),
        date: None,
        error,
    })
}

fn kinds() -> impl Strategy<Value = OperationKind> {
    prop::sample::select(vec![OperationKind::Read, OperationKind::Idempotent, OperationKind::Order])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn no_admitted_attempt_can_end_after_the_deadline(
        policy in policies(),
        operation in kinds(),
        seed in any::<u64>(),
        draws in prop::collection::vec(0u64..30_000, 0..6),
        outcomes in prop::collection::vec(outcomes(), 0..12),
    ) {
        let (deadline, timeout, max) = (policy.deadline_ms(), policy.attempt_timeout_ms(), policy.max_attempts());
        let report = replay(ReplaySpec { policy, operation, seed, draws, outcomes, wall_clock_ms: None });
        let sent: Vec<_> = report.records.iter().filter(|r| r.decision == Decision::Sent).collect();
        for r in &sent {
            prop_assert!(r.start_ms + timeout <= deadline, "attempt {} starts at {} (+{timeout}) past {deadline}", r.attempt, r.start_ms);
            prop_assert!(r.end_ms.unwrap() <= deadline);
            // A provider minimum is never shortened.
            prop_assert!(r.planned_wait_ms >= r.provider_wait_ms);
        }
        prop_assert!(report.wire_requests <= max);
        prop_assert_eq!(report.wire_requests as usize, sent.len());
        prop_assert!(sent.windows(2).all(|w| w[0].end_ms.unwrap() <= w[1].start_ms), "attempts never overlap");
        // Every proposal that was refused says why; the report's stop is the last word.
        for r in report.records.iter().filter(|r| r.decision == Decision::Refused) {
            prop_assert_eq!(r.reason, Some(report.stop.reason));
        }
        if operation == OperationKind::Order {
            // An order is repeated only after a 429, which is rejected before execution.
            for w in sent.windows(2) {
                prop_assert_eq!(w[0].status, Some(429));
            }
        }
        if report.stop.reason == Reason::Success {
            prop_assert!(sent.last().unwrap().status.unwrap() < 400);
        }
    }

    #[test]
    fn delays_stay_within_their_window(policy in policies(), n in 0u32..70, previous in 0u64..100_000, seed in any::<u64>()) {
        let mut rng = Rng::seeded(seed);
        let step = sample(&policy, n, previous, &mut rng);
        prop_assert!(step.delay_ms <= step.window_ms);
        prop_assert!(step.window_ms <= policy.max_delay_ms().min(MAX_TIMER_MS));
        match policy.jitter() {
            Jitter::Full => {}
            Jitter::Equal => prop_assert!(step.delay_ms >= step.window_ms / 2),
            Jitter::Decorrelated => prop_assert!(step.delay_ms >= policy.base_delay_ms().min(step.window_ms)),
            Jitter::None => prop_assert_eq!(step.delay_ms, step.window_ms),
        }
    }

    #[test]
    fn windows_grow_to_the_cap_and_never_overflow(base in any::<u64>(), cap in any::<u64>(), n in 0u32..200) {
        let w = window(base, cap, n);
        prop_assert!(w <= cap.min(MAX_TIMER_MS));
        prop_assert!(window(base, cap, n.saturating_add(1)) >= w);
    }

    #[test]
    fn draws_are_uniformish_and_inclusive(lo in 0u64..1000, span in 0u64..1000, seed in any::<u64>()) {
        let mut rng = Rng::seeded(seed);
        for _ in 0..20 {
            let x = rng.between(lo, lo + span);
            prop_assert!((lo..=lo + span).contains(&x));
        }
    }
}

#[test]
fn windows_double_from_the_base() {
    assert_eq!((0..6).map(|n| window(500, 4000, n)).collect::<Vec<_>>(), vec![500, 1000, 2000, 4000, 4000, 4000]);
}

#[test]
fn full_jitter_covers_its_whole_window() {
    let policy = common::policy(json!({ "baseDelayMs": 10, "maxDelayMs": 10 }));
    let mut rng = Rng::seeded(42);
    let draws: Vec<u64> = (0..2000).map(|_| sample(&policy, 0, 0, &mut rng).delay_ms).collect();
    for value in 0..=10 {
        assert!(draws.contains(&value), "{value} never drawn");
    }
}

#[test]
fn the_same_seed_gives_the_same_schedule() {
    let spec = || -> ReplaySpec {
        serde_json::from_value(json!({ "seed": 11, "policy": { "maxAttempts": 6 },
            "outcomes": [{ "status": 503 }, { "status": 503 }, { "status": 503 }, { "status": 503 }] }))
        .unwrap()
    };
    assert_eq!(replay(spec()), replay(spec()));
}
