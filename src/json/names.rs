//! The enums that travel as names (kebab-case, as serde's `rename_all` wrote them).

use super::read::from_loose_by_read;
use super::{FromLoose, Placeholder, ToJson};
use crate::budget::{Limit, Priority};
use crate::classify::{Observed, OperationKind};
use crate::input::read::text;
use crate::input::{Invalid, InvalidOption, Loose, Problem};
use crate::policy::Jitter;
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::{Decision, Pending};
use crate::retry_after::RetryAfterForm;

macro_rules! named {
    ($ty:ty { $($variant:path => $name:literal),* $(,)? }) => {
        impl $ty {
            /// Every variant, in the order of their codes across the wasm boundary.
            pub const ALL: &'static [$ty] = &[$($variant),*];

            /// Every variant's name, in the order of [`ALL`](Self::ALL).
            pub const NAME_LIST: &'static [&'static str] = &[$($name),*];

            /// Its name, as JSON and the JavaScript options spell it.
            pub fn name(self) -> &'static str {
                match self { $($variant => $name),* }
            }
        }

        impl ToJson for $ty {
            fn write_json(&self, out: &mut String) {
                self.name().write_json(out)
            }
        }

        impl FromLoose for $ty {
            from_loose_by_read!();

            fn read_loose(value: &Loose) -> Result<Self, Invalid> {
                let at = name_index(value, Self::NAME_LIST, concat!($("\"", $name, "\" "),*))?;
                // `at` indexes NAME_LIST, as long as ALL.
                Ok(Self::ALL.get(at).copied().unwrap_or(Self::ALL[0]))
            }
        }
    };
}

/// The index of the name `value` holds in `names`; an error lists the `allowed` names.
// A table scan, not a `match` per enum: those string matches took about 3 KB of wasm across the
// enums; and not generic over the enum, which took 2 KB more.
#[inline(never)]
fn name_index(value: &Loose, names: &[&str], allowed: &'static str) -> Result<usize, Invalid> {
    let name = text("", value)?;
    position(names, name).ok_or_else(|| InvalidOption::boxed("", Problem::UnknownName { allowed }))
}

/// Where `name` is in `names`.
#[inline(never)]
pub(crate) fn position(names: &[&str], name: &str) -> Option<usize> {
    names.iter().position(|n| *n == name)
}

// Reason's names are its own `as_str`, the contract's reason strings: one table, not two.
impl ToJson for Reason {
    fn write_json(&self, out: &mut String) {
        self.as_str().write_json(out)
    }
}

impl FromLoose for Reason {
    from_loose_by_read!();

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let at = name_index(value, &Reason::NAME_LIST, Reason::NAMES)?;
        Ok(Reason::ALL.get(at).copied().unwrap_or(Reason::Success))
    }
}

named!(Decision { Decision::Sent => "sent", Decision::Refused => "refused", Decision::Stale => "stale" });

impl Placeholder for Decision {
    fn placeholder() -> Self {
        Decision::Refused
    }
}

named!(Pending {
    Pending::Response => "response",
    Pending::Body => "body",
    Pending::RequestBody => "request-body",
    Pending::Query => "query",
    Pending::Lease => "lease",
    Pending::StoreGet => "store-get",
    Pending::StoreSet => "store-set",
    Pending::StoreDelete => "store-delete",
});

named!(OperationKind {
    OperationKind::Read => "read",
    OperationKind::Idempotent => "idempotent",
    OperationKind::Order => "order",
    OperationKind::Stream => "stream",
});

named!(Observed {
    Observed::Response => "response",
    Observed::Timeout => "timeout",
    Observed::NetworkError => "network-error",
    Observed::Aborted => "aborted",
    Observed::Interrupted => "interrupted",
});

named!(RetryAfterForm {
    RetryAfterForm::Seconds => "seconds",
    RetryAfterForm::Date => "date",
    RetryAfterForm::Unparseable => "unparseable",
    RetryAfterForm::Clamped => "clamped",
    RetryAfterForm::Unreadable => "unreadable",
    RetryAfterForm::RateLimitReset => "ratelimit-reset",
    RetryAfterForm::XRateLimitReset => "x-ratelimit-reset",
    RetryAfterForm::XRateLimitRetryAfter => "x-ratelimit-retry-after",
    RetryAfterForm::XRateLimitResetDashed => "x-rate-limit-reset",
});

named!(Evidence {
    Evidence::Filled => "filled",
    Evidence::PartiallyFilled => "partially-filled",
    Evidence::Open => "open",
    Evidence::Canceled => "canceled",
    Evidence::Rejected => "rejected",
    Evidence::NotFound => "not-found",
});

named!(Limit { Limit::Tokens => "tokens", Limit::RetryQuota => "retry-quota", Limit::ShouldRetry => "should-retry", Limit::InFlight => "in-flight" });

named!(Priority {
    Priority::Refresh => "refresh",
    Priority::Read => "read",
    Priority::Order => "order",
    Priority::Reconcile => "reconcile",
});

named!(Jitter {
    Jitter::Full => "full",
    Jitter::Equal => "equal",
    Jitter::Decorrelated => "decorrelated",
    Jitter::None => "none",
});

