//! Loosely typed option values, as they arrive from JavaScript or JSON.
//!
//! Options are read into [`Loose`] first and validated field by field afterwards,
//! so that every mistake — a string where a number belongs, a misspelt field,
//! `NaN` — comes back as an [`InvalidOption`] that names the field, instead of a
//! generic deserializer message.

mod de;

use core::fmt;

use serde::de::{self as serde_de, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

pub use de::LooseError;

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
        match self {
            Loose::Map(entries) => Ok(entries),
            Loose::Absent => Ok(&[]),
            other => Err(InvalidOption::new(field, Problem::WrongType { expected: "an object", found: other.kind() })),
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

/// An option that failed validation: which field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidOption {
    /// The field's path as the caller wrote it, e.g. `policy.maxAttempts`.
    pub field: String,
    /// What is wrong with the value.
    pub problem: Problem,
}

/// What is wrong with an option.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A value of the wrong JavaScript type.
    WrongType {
        /// What the field takes, e.g. `a number`.
        expected: &'static str,
        /// What it got, in [`Loose::kind`]'s words.
        found: &'static str,
    },
    /// A number that is `NaN` or infinite.
    NotFinite,
    /// A negative number where only zero or more makes sense.
    Negative,
    /// A fraction where a whole number belongs.
    NotInteger,
    /// A number above the field's limit.
    TooLarge {
        /// The largest value allowed.
        max: u64,
    },
    /// A number below the field's minimum.
    TooSmall {
        /// The smallest value allowed.
        min: u64,
    },
    /// A field this object does not have (often a misspelling).
    UnknownField,
    /// A name that is none of the allowed choices.
    UnknownName {
        /// The allowed names, quoted, for the message.
        allowed: &'static str,
    },
    /// `maxDelayMs` below `baseDelayMs`.
    BelowBase,
    /// `attemptTimeoutMs` (or `minAttemptMs`) longer than `deadlineMs`: no attempt could ever be admitted.
    LongerThanDeadline,
    /// Not an HTTP status code (100–599).
    NotAStatus,
    /// An empty string where a name is needed.
    Empty,
    /// Must be greater than zero.
    NotPositive,
    /// A fraction in `[0, 1)`.
    NotAFraction,
    /// Only meaningful together with another field.
    Requires {
        /// The field it needs.
        other: &'static str,
    },
    /// Reading it threw (a getter, a `Proxy` trap): what was thrown.
    Unreadable {
        /// The thrown value, as text.
        detail: String,
    },
}

/// Which JavaScript error class a problem maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// A value of the wrong type or shape.
    TypeError,
    /// A value of the right type but out of range.
    RangeError,
}

impl InvalidOption {
    /// `problem` in `field`, a path relative to the object being read ([`within`](Self::within) adds parents).
    pub fn new(field: &str, problem: Problem) -> Self {
        InvalidOption { field: field.to_owned(), problem }
    }

    /// Prefixes the field path, e.g. `maxAttempts` → `policy.maxAttempts`, `[2]` → `draws[2]`
    /// (an empty path is the parent itself).
    pub fn within(mut self, parent: &str) -> Self {
        let mut field = String::with_capacity(parent.len() + 1 + self.field.len());
        field.push_str(parent);
        if !self.field.is_empty() && !self.field.starts_with('[') {
            field.push('.');
        }
        field.push_str(&self.field);
        self.field = field;
        self
    }

    /// Prefixes the item's index, e.g. `maxAttempts` → `[2].maxAttempts`.
    pub fn within_item(self, index: usize) -> Self {
        let mut path = String::from("[");
        crate::json::push_u64(&mut path, index as u64);
        path.push(']');
        self.within(&path)
    }

    /// Type mistakes are `TypeError`s; values of the right type out of range are `RangeError`s.
    pub fn class(&self) -> ErrorClass {
        match self.problem {
            Problem::WrongType { .. }
            | Problem::UnknownField
            | Problem::UnknownName { .. }
            | Problem::Requires { .. }
            | Problem::Unreadable { .. } => ErrorClass::TypeError,
            _ => ErrorClass::RangeError,
        }
    }
}

