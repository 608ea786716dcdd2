//! Values read through `Loose` (the path JavaScript input takes) read exactly as through JSON.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use retryline::{Loose, OperationKind, OperationState, Outcome, ReplaySpec};
use serde_json::{json, Value};

fn loose(v: &Value) -> Loose {
    serde_json::from_value(v.clone()).unwrap()
}

#[test]
fn a_replay_spec_reads_the_same_both_ways() {
    let spec = json!({
        "policy": { "maxAttempts": 4, "jitter": "equal" }, "operation": "idempotent", "seed": 3,
        "draws": [1, 2, 3], "outcomes": [{ "afterMs": 5, "status": 503, "retryAfter": 1 }, { "error": "network-error" }]
    });
    let via_json: ReplaySpec = serde_json::from_value(spec.clone()).unwrap();
    let via_loose: ReplaySpec = loose(&spec).read().unwrap();
    assert_eq!(retryline::replay(via_json), retryline::replay(via_loose));
}

#[test]
fn a_saved_state_reads_the_same_both_ways() {
    let mut budget = common::unlimited();
    let mut draws = retryline::Draws::scripted(vec![700], 1);
    let mut op = common::begin(json!({}), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    op.on_outcome(10, 1_000_010, &Outcome::response(503), &mut draws, &mut budget);
    let saved = serde_json::to_value(op.snapshot(10, 1_000_010, &budget)).unwrap();
    let via_json: OperationState = serde_json::from_value(saved.clone()).unwrap();
    let via_loose: OperationState = loose(&saved).read().unwrap();
    assert_eq!(via_json, via_loose);
}

#[test]
fn bad_values_name_what_was_expected_without_printing_floats() {
    let err = loose(&json!({ "draws": [1.5] })).read::<ReplaySpec>().unwrap_err();
    assert_eq!(err.to_string(), "invalid type: a fractional or out-of-range number, expected u64");
    let err = loose(&json!({ "draws": [-1] })).read::<ReplaySpec>().unwrap_err();
    assert_eq!(err.to_string(), "invalid value: integer -1, expected u64");
    let err = loose(&json!({ "operation": "write" })).read::<ReplaySpec>().unwrap_err();
    assert!(err.to_string().starts_with("unknown variant `write`"), "{err}");
    let err = loose(&json!({ "colour": 1 })).read::<ReplaySpec>().unwrap_err();
    assert!(err.to_string().starts_with("unknown field `colour`"), "{err}");
    let err = Loose::Other("a function").read::<ReplaySpec>().unwrap_err();
    assert!(err.to_string().contains("a function"), "{err}");
}