/// The call options a `RequestInit` must not carry: the glue refuses them in `fetch`'s second
/// argument by name (`signal` is both, and stays the platform's).
pub const CALL_OPTIONS: [&str; 13] = [
    "policy",
    "operation",
    "priority",
    "key",
    "scope",
    "weight",
    "deadlineMs",
    "readBody",
    "onAttempt",
    "onRetry",
    "onEnd",
    "staleIfErrorMs",
    "coalesce",
];

/// The tables the wasm boundary's glue learns once, by field: each a list whose index is the code
/// that crosses the boundary.
const BOUNDARY_TABLES: [(&str, &[&str]); 9] = [
    ("reason", &Reason::NAME_LIST),
    ("pending", Pending::NAME_LIST),
    ("pendingPhrase", &crate::failure::PENDING_PHRASES),
    ("observed", Observed::NAME_LIST),
    ("operation", OperationKind::NAME_LIST),
    ("priority", Priority::NAME_LIST),
    ("evidence", Evidence::NAME_LIST),
    ("callOptions", &CALL_OPTIONS),
    ("resetHeaders", &crate::retry_after::RESET_HEADER_NAMES),
];

/// `bytes` appended to `out` at `at` (as far as its `N` bytes go); where they end.
const fn put<const N: usize>(mut out: [u8; N], mut at: usize, bytes: &[u8]) -> ([u8; N], usize) {
    let mut i = 0;
    while i < bytes.len() {
        if at < N {
            out[at] = bytes[i];
        }
        at += 1;
        i += 1;
    }
    (out, at)
}

/// The JSON text of [`BOUNDARY_TABLES`] (`{"reason":["success",…],…}`) in the first `N` bytes,
/// and its whole length (so `N = 0` measures it). A `const fn`: the compiler builds the text.
const fn boundary_json<const N: usize>() -> ([u8; N], usize) {
    let (mut out, mut at) = put([0; N], 0, b"{");
    let mut t = 0;
    while t < BOUNDARY_TABLES.len() {
        let (field, names) = BOUNDARY_TABLES[t];
        (out, at) = put(out, at, if t == 0 { b"\"" } else { b",\"" });
        (out, at) = put(out, at, field.as_bytes());
        (out, at) = put(out, at, b"\":[");
        let mut n = 0;
        while n < names.len() {
            let name = names[n].as_bytes();
            let mut c = 0;
            while c < name.len() {
                // Written unescaped: a name that would need escaping fails the build.
                assert!(name[c] != b'"' && name[c] != b'\\' && name[c] >= 0x20);
                c += 1;
            }
            (out, at) = put(out, at, if n == 0 { b"\"" } else { b",\"" });
            (out, at) = put(out, at, name);
            (out, at) = put(out, at, b"\"");
            n += 1;
        }
        (out, at) = put(out, at, b"]");
        t += 1;
    }
    put(out, at, b"}")
}

/// `{ reason, pending, pendingPhrase, observed, operation, priority, evidence, callOptions }` as
/// JSON text (UTF-8), what the wasm boundary's `rl_names` hands out.
pub static BOUNDARY_NAMES: [u8; boundary_json::<0>().1] = boundary_json().0;

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes across the boundary are the variants' indexes in `ALL`, which is what
    /// `as usize` gives (`Reason::as_str` and `pending_phrase` read their lists by it).
    #[test]
    fn lists_follow_declaration_order() {
        assert!(Reason::ALL.iter().enumerate().all(|(i, &r)| r as usize == i));
        assert!(Pending::ALL.iter().enumerate().all(|(i, &p)| p as usize == i));
        for (i, &p) in Pending::ALL.iter().enumerate() {
            assert_eq!(Pending::NAME_LIST[i], p.name());
        }
    }

    #[test]
    fn boundary_names_are_the_tables_as_json() {
        fn list(names: impl IntoIterator<Item = &'static str>) -> Vec<&'static str> {
            names.into_iter().collect()
        }
        let mut expected = String::new();
        super::super::Object::new(&mut expected)
            .field("reason", &list(Reason::ALL.map(Reason::as_str)))
            .field("pending", &list(Pending::ALL.iter().map(|&p| p.name())))
            .field("pendingPhrase", &list(Pending::ALL.iter().map(|&p| crate::failure::pending_phrase(p))))
            .field("observed", &list(Observed::ALL.iter().map(|&o| o.name())))
            .field("operation", &list(OperationKind::ALL.iter().map(|&o| o.name())))
            .field("priority", &list(Priority::ALL.iter().map(|&p| p.name())))
            .field("evidence", &list(Evidence::ALL.iter().map(|&e| e.name())))
            .field("callOptions", &list(CALL_OPTIONS))
            .field("resetHeaders", &list(crate::retry_after::RESET_HEADERS.map(|(name, _)| name)))
            .end();
        assert_eq!(std::str::from_utf8(&BOUNDARY_NAMES), Ok(expected.as_str()));
        assert!(expected.starts_with("{\"reason\":[\"success\",\"retryable\","));
        assert!(expected.contains("\"pendingPhrase\":[\"the response\",\"the response body\","));
    }
}
