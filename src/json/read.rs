//! Reading saved JSON back, from the [`Loose`] values the shell already builds: field by
//! field, with the same rules as the derived forms (unknown fields refused where serde
//! refused them, missing optional fields read as `null`), naming the field on error.

use crate::input::read::{text, whole};
use crate::input::{At, Invalid, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};

/// A value readable from its JSON form.
pub trait FromLoose: Sized {
    /// Errors name the field relative to `value` (the caller prefixes its own path).
    fn from_loose(value: &Loose) -> Result<Self, InvalidOption>;

    /// [`from_loose`](Self::from_loose) with the error boxed, as the crate's readers pass errors
    /// on: its own types implement this and `from_loose` through it.
    #[doc(hidden)]
    fn read_loose(value: &Loose) -> Result<Self, Box<InvalidOption>> {
        Self::from_loose(value).map_err(Box::new)
    }
}

/// `from_loose` through `read_loose`, for the crate's own readers.
macro_rules! from_loose_by_read {
    () => {
        fn from_loose(value: &crate::input::Loose) -> Result<Self, crate::input::InvalidOption> {
            Self::read_loose(value).map_err(|e| *e)
        }
    };
}
pub(crate) use from_loose_by_read;

/// What stands in for a field that failed to read while the fields after it are read.
pub trait Placeholder {
    /// A stand-in value (the type's default), discarded when `finish` reports the failure.
    fn placeholder() -> Self;
}

impl<T: Default> Placeholder for T {
    fn placeholder() -> Self {
        T::default()
    }
}

/// The fields of a JSON object.
///
/// A reader [`take`](Fields::take)s each field and ends with [`finish`](Fields::finish),
/// which reports the first field that failed. Why not `read(..)?` field by field: every early
/// return drops the fields read so far, which cost the wasm build kilobytes per reader.
pub struct Fields<'a> {
    entries: &'a [(String, Loose)],
    /// The first field that failed to read.
    error: Option<Invalid>,
}

impl<'a> Fields<'a> {
    /// The object's fields, whatever their names.
    pub fn of(value: &'a Loose) -> Result<Self, Invalid> {
        match value {
            Loose::Map(entries) => Ok(Fields { entries, error: None }),
            other => Err(InvalidOption::boxed("", Problem::WrongType { expected: "an object", found: other.kind() })),
        }
    }

    /// The object's fields; any name outside `known` is refused (serde's `deny_unknown_fields`).
    pub fn only(value: &'a Loose, known: &[&str]) -> Result<Self, Invalid> {
        let fields = Fields::of(value)?;
        match fields.entries.iter().find(|(name, _)| !known.contains(&name.as_str())) {
            Some((name, _)) => Err(InvalidOption::boxed(name, Problem::UnknownField)),
            None => Ok(fields),
        }
    }

    /// The field's value; a missing field reads as `Absent`.
    #[inline(never)]
    pub fn get(&self, name: &str) -> &'a Loose {
        const ABSENT: &Loose = &Loose::Absent;
        self.entries.iter().find(|(n, _)| n == name).map_or(ABSENT, |(_, value)| value)
    }

    /// Reads field `name` (a missing one reads as `null`); an error is prefixed with the field's name.
    pub fn read<T: FromLoose>(&self, name: &str) -> Result<T, Invalid> {
        T::read_loose(self.get(name)).map_err(|e| e.at(name))
    }

    /// A field that may be missing (or `null`): the type's default then.
    pub fn read_or_default<T: FromLoose + Default>(&self, name: &str) -> Result<T, Invalid> {
        match self.get(name) {
            Loose::Absent => Ok(T::default()),
            _ => self.read(name),
        }
    }

    /// The field's value, or a placeholder once it fails (the first failure is kept for `finish`).
    pub fn take<T: FromLoose + Placeholder>(&mut self, name: &str) -> T {
        T::read_loose(self.get(name)).unwrap_or_else(|e| {
            self.keep(e, name);
            T::placeholder()
        })
    }

    /// Keeps the first failure, named by its field.
    // Not generic: one copy for every field type.
    #[inline(never)]
    fn keep(&mut self, e: Invalid, name: &str) {
        if self.error.is_none() {
            self.error = Some(e.at(name));
        }
    }

    /// [`take`](Fields::take) for a field that may be missing (or `null`): the type's default then.
    pub fn take_or_default<T: FromLoose + Default>(&mut self, name: &str) -> T {
        match self.get(name) {
            Loose::Absent => T::default(),
            _ => self.take(name),
        }
    }

    /// `value` read from the fields taken, or the first field that failed.
    pub fn finish<T>(self, value: T) -> Result<T, Invalid> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

impl FromLoose for u64 {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        whole("", value, 0, MAX_SAFE_INTEGER)
    }
}

impl FromLoose for u32 {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        whole("", value, 0, u64::from(u32::MAX)).map(|n| n as u32)
    }
}

impl FromLoose for u16 {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        whole("", value, 0, u64::from(u16::MAX)).map(|n| n as u16)
    }
}

impl FromLoose for bool {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        match value {
            Loose::Bool(b) => Ok(*b),
            other => Err(InvalidOption::boxed("", Problem::WrongType { expected: "a boolean", found: other.kind() })),
        }
    }
}

impl FromLoose for String {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        text("", value).map(str::to_owned)
    }
}

impl<T: FromLoose> FromLoose for Option<T> {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        match value {
            Loose::Absent => Ok(None),
            some => T::read_loose(some).map(Some),
        }
    }
}

impl<T: FromLoose> FromLoose for Vec<T> {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let Loose::List(items) = value else {
            return Err(InvalidOption::boxed("", Problem::WrongType { expected: "an array", found: value.kind() }));
        };
        let mut read = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            read.push(T::read_loose(item).map_err(|e| e.at_item(i))?);
        }
        Ok(read)
    }
}
