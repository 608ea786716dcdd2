//! Every bad option comes back as an error that names its field (DESIGN.md §3).
#![cfg(not(target_arch = "wasm32"))]

use retryline::input::ErrorClass;
use retryline::{InvalidOption, Jitter, Loose, Policy, Problem};
use serde_json::{json, Value};

fn loose(v: Value) -> Loose {
    serde_json::from_value(v).expect("any JSON is a Loose value")
}

fn reject(options: Value) -> InvalidOption {
    Policy::from_options(&loose(options)).expect_err("the options are invalid")
}

#[test]
fn defaults_are_the_documented_ones() {
    let p = Policy::from_options(&loose(json!({}))).unwrap();
    assert_eq!(p, Policy::default());
    assert_eq!((p.base_delay_ms(), p.max_delay_ms(), p.jitter()), (500, 4000, Jitter::Full));
    assert_eq!((p.max_attempts(), p.attempt_timeout_ms(), p.deadline_ms()), (3, 10_000, 30_000));
    assert_eq!(p.retry_on(), &[408, 429, 500, 502, 503, 504]);
    assert_eq!(p.retry_after_spread_ms(), 0);
}

#[test]
fn null_fields_keep_their_defaults() {
    let p = Policy::from_options(&loose(json!({ "baseDelayMs": null, "jitter": null }))).unwrap();
    assert_eq!(p, Policy::default());
}

#[test]
fn every_field_is_read() {
    let p = Policy::from_options(&loose(json!({
        "baseDelayMs": 100, "maxDelayMs": 800, "jitter": "decorrelated", "maxAttempts": 7,
        "attemptTimeoutMs": 250, "deadlineMs": 5000, "retryOn": [503], "retryAfterSpreadMs": 50
    })))
    .unwrap();
    assert_eq!((p.base_delay_ms(), p.max_delay_ms(), p.jitter()), (100, 800, Jitter::Decorrelated));
    assert_eq!((p.max_attempts(), p.attempt_timeout_ms(), p.deadline_ms()), (7, 250, 5000));
    assert_eq!((p.retry_on(), p.retry_after_spread_ms()), (&[503u16][..], 50));
}

#[test]
fn fractional_milliseconds_round_up_so_no_wait_is_shortened() {
    let p = Policy::from_options(&loose(json!({ "baseDelayMs": 0.2, "maxDelayMs": 10.5 }))).unwrap();
    assert_eq!((p.base_delay_ms(), p.max_delay_ms()), (1, 11));
}

#[test]
fn overrides_keep_the_fields_they_do_not_name() {
    let base = Policy::from_options(&loose(json!({ "maxAttempts": 9, "deadlineMs": 60000 }))).unwrap();
    let p = base.with_options(&loose(json!({ "maxAttempts": 2 }))).unwrap();
    assert_eq!((p.max_attempts(), p.deadline_ms()), (2, 60_000));
}

/// (options, field named, problem, error class)
fn table() -> Vec<(Value, &'static str, Problem, ErrorClass)> {
    use ErrorClass::{RangeError as R, TypeError as T};
    vec![
        (json!({ "baseDelayMs": -1 }), "policy.baseDelayMs", Problem::Negative, R),
        (json!({ "maxDelayMs": -0.5 }), "policy.maxDelayMs", Problem::Negative, R),
        (json!({ "attemptTimeoutMs": -10 }), "policy.attemptTimeoutMs", Problem::Negative, R),
        (json!({ "deadlineMs": -1 }), "policy.deadlineMs", Problem::Negative, R),
        (json!({ "retryAfterSpreadMs": -3 }), "policy.retryAfterSpreadMs", Problem::Negative, R),
        (json!({ "maxAttempts": 0 }), "policy.maxAttempts", Problem::TooSmall { min: 1 }, R),
        (json!({ "maxAttempts": -2 }), "policy.maxAttempts", Problem::TooSmall { min: 1 }, R),
        (json!({ "maxAttempts": 2.5 }), "policy.maxAttempts", Problem::NotInteger, R),
        (json!({ "maxAttempts": 1e9 }), "policy.maxAttempts", Problem::TooLarge { max: 10_000 }, R),
        (json!({ "deadlineMs": 1e300 }), "policy.deadlineMs", Problem::TooLarge { max: (1 << 53) - 1 }, R),
        (json!({ "baseDelayMs": 1000, "maxDelayMs": 500 }), "policy.maxDelayMs", Problem::BelowBase, R),
        (
            json!({ "attemptTimeoutMs": 5000, "deadlineMs": 4000 }),
            "policy.attemptTimeoutMs",
            Problem::LongerThanDeadline,
            R,
        ),
        (json!({ "attemptTimeoutMs": 0 }), "policy.attemptTimeoutMs", Problem::TooSmall { min: 1 }, R),
        (json!({ "retryOn": [429, 700] }), "policy.retryOn", Problem::NotAStatus, R),
        (json!({ "retryOn": [429.5] }), "policy.retryOn", Problem::NotAStatus, R),
        (
            json!({ "jitter": "fuzzy" }),
            "policy.jitter",
            Problem::UnknownName { allowed: "\"full\", \"equal\", \"decorrelated\", \"none\"" },
            T,
        ),
        (json!({ "jiter": "full" }), "policy.jiter", Problem::UnknownField, T),
        (
            json!({ "baseDelayMs": "500" }),
            "policy.baseDelayMs",
            Problem::WrongType { expected: "a number", found: "a string" },
            T,
        ),
        (json!({ "jitter": 3 }), "policy.jitter", Problem::WrongType { expected: "a string", found: "a number" }, T),
        (
            json!({ "retryOn": 429 }),
            "policy.retryOn",
            Problem::WrongType { expected: "an array", found: "a number" },
            T,
        ),
        (
            json!({ "retryOn": ["429"] }),
            "policy.retryOn",
            Problem::WrongType { expected: "a number", found: "a string" },
            T,
        ),
        (
            json!({ "maxAttempts": true }),
            "policy.maxAttempts",
            Problem::WrongType { expected: "a number", found: "a boolean" },
            T,
        ),
        (json!([1, 2]), "policy", Problem::WrongType { expected: "an object", found: "an array" }, T),
    ]
}

