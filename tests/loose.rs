//! Values read through `Loose` (the path JavaScript input takes) read exactly as through JSON.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use retryline::input::ErrorClass;
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
fn bad_saved_states_name_what_was_expected_without_printing_floats() {
    let err = loose(&json!({ "version": 1.5 })).read::<OperationState>().unwrap_err();
    assert_eq!(err.to_string(), "invalid type: a fractional or out-of-range number, expected u32");
    let err = loose(&json!({ "version": -1 })).read::<OperationState>().unwrap_err();
    assert_eq!(err.to_string(), "invalid value: integer -1, expected u32");
    let err = Loose::Other("a function").read::<OperationState>().unwrap_err();
    assert!(err.to_string().contains("a function"), "{err}");
}

/// Replay specs come from JavaScript: errors name the caller's field, never a Rust type, and
/// values of the right type out of range are `RangeError`s.
#[test]
fn replay_spec_errors_name_the_field() {
    let cases = [
        (json!({ "draws": [1, -1] }), "draws[1] must not be negative", ErrorClass::RangeError),
        (json!({ "draws": "1" }), "draws must be an array, got a string", ErrorClass::TypeError),
        (
            json!({ "operation": "write" }),
            "operation must be one of \"read\", \"idempotent\", \"order\"",
            ErrorClass::TypeError,
        ),
        (json!({ "colour": 1 }), "colour is not a known option", ErrorClass::TypeError),
        (json!({ "seed": 1.5 }), "seed must be a whole number", ErrorClass::RangeError),
        (
            json!({ "outcomes": [{}, { "afterMs": -5 }] }),
            "outcomes[1].afterMs must not be negative",
            ErrorClass::RangeError,
        ),
        (
            json!({ "outcomes": [{ "status": 65736 }] }),
            "outcomes[0].status must hold HTTP status codes between 100 and 599",
            ErrorClass::RangeError,
        ),
        (
            json!({ "outcomes": [{ "status": "200" }] }),
            "outcomes[0].status must be a number, got a string",
            ErrorClass::TypeError,
        ),
        (
            json!({ "outcomes": [{ "error": "reset" }] }),
            "outcomes[0].error must be one of \"timeout\", \"network-error\"",
            ErrorClass::TypeError,
        ),
        (
            json!({ "outcomes": [{ "retryAfter": -1 }] }),
            "outcomes[0].retryAfter must not be negative",
            ErrorClass::RangeError,
        ),
        (
            json!({ "outcomes": [{ "retryAfter": true }] }),
            "outcomes[0].retryAfter must be a string or a number of seconds, got a boolean",
            ErrorClass::TypeError,
        ),
        (json!({ "outcomes": [3] }), "outcomes[0] must be an object, got a number", ErrorClass::TypeError),
        (json!({ "policy": { "maxAttempts": 0 } }), "policy.maxAttempts must be at least 1", ErrorClass::RangeError),
        (json!({ "wallClockMs": -1 }), "wallClockMs must not be negative", ErrorClass::RangeError),
        (json!(7), "spec must be an object, got a number", ErrorClass::TypeError),
    ];
    for (spec, message, class) in cases {
        let err = ReplaySpec::from_options(&loose(&spec)).unwrap_err();
        assert_eq!(err.to_string(), message, "{spec}");
        assert_eq!(err.class(), class, "{spec}");
    }
}
