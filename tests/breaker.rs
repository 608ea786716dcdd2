//! The circuit breaker per scope on the virtual clock: closed → open → half-open → closed or
//! open again (longer, jittered, capped); reconciliation never refused; a probe slot given back.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::breaker::{Breaker, BreakerConfig, BreakerState};
use retryline::budget::BudgetConfig;
use retryline::{
    Action, Budget, Draws, Loose, Observed, Operation, OperationKind, Outcome, Policy, Priority, Reason, Rng, Start,
};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn budget(breaker: serde_json::Value) -> Budget {
    let options: Loose = serde_json::from_value(json!({ "breaker": breaker, "retryQuota": false })).unwrap();
    Budget::new(BudgetConfig::from_options(&options).unwrap())
}

fn start(priority: Priority) -> Start {
    let policy = Policy::default().with_options(&serde_json::from_value(json!({ "maxAttempts": 1 })).unwrap()).unwrap();
    Start {
        policy,
        kind: OperationKind::Read,
        priority,
        scope: "s".into(),
        weight: 1,
        key: None,
        method: None,
        url: None,
    }
}

/// One single-attempt call at `now` that ends with `outcome`; its stop reason.
fn call(budget: &mut Budget, now: u64, outcome: Outcome, priority: Priority) -> Reason {
    let mut draws = Draws::seeded(now);
    let mut op = Operation::begin(start(priority), now, WALL + now);
    match op.start(now, &mut draws, budget) {
        Action::Send { .. } => match op.on_outcome(now + 10, WALL, &outcome, &mut draws, budget) {
            Action::Stop(stop) => stop.reason,
            other => panic!("{other:?}"),
        },
        Action::Stop(stop) => stop.reason,
        other => panic!("{other:?}"),
    }
}

#[test]
fn consecutive_failures_open_it_then_one_probe_closes_it() {
    let mut b = budget(json!({ "consecutiveFailures": 3, "openMs": 1000, "maxOpenMs": 8000 }));
    for i in 0..3 {
        assert_eq!(call(&mut b, i * 100, Outcome::failure(Observed::Timeout), Priority::Read), Reason::Attempts);
    }
    // Open: refused before sending, for a read; the snapshot says so.
    assert_eq!(call(&mut b, 400, Outcome::response(200), Priority::Read), Reason::CircuitOpen);
    assert_eq!(b.snapshot(400, WALL)[0].breaker, Some("open"));
    // Reconciliation is never refused by the breaker.
    assert_eq!(call(&mut b, 500, Outcome::response(200), Priority::Reconcile), Reason::Success);
    // Half-open after at most 1.5 s (1 s + up to half again): one probe goes, and its success closes it.
    assert_eq!(call(&mut b, 2000, Outcome::response(200), Priority::Read), Reason::Success);
    assert_eq!(b.snapshot(2100, WALL)[0].breaker, Some("closed"));
    // 4xx are the caller's problem, not the provider's: they never open it.
    for i in 0..10 {
        assert_eq!(call(&mut b, 3000 + i, Outcome::response(404), Priority::Read), Reason::NonRetryable);
    }
    assert_eq!(b.snapshot(3100, WALL)[0].breaker, Some("closed"));
}

#[test]
fn a_failed_probe_opens_it_longer_with_jitter_up_to_the_cap() {
    let config = BreakerConfig { consecutive: 1, open_ms: 1000, max_open_ms: 5000, ..BreakerConfig::default() };
    let mut breaker = Breaker::new(config);
    let mut rng = Rng::seeded(7);
    let mut now = 0;
    breaker.observe(now, true, &mut rng);
    let mut lengths = Vec::new();
    for _ in 0..6 {
        let BreakerState::Open { until } = breaker.state(now) else { panic!("not open") };
        lengths.push(until - now);
        now = until;
        assert!(breaker.admit(now, false, 1000).is_ok(), "half-open lets a probe through");
        assert_eq!(breaker.admit(now, false, 1000), Err(1000), "and only one");
        breaker.observe(now, true, &mut rng);
    }
    assert!(lengths[0] >= 1000 && lengths[0] <= 1500, "{lengths:?}");
    assert!(lengths[1] >= 2000 && lengths[1] <= 3000, "{lengths:?}");
    assert!(lengths.iter().all(|&l| l <= 5000), "capped: {lengths:?}");
    assert_eq!(*lengths.last().unwrap(), 5000);
    // An abandoned probe gives its slot back.
    now += 5000;
    assert!(breaker.admit(now, false, 1000).is_ok());
    breaker.release();
    assert!(breaker.admit(now, false, 1000).is_ok());
}

/// A probe whose shell never reports (a tab closed mid-probe, a stream's socket dropped by its
/// driver) must not hold the scope refused for good: its slot expires with its attempt timeout.
#[test]
fn a_probe_that_never_reports_gives_its_slot_back_after_its_attempt_timeout() {
    let config = BreakerConfig { consecutive: 1, open_ms: 1000, max_open_ms: 5000, ..BreakerConfig::default() };
    let mut breaker = Breaker::new(config);
    let mut rng = Rng::seeded(7);
    breaker.observe(0, true, &mut rng);
    let BreakerState::Open { until } = breaker.state(0) else { panic!("not open") };
    assert!(breaker.admit(until, false, 2500).is_ok(), "the probe goes, its slot held for 2 500 ms");
    assert_eq!(breaker.admit(until + 100, false, 2500), Err(1000), "refused while it may still report");
    assert_eq!(breaker.admit(until + 2000, false, 2500), Err(500), "what is left of its slot");
    assert!(breaker.admit(until + 2500, false, 2500).is_ok(), "expired: the next attempt probes");
    // A probe that does report still closes it.
    breaker.observe(until + 2600, false, &mut rng);
    assert_eq!(breaker.state(until + 2600), BreakerState::Closed);
}

