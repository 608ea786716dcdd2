//! The enums that travel as names (kebab-case, as serde's `rename_all` wrote them).

use super::{FromLoose, Placeholder, ToJson};
use crate::budget::{Limit, Priority};
use crate::classify::{Observed, OperationKind};
use crate::input::{text, InvalidOption, Loose, Problem};
use crate::policy::Jitter;
use crate::reason::Reason;
use crate::reconcile::Evidence;
use crate::record::{Decision, Pending};
use crate::retry_after::RetryAfterForm;

macro_rules! named {
    ($ty:ty { $($variant:path => $name:literal),* $(,)? }) => {
        impl $ty {
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
            fn from_loose(value: &Loose) -> Result<Self, InvalidOption> {
                by_name(value, &[$(($variant, $name)),*], concat!($("\"", $name, "\" "),*))
            }
        }
    };
}

/// The variant `value` names in `table`; an error lists the `allowed` names.
// A table scan, not a `match` per enum: those string matches took about 3 KB of wasm across the enums.
#[inline(never)]
fn by_name<T: Copy>(value: &Loose, table: &[(T, &str)], allowed: &'static str) -> Result<T, InvalidOption> {
    let name = text("", value)?;
    match table.iter().find(|(_, n)| *n == name) {
        Some((variant, _)) => Ok(*variant),
        None => Err(InvalidOption::new("", Problem::UnknownName { allowed })),
    }
}

// Reason's names are its own `as_str`, the contract's reason strings: one table, not two.
impl ToJson for Reason {
    fn write_json(&self, out: &mut String) {
        self.as_str().write_json(out)
    }
}

impl FromLoose for Reason {
    fn from_loose(value: &Loose) -> Result<Self, InvalidOption> {
        by_name(value, &Reason::ALL.map(|r| (r, r.as_str())), Reason::NAMES)
    }
}

named!(Decision { Decision::Sent => "sent", Decision::Refused => "refused" });

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
});

named!(Evidence {
    Evidence::Filled => "filled",
    Evidence::PartiallyFilled => "partially-filled",
    Evidence::Open => "open",
    Evidence::Canceled => "canceled",
    Evidence::Rejected => "rejected",
    Evidence::NotFound => "not-found",
});

named!(Limit { Limit::Tokens => "tokens", Limit::RetryQuota => "retry-quota" });

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
