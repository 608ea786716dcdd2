//! The contention simulator (`src/contention`) against the published model's own figures:
//! `examples/contention_published.json` holds the means that aws-samples/aws-arch-backoff-simulator's
//! `backoff_simulator.py` printed when run from its source (100 runs per point, Python's
//! `random.seed(1)`, clients 10–190). Ours must agree within 10 % — both are means of random runs.
#![cfg(not(target_arch = "wasm32"))]

use retryline::contention::{means, simulate, Strategy};
use retryline::Rng;
use serde_json::Value;

fn published() -> Vec<(u32, String, f64, f64)> {
    let rows: Vec<Value> = serde_json::from_str(include_str!("../examples/contention_published.json")).expect("JSON");
    rows.iter()
        .map(|r| {
            let n = |k: &str| r[k].as_f64().expect("a number");
            (n("clients") as u32, r["strategy"].as_str().expect("a name").to_owned(), n("calls"), n("completionMs"))
        })
        .collect()
}

#[test]
fn the_published_models_means_are_reproduced_within_ten_percent() {
    let points: Vec<_> = published().into_iter().filter(|(c, ..)| [10, 50, 100, 190].contains(c)).collect();
    assert_eq!(points.len(), 20, "four client counts, five strategies");
    for (clients, name, calls, completion) in points {
        let strategy = Strategy::from_name(&name).expect("a known strategy");
        let ours = means(clients, strategy, 100, 1);
        let off = |a: f64, b: f64| (a - b).abs() / b;
        assert!(off(ours.calls, calls) < 0.10, "{clients} {name}: calls {} vs {calls}", ours.calls);
        assert!(
            off(ours.completion_ms, completion) < 0.10,
            "{clients} {name}: {} ms vs {completion}",
            ours.completion_ms
        );
    }
}

#[test]
fn every_client_writes_exactly_once_and_a_seed_repeats_a_run() {
    for strategy in Strategy::ALL {
        let run = simulate(30, strategy, &mut Rng::seeded(7));
        // Every client either wrote once or was refused by the budget; every other call conflicted.
        assert_eq!(run.written + run.gave_up, 30, "{strategy:?}: {run:?}");
        assert!(run.calls >= u64::from(run.written), "{strategy:?}: {run:?}");
        assert_eq!(simulate(30, strategy, &mut Rng::seeded(7)), run, "{strategy:?} is reproducible");
    }
}

#[test]
fn a_shared_budget_cuts_the_calls_contention_costs() {
    let full = means(100, Strategy::Full, 20, 3);
    let quota = means(100, Strategy::FullWithQuota, 20, 3);
    let bucket = means(100, Strategy::FullWithBucket, 20, 3);
    // The quota stops retries once spent: far fewer calls, and the clients it refused gave up.
    assert!(quota.calls < full.calls / 2.0 && quota.gave_up > 0.0, "{quota:?} vs {full:?}");
    // The bucket paces every attempt: fewer calls, nobody gives up, and it takes longer.
    assert!(bucket.calls < full.calls / 2.0 && bucket.gave_up == 0.0, "{bucket:?} vs {full:?}");
    assert!(full.gave_up == 0.0);
}
