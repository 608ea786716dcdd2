//! Option values at the edges of what they may be: the largest accepted, the first refused.
#![cfg(not(target_arch = "wasm32"))]

use retryline::input::{millis, whole, MAX_SAFE_INTEGER};
use retryline::{Loose, Policy, Problem, ReplaySpec};
use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use serde_json::json;

fn number(x: f64) -> Loose {
    Loose::Number(x)
}

#[test]
fn the_largest_safe_integer_is_a_valid_duration_and_the_next_one_is_not() {
    let max = MAX_SAFE_INTEGER as f64;
    assert_eq!(millis("deadlineMs", &number(max)), Ok(MAX_SAFE_INTEGER));
    let err = millis("deadlineMs", &number(max + 1.0)).unwrap_err();
    assert_eq!(err.problem, Problem::TooLarge { max: MAX_SAFE_INTEGER });
}

#[test]
fn whole_numbers_are_accepted_at_both_ends_of_their_range() {
    assert_eq!(whole("n", &number(1.0), 1, 10_000), Ok(1));
    assert_eq!(whole("n", &number(10_000.0), 1, 10_000), Ok(10_000));
    assert_eq!(whole("n", &number(0.0), 1, 10_000).unwrap_err().problem, Problem::TooSmall { min: 1 });
    assert_eq!(whole("n", &number(10_001.0), 1, 10_000).unwrap_err().problem, Problem::TooLarge { max: 10_000 });
    assert_eq!(whole("n", &number(-1.0), 0, 5).unwrap_err().problem, Problem::Negative);
}

#[test]
fn a_policy_may_allow_the_most_attempts_there_are() {
    let options: Loose = serde_json::from_value(json!({ "maxAttempts": 10000 })).unwrap();
    assert_eq!(Policy::from_options(&options).unwrap().max_attempts(), 10_000);
}

#[test]
fn a_value_no_json_can_hold_is_named_in_the_error() {
    let spec = Loose::Map(vec![("draws".into(), Loose::List(vec![Loose::Other("a function")]))]);
    let err = spec.read::<ReplaySpec>().unwrap_err();
    assert_eq!(err.to_string(), "invalid type: a function, expected any JSON-like value");
}

/// A deserializer that presents its value as an `Option` that is present (as some
/// deserializers do): the value must come through, not be read as absent.
struct Present(f64);

impl<'de> Deserializer<'de> for Present {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(serde::de::value::F64Deserializer::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[test]
fn a_present_optional_value_reads_as_the_value() {
    assert_eq!(Loose::deserialize(Present(42.0)), Ok(Loose::Number(42.0)));
}
