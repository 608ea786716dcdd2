//! Loosely typed option values, as they arrive from JavaScript or JSON.
//!
//! Options are read into [`Loose`] first and validated field by field afterwards,
//! so that every mistake — a string where a number belongs, a misspelt field,
//! `NaN` — comes back as an [`InvalidOption`] that names the field, instead of a
//! generic deserializer message.

mod de;
mod invalid;

use core::fmt;

use serde::de::{self as serde_de, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

pub use de::LooseError;
pub(crate) use invalid::{At, Invalid};
pub use invalid::{ErrorClass, InvalidOption, Problem};

/// A JSON-like value with no opinion about what it should be yet.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Loose {
    /// `null` or `undefined`: treated as "not given".
    #[default]
    Absent,
    /// A boolean.
    Bool(bool),
    /// A number, as JavaScript holds it (`NaN` and infinities included until validated).
    Number(f64),
    /// A string.
    Text(String),
    /// An array, its items in order.
    List(Vec<Loose>),
    /// An object, its fields in the order given.
    Map(Vec<(String, Loose)>),
    /// Something no JSON holds (a function, a symbol, a BigInt); the text says which.
    Other(&'static str),
}

impl Loose {
    /// What kind of value this is, in JavaScript's words, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Loose::Absent => "null",
            Loose::Bool(_) => "a boolean",
            Loose::Number(_) => "a number",
            Loose::Text(_) => "a string",
            Loose::List(_) => "an array",
            Loose::Map(_) => "an object",
            Loose::Other(kind) => kind,
        }
    }

    /// `null` or `undefined` (a `match`, not `==`: the derived comparison walks whole values).
    pub fn is_absent(&self) -> bool {
        matches!(self, Loose::Absent)
    }

    /// Reads a deserializable type (a replay spec, a saved state) out of this value.
    pub fn read<'a, T: Deserialize<'a>>(&'a self) -> Result<T, LooseError> {
        T::deserialize(self)
    }

    /// The entries of an object; `Absent` reads as an empty object.
    pub fn entries(&self, field: &str) -> Result<&[(String, Loose)], InvalidOption> {
        self.fields(field).map_err(|e| *e)
    }

    /// [`entries`](Self::entries), with an [`Invalid`] error.
    pub(crate) fn fields(&self, field: &str) -> Result<&[(String, Loose)], Invalid> {
        match self {
            Loose::Map(entries) => Ok(entries),
            Loose::Absent => Ok(&[]),
            other => {
                Err(InvalidOption::boxed(field, Problem::WrongType { expected: "an object", found: other.kind() }))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LooseVisitor)
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON-like value")
    }
    fn visit_bool<E: serde_de::Error>(self, v: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(v))
    }
    fn visit_i64<E: serde_de::Error>(self, v: i64) -> Result<Loose, E> {
        Ok(Loose::Number(v as f64))
    }
    fn visit_u64<E: serde_de::Error>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::Number(v as f64))
    }
    fn visit_f64<E: serde_de::Error>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::Number(v))
    }
    fn visit_str<E: serde_de::Error>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::Text(v.to_owned()))
    }
    fn visit_string<E: serde_de::Error>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::Text(v))
    }
    fn visit_none<E: serde_de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Absent)
    }
    fn visit_unit<E: serde_de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Absent)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Loose::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Loose::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Loose>()? {
            entries.push((k, v));
        }
        Ok(Loose::Map(entries))
    }
}

/// The largest integer JavaScript numbers hold exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A non-negative duration in milliseconds; fractions round up so that a wait is never shortened.
pub fn millis(field: &str, value: &Loose) -> Result<u64, InvalidOption> {
    read::millis(field, value).map_err(|e| *e)
}

/// A whole number in `min..=max`.
pub fn whole(field: &str, value: &Loose, min: u64, max: u64) -> Result<u64, InvalidOption> {
    read::whole(field, value, min, max).map_err(|e| *e)
}

/// A finite number.
pub fn number(field: &str, value: &Loose) -> Result<f64, InvalidOption> {
    read::number(field, value).map_err(|e| *e)
}

/// A string.
pub fn text<'a>(field: &str, value: &'a Loose) -> Result<&'a str, InvalidOption> {
    read::text(field, value).map_err(|e| *e)
}

/// A non-empty string.
pub fn name(field: &str, value: &Loose) -> Result<String, InvalidOption> {
    read::name(field, value).map_err(|e| *e)
}

/// The readers above as the crate uses them, with [`Invalid`] errors.
pub(crate) mod read {
    use super::{Invalid, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};

    /// [`super::millis`].
    pub fn millis(field: &str, value: &Loose) -> Result<u64, Invalid> {
        let x = number(field, value)?;
        if x < 0.0 {
            return Err(InvalidOption::boxed(field, Problem::Negative));
        }
        let ms = x.ceil();
        if ms > MAX_SAFE_INTEGER as f64 {
            return Err(InvalidOption::boxed(field, Problem::TooLarge { max: MAX_SAFE_INTEGER }));
        }
        Ok(ms as u64)
    }

    /// [`super::whole`].
    pub fn whole(field: &str, value: &Loose, min: u64, max: u64) -> Result<u64, Invalid> {
        let x = number(field, value)?;
        if x.fract() != 0.0 {
            return Err(InvalidOption::boxed(field, Problem::NotInteger));
        }
        if x < min as f64 {
            let problem = if x < 0.0 && min == 0 { Problem::Negative } else { Problem::TooSmall { min } };
            return Err(InvalidOption::boxed(field, problem));
        }
        if x > max as f64 {
            return Err(InvalidOption::boxed(field, Problem::TooLarge { max }));
        }
        Ok(x as u64)
    }

    /// [`super::number`].
    pub fn number(field: &str, value: &Loose) -> Result<f64, Invalid> {
        match value {
            Loose::Number(x) if x.is_finite() => Ok(*x),
            Loose::Number(_) => Err(InvalidOption::boxed(field, Problem::NotFinite)),
            other => Err(InvalidOption::boxed(field, Problem::WrongType { expected: "a number", found: other.kind() })),
        }
    }

    /// [`super::text`].
    pub fn text<'a>(field: &str, value: &'a Loose) -> Result<&'a str, Invalid> {
        match value {
            Loose::Text(s) => Ok(s),
            other => Err(InvalidOption::boxed(field, Problem::WrongType { expected: "a string", found: other.kind() })),
        }
    }

    /// A boolean, or `None` when absent.
    pub fn flag(field: &str, value: &Loose) -> Result<Option<bool>, Invalid> {
        match value {
            Loose::Absent => Ok(None),
            Loose::Bool(b) => Ok(Some(*b)),
            other => {
                Err(InvalidOption::boxed(field, Problem::WrongType { expected: "a boolean", found: other.kind() }))
            }
        }
    }

    /// [`super::name`].
    pub fn name(field: &str, value: &Loose) -> Result<String, Invalid> {
        let s = text(field, value)?;
        if s.is_empty() {
            return Err(InvalidOption::boxed(field, Problem::Empty));
        }
        Ok(s.to_owned())
    }
}
