//! Values from JavaScript read into Rust types: whole numbers stay exact up to 2^64, and a
//! refusal says what was given in JavaScript's words.
#![cfg(not(target_arch = "wasm32"))]

use retryline::Loose;

fn refusal<T: for<'a> serde::Deserialize<'a> + std::fmt::Debug>(value: Loose) -> String {
    value.read::<T>().expect_err("refused").to_string()
}

#[test]
fn whole_numbers_up_to_two_to_the_64_read_exactly() {
    let two_63 = 9_223_372_036_854_775_808u64;
    assert_eq!(Loose::Number(two_63 as f64).read::<u64>(), Ok(two_63));
    // The largest f64 below 2^64.
    assert_eq!(Loose::Number(18_446_744_073_709_549_568.0).read::<u64>(), Ok(18_446_744_073_709_549_568));
    assert_eq!(Loose::Number(-9_223_372_036_854_775_808.0).read::<i64>(), Ok(i64::MIN));
}

#[test]
fn a_number_beyond_u64_is_refused_never_clamped() {
    assert_eq!(
        refusal::<u64>(Loose::Number(18_446_744_073_709_551_616.0)),
        "invalid type: a fractional or out-of-range number, expected u64"
    );
}

#[test]
fn a_negative_fraction_is_refused_as_a_fraction_not_truncated() {
    assert_eq!(refusal::<i64>(Loose::Number(-1.5)), "invalid type: a fractional or out-of-range number, expected i64");
    assert_eq!(refusal::<u32>(Loose::Number(-1.5)), "invalid type: a fractional or out-of-range number, expected u32");
}

#[test]
fn a_refusal_names_what_was_given() {
    let cases = [
        (Loose::Bool(true), "invalid type: a boolean, expected u32"),
        (Loose::Number(5e9), "invalid value: integer 5000000000, expected u32"),
        (Loose::Text("1".into()), "invalid type: string \"1\", expected u32"),
        (Loose::Absent, "invalid type: null, expected u32"),
        (Loose::List(vec![]), "invalid type: an array, expected u32"),
        (Loose::Map(vec![]), "invalid type: an object, expected u32"),
    ];
    for (value, message) in cases {
        assert_eq!(refusal::<u32>(value.clone()), message, "{value:?}");
    }
}