impl InvalidOption {
    /// The message a JavaScript error carries, e.g. `policy.maxAttempts must be at most 50`.
    pub fn message(&self) -> String {
        // Plain pushes, not `write!`: `fmt`'s padding and integer machinery cost the wasm build kilobytes.
        let mut out = self.field.clone();
        let (text, then): (&str, &str) = match &self.problem {
            Problem::WrongType { expected, found } => {
                out.push_str(" must be ");
                out.push_str(expected);
                (", got ", found)
            }
            Problem::NotFinite => (" must be a finite number", ""),
            Problem::Negative => (" must not be negative", ""),
            Problem::NotInteger => (" must be a whole number", ""),
            Problem::TooLarge { max } => {
                out.push_str(" must be at most ");
                crate::json::push_u64(&mut out, *max);
                ("", "")
            }
            Problem::TooSmall { min } => {
                out.push_str(" must be at least ");
                crate::json::push_u64(&mut out, *min);
                ("", "")
            }
            Problem::UnknownField => (" is not a known option", ""),
            Problem::UnknownName { allowed } => (" must be one of ", allowed),
            Problem::BelowBase => (" must not be less than baseDelayMs", ""),
            Problem::LongerThanDeadline => {
                (" must not exceed deadlineMs: no attempt could finish before the deadline", "")
            }
            Problem::NotAStatus => (" must hold HTTP status codes between 100 and 599", ""),
            Problem::Empty => (" must not be empty", ""),
            Problem::NotPositive => (" must be greater than 0", ""),
            Problem::NotAFraction => (" must be a fraction from 0 up to (not including) 1", ""),
            Problem::Requires { other } => {
                out.push_str(" needs ");
                out.push_str(other);
                (" as well", "")
            }
            Problem::Unreadable { detail } => (" could not be read: ", detail.as_str()),
        };
        out.push_str(text);
        out.push_str(then);
        out
    }
}

impl fmt::Display for InvalidOption {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for InvalidOption {}

/// The largest integer JavaScript numbers hold exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A non-negative duration in milliseconds; fractions round up so that a wait is never shortened.
pub fn millis(field: &str, value: &Loose) -> Result<u64, InvalidOption> {
    let x = number(field, value)?;
    if x < 0.0 {
        return Err(InvalidOption::new(field, Problem::Negative));
    }
    let ms = x.ceil();
    if ms > MAX_SAFE_INTEGER as f64 {
        return Err(InvalidOption::new(field, Problem::TooLarge { max: MAX_SAFE_INTEGER }));
    }
    Ok(ms as u64)
}

/// A whole number in `min..=max`.
pub fn whole(field: &str, value: &Loose, min: u64, max: u64) -> Result<u64, InvalidOption> {
    let x = number(field, value)?;
    if x.fract() != 0.0 {
        return Err(InvalidOption::new(field, Problem::NotInteger));
    }
    if x < min as f64 {
        let problem = if x < 0.0 && min == 0 { Problem::Negative } else { Problem::TooSmall { min } };
        return Err(InvalidOption::new(field, problem));
    }
    if x > max as f64 {
        return Err(InvalidOption::new(field, Problem::TooLarge { max }));
    }
    Ok(x as u64)
}

/// A finite number.
pub fn number(field: &str, value: &Loose) -> Result<f64, InvalidOption> {
    match value {
        Loose::Number(x) if x.is_finite() => Ok(*x),
        Loose::Number(_) => Err(InvalidOption::new(field, Problem::NotFinite)),
        other => Err(InvalidOption::new(field, Problem::WrongType { expected: "a number", found: other.kind() })),
    }
}

/// A string.
pub fn text<'a>(field: &str, value: &'a Loose) -> Result<&'a str, InvalidOption> {
    match value {
        Loose::Text(s) => Ok(s),
        other => Err(InvalidOption::new(field, Problem::WrongType { expected: "a string", found: other.kind() })),
    }
}

/// A non-empty string.
pub fn name(field: &str, value: &Loose) -> Result<String, InvalidOption> {
    let s = text(field, value)?;
    if s.is_empty() {
        return Err(InvalidOption::new(field, Problem::Empty));
    }
    Ok(s.to_owned())
}
