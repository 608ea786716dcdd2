//! What is wrong with an option: the error every reader returns, naming the field.

use core::fmt;

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
        /// What it got, in [`Loose::kind`](super::Loose::kind)'s words.
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
    /// A status that is always a success (200–399): listing it among the failures to retry does nothing.
    SuccessStatus {
        /// The status given.
        status: u16,
    },
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
    /// A feature the lean entry (`retryline/fetch`) leaves out.
    NotInThisEntry {
        /// The feature, for the message.
        what: &'static str,
        /// The class to import from the default entry instead (`RetryClient`, `Budget`).
        import: &'static str,
    },
}

/// An [`InvalidOption`] on its way out of the crate's readers: boxed, so that a `Result` that may
/// carry one is a pointer wide. (A 40-byte error moved at every `?` was most of the readers' code
/// in the wasm build.) The public functions hand out the `InvalidOption` itself.
pub(crate) type Invalid = Box<InvalidOption>;

/// [`InvalidOption::within`] and [`InvalidOption::within_item`] for an [`Invalid`], in place
/// (named apart, so that a boxed error is never unboxed by mistake to be prefixed).
pub(crate) trait At {
    /// Prefixes the field path with `parent`.
    fn at(self, parent: &str) -> Self;
    /// Prefixes the field path with the item's index.
    fn at_item(self, index: usize) -> Self;
}

impl At for Invalid {
    fn at(mut self, parent: &str) -> Self {
        self.prefix(parent);
        self
    }
    fn at_item(mut self, index: usize) -> Self {
        self.prefix_item(index);
        self
    }
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
    // Not inlined: each of the many error sites would copy the field name in code of its own.
    #[cold]
    #[inline(never)]
    pub fn new(field: &str, problem: Problem) -> Self {
        InvalidOption { field: field.to_owned(), problem }
    }

    /// [`new`](Self::new), boxed ([`Invalid`]).
    #[cold]
    #[inline(never)]
    pub(crate) fn boxed(field: &str, problem: Problem) -> Invalid {
        Box::new(InvalidOption::new(field, problem))
    }

    /// Prefixes the field path, e.g. `maxAttempts` → `policy.maxAttempts`, `[2]` → `draws[2]`
    /// (an empty path is the parent itself).
    pub fn within(mut self, parent: &str) -> Self {
        self.prefix(parent);
        self
    }

    /// Prefixes the item's index, e.g. `maxAttempts` → `[2].maxAttempts`.
    pub fn within_item(mut self, index: usize) -> Self {
        self.prefix_item(index);
        self
    }

    #[inline(never)]
    fn prefix(&mut self, parent: &str) {
        let mut field = String::with_capacity(parent.len() + 1 + self.field.len());
        field.push_str(parent);
        if !self.field.is_empty() && !self.field.starts_with('[') {
            field.push('.');
        }
        field.push_str(&self.field);
        self.field = field;
    }

    #[inline(never)]
    fn prefix_item(&mut self, index: usize) {
        let mut path = String::from("[");
        crate::json::push_u64(&mut path, index as u64);
        path.push(']');
        self.prefix(&path);
    }

    /// Type mistakes are `TypeError`s; values of the right type out of range are `RangeError`s.
    pub fn class(&self) -> ErrorClass {
        match self.problem {
            Problem::WrongType { .. }
            | Problem::UnknownField
            | Problem::UnknownName { .. }
            | Problem::Requires { .. }
            | Problem::Unreadable { .. }
            | Problem::NotInThisEntry { .. } => ErrorClass::TypeError,
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
            Problem::SuccessStatus { status } => {
                out.push_str(": ");
                crate::json::push_u64(&mut out, u64::from(*status));
                (" is a success (200-399 always are) and is never retried: list the failures to retry, 4xx and 5xx", "")
            }
            Problem::Empty => (" must not be empty", ""),
            Problem::NotPositive => (" must be greater than 0", ""),
            Problem::NotAFraction => (" must be a fraction from 0 up to (not including) 1", ""),
            Problem::Requires { other } => {
                out.push_str(" needs ");
                out.push_str(other);
                (" as well", "")
            }
            Problem::Unreadable { detail } => (" could not be read: ", detail.as_str()),
            Problem::NotInThisEntry { what, import } => {
                out.push_str(" asks for ");
                out.push_str(what);
                out.push_str(", which retryline/fetch leaves out: import { ");
                out.push_str(import);
                (" } from \"retryline\"", "")
            }
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
