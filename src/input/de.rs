//! [`Loose`] as a serde `Deserializer`, so derived types (replay specs, saved states)
//! read from JavaScript values without serde-wasm-bindgen's deserializer.
//!
//! Its error messages never format a float: float formatting would cost the wasm
//! build several kilobytes for the sake of a message.

use core::fmt;

use serde::de::{self, DeserializeSeed, Expected, IntoDeserializer, MapAccess, SeqAccess, Unexpected, Visitor};

use super::Loose;

/// Why a value could not be read as the type asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LooseError(String);

impl fmt::Display for LooseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LooseError {}

impl de::Error for LooseError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        LooseError(msg.to_string())
    }
    fn invalid_type(unexpected: Unexpected, expected: &dyn Expected) -> Self {
        LooseError(format!("invalid type: {}, expected {expected}", describe(&unexpected)))
    }
    fn invalid_value(unexpected: Unexpected, expected: &dyn Expected) -> Self {
        LooseError(format!("invalid value: {}, expected {expected}", describe(&unexpected)))
    }
}

/// Like `Unexpected`'s `Display`, without formatting floats.
fn describe(unexpected: &Unexpected) -> String {
    match unexpected {
        Unexpected::Bool(_) => "a boolean".to_owned(),
        Unexpected::Unsigned(n) => format!("integer {n}"),
        Unexpected::Signed(n) => format!("integer {n}"),
        Unexpected::Float(_) => "a fractional or out-of-range number".to_owned(),
        Unexpected::Str(s) => format!("string \"{s}\""),
        Unexpected::Unit => "null".to_owned(),
        Unexpected::Seq => "an array".to_owned(),
        Unexpected::Map => "an object".to_owned(),
        Unexpected::Other(s) => (*s).to_owned(),
        _ => "an unexpected value".to_owned(),
    }
}

/// Whole numbers that fit an `i64`/`u64` are offered as integers, the rest as floats.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

impl<'de> de::Deserializer<'de> for &'de Loose {
    type Error = LooseError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LooseError> {
        match self {
            Loose::Absent => visitor.visit_unit(),
            Loose::Bool(b) => visitor.visit_bool(*b),
            Loose::Number(x) if x.fract() == 0.0 && *x >= 0.0 && *x < 2.0 * TWO_POW_63 => visitor.visit_u64(*x as u64),
            Loose::Number(x) if x.fract() == 0.0 && *x < 0.0 && *x >= -TWO_POW_63 => visitor.visit_i64(*x as i64),
            Loose::Number(x) => visitor.visit_f64(*x),
            Loose::Text(s) => visitor.visit_borrowed_str(s),
            Loose::List(items) => visitor.visit_seq(Items(items.iter())),
            Loose::Map(entries) => visitor.visit_map(Entries { entries: entries.iter(), value: None }),
            Loose::Other(kind) => Err(de::Error::invalid_type(Unexpected::Other(kind), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, LooseError> {
        match self {
            Loose::Absent => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, LooseError> {
        match self {
            // Every enum crossing the boundary is a plain string.
            Loose::Text(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            other => Err(de::Error::invalid_type(Unexpected::Other(other.kind()), &visitor)),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

struct Items<'a>(std::slice::Iter<'a, Loose>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = LooseError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, LooseError> {
        self.0.next().map(|item| seed.deserialize(item)).transpose()
    }
}

struct Entries<'a> {
    entries: std::slice::Iter<'a, (String, Loose)>,
    value: Option<&'a Loose>,
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = LooseError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, LooseError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(key.as_str().into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, LooseError> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("a map value was asked for before its key")),
        }
    }
}