#[test]
fn a_failure_ratio_over_the_window_opens_it_once_the_volume_is_there() {
    let config = BreakerConfig {
        consecutive: 1000,
        ratio_permille: 500,
        window_ms: 10_000,
        min_volume: 10,
        ..BreakerConfig::default()
    };
    let mut breaker = Breaker::new(config);
    let mut rng = Rng::seeded(9);
    // Alternating: 50 % failures, but not consecutive; opens at the 10th outcome.
    for i in 0..9 {
        breaker.observe(i * 100, i % 2 == 0, &mut rng);
        assert_eq!(breaker.state(i * 100), BreakerState::Closed, "below the volume at {i}");
    }
    breaker.observe(900, true, &mut rng);
    assert!(matches!(breaker.state(900), BreakerState::Open { .. }));
    // Old outcomes leave the window: a fresh breaker fed failures 20 s apart never trips the ratio.
    let mut sparse = Breaker::new(config);
    for i in 0..30 {
        sparse.observe(i * 20_000, i % 2 == 0, &mut rng);
    }
    assert_eq!(sparse.state(600_000), BreakerState::Closed);
}

#[test]
fn breaker_options_are_checked_by_name() {
    let read =
        |v: serde_json::Value| BudgetConfig::from_options(&serde_json::from_value(json!({ "breaker": v })).unwrap());
    assert!(read(json!(true)).is_ok());
    assert_eq!(read(json!({ "probs": 1 })).unwrap_err().field, "breaker.probs");
    assert_eq!(read(json!({ "failureRatio": 2 })).unwrap_err().field, "breaker.failureRatio");
    assert_eq!(read(json!({ "openMs": 5000, "maxOpenMs": 10 })).unwrap_err().field, "breaker.maxOpenMs");
    assert_eq!(read(json!("yes")).unwrap_err().field, "breaker");
}

#[test]
fn realms_sharing_a_budget_share_its_breaker() {
    // Two tabs: each takes up the other's state before a step and leaves its own after (the share's lock).
    let mut tab_a = budget(json!({ "consecutiveFailures": 2, "openMs": 1000, "maxOpenMs": 1000 }));
    let mut tab_b = budget(json!({ "consecutiveFailures": 2, "openMs": 1000, "maxOpenMs": 1000 }));
    assert_eq!(call(&mut tab_a, 0, Outcome::failure(Observed::NetworkError), Priority::Read), Reason::Attempts);
    tab_b.import(&tab_a.export(0, WALL), 5_000, WALL);
    // B's clock is another: 5 000 here is A's 0. B's failure is the second in a row: it opens.
    assert_eq!(call(&mut tab_b, 5_010, Outcome::failure(Observed::Timeout), Priority::Read), Reason::Attempts);
    tab_a.import(&tab_b.export(5_100, WALL + 90), 100, WALL + 90);
    assert_eq!(
        call(&mut tab_a, 150, Outcome::response(200), Priority::Read),
        Reason::CircuitOpen,
        "A sees B's open breaker"
    );
    // Its end travels in wall-clock time: A lets its probe through once it has passed.
    assert_eq!(call(&mut tab_a, 1_200, Outcome::response(200), Priority::Read), Reason::Success);
    tab_b.import(&tab_a.export(1_300, WALL + 1_290), 6_300, WALL + 1_290);
    assert_eq!(tab_b.snapshot(6_300, WALL + 1_290)[0].breaker, Some("closed"), "B sees it closed by A's probe");
}

#[test]
fn taking_up_a_shared_state_keeps_this_realms_rolling_window() {
    // The ratio window is each realm's own: a state taken up from another realm must not wipe it.
    let config = json!({ "consecutiveFailures": 100, "failureRatio": 0.5, "minVolume": 4, "windowMs": 10_000 });
    let mut here = budget(config.clone());
    let mut there = budget(config);
    assert_eq!(call(&mut here, 0, Outcome::failure(Observed::Timeout), Priority::Read), Reason::Attempts);
    assert_eq!(call(&mut here, 100, Outcome::response(200), Priority::Read), Reason::Success);
    assert_eq!(call(&mut here, 200, Outcome::failure(Observed::Timeout), Priority::Read), Reason::Attempts);
    there.import(&here.export(300, WALL + 300), 300, WALL + 300);
    here.import(&there.export(400, WALL + 400), 400, WALL + 400);
    // The fourth outcome here makes 3 failures of 4: the window reaches its volume and opens.
    assert_eq!(call(&mut here, 500, Outcome::failure(Observed::Timeout), Priority::Read), Reason::Attempts);
    assert_eq!(here.snapshot(600, WALL + 600)[0].breaker, Some("open"), "the window survived the import");
}