#[test]
fn every_bad_value_is_named() {
    for (options, field, problem, class) in table() {
        let err = reject(options.clone());
        assert_eq!((err.field.as_str(), &err.problem, err.class()), (field, &problem, class), "{options}");
        assert!(err.to_string().starts_with(field), "message {:?} names {field}", err.to_string());
    }
}

#[test]
fn non_finite_numbers_are_rejected() {
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for field in
            ["baseDelayMs", "maxDelayMs", "maxAttempts", "attemptTimeoutMs", "deadlineMs", "retryAfterSpreadMs"]
        {
            let options = Loose::Map(vec![(field.to_owned(), Loose::Number(x))]);
            let err = Policy::from_options(&options).expect_err("non-finite");
            assert_eq!((err.field.as_str(), &err.problem), (format!("policy.{field}").as_str(), &Problem::NotFinite));
            assert_eq!(err.class(), ErrorClass::RangeError);
        }
    }
}

#[test]
fn deserializing_applies_the_same_checks() {
    let err = serde_json::from_value::<Policy>(json!({ "maxAttempts": 0 })).unwrap_err();
    assert!(err.to_string().contains("policy.maxAttempts must be at least 1"), "{err}");
    let ok: Policy = serde_json::from_value(json!({ "jitter": "none" })).unwrap();
    assert_eq!(ok.jitter(), Jitter::None);
}

#[test]
fn a_policy_survives_a_round_trip_through_json() {
    let p = Policy::from_options(&loose(json!({ "jitter": "equal", "retryOn": [500] }))).unwrap();
    let back: Policy = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
    assert_eq!(back, p);
}

#[test]
fn a_call_deadline_shorter_than_the_attempt_timeout_cuts_the_timeout() {
    let p = Policy::from_options(&loose(json!({ "attemptTimeoutMs": 10000, "deadlineMs": 30000 }))).unwrap();
    let short = p.with_call_deadline("deadlineMs", 3000).unwrap();
    assert_eq!((short.deadline_ms(), short.attempt_timeout_ms()), (3000, 3000));
    let long = p.with_call_deadline("deadlineMs", 60000).unwrap();
    assert_eq!((long.deadline_ms(), long.attempt_timeout_ms()), (60000, 10000));
    let err = p.with_call_deadline("deadlineMs", 0).unwrap_err();
    assert_eq!(err.to_string(), "deadlineMs must be at least 1");
}

#[test]
fn a_success_status_in_retry_on_is_refused_saying_why() {
    // 200-399 is always a success: listing it would be accepted and do nothing.
    for status in [200, 204, 304, 399] {
        let e = reject(json!({ "retryOn": [503, status] }));
        assert_eq!(e.problem, Problem::SuccessStatus { status }, "{status}");
        assert_eq!(e.class(), ErrorClass::RangeError);
        assert!(e.message().starts_with(&format!("policy.retryOn: {status} is a success")), "{}", e.message());
    }
    // Failures and informational statuses are still listed as given.
    let p = Policy::from_options(&loose(json!({ "retryOn": [100, 425, 599] }))).unwrap();
    assert_eq!(p.retry_on(), &[100, 425, 599]);
}
