//! What JavaScript holds by handle on the fetch path: clients, budgets and operations.

use super::cell::Local;
use super::slab::Slab;
use crate::budget::Budget;
use crate::draw::Draws;
use crate::machine::Operation;
use crate::policy::Policy;
use crate::record::AttemptRecord;
use crate::redact::normalized_name;

/// A `RetryClient`'s part in the core: its policy, its draws, the caller's own secret names.
pub struct Client {
    pub policy: Policy,
    pub draws: Draws,
    /// Normalized as redaction compares them.
    pub secrets: Vec<String>,
}

impl Client {
    /// Whether a decoded query parameter name is one of the caller's secrets, or in `extra` (the
    /// names the glue found to match the caller's `RegExp`s).
    pub fn is_secret(&self, name: &str, extra: &[&str]) -> bool {
        if self.secrets.is_empty() && extra.is_empty() {
            return false;
        }
        extra.contains(&name) || self.secrets.contains(&normalized_name(name))
    }

    /// `text` (a URL when `url`) redacted with the built-in names, the caller's and `extra`'s.
    pub fn redact(&self, text: &str, url: bool, extra: &[&str]) -> String {
        let secret = |name: &str| self.is_secret(name, extra);
        match url {
            true => crate::redact::redact_url_with(text, &secret),
            false => crate::redact::redact_text_with(text, &secret),
        }
    }
}

/// What an operation is for, which decides how its failures read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `client.fetch`.
    Call,
    /// `client.reconcile`: status queries.
    Reconcile,
    /// `client.resolve`: store calls only.
    Resolve,
}

/// One operation, with the client and budget it runs under.
pub struct Op {
    pub op: Operation,
    pub client: u32,
    pub budget: u32,
    pub purpose: Purpose,
    /// Restored from a store: the first step resumes it.
    pub resumed: bool,
    /// The saved operation's records, when its key was refused.
    pub refused_records: Vec<AttemptRecord>,
    /// When the call was made (monotonic, wall): a reconciliation begins again from it once
    /// its order's scope is known.
    pub called_at: (u64, u64),
    /// The evidence an operator gave `client.resolve`.
    pub given: Option<crate::reconcile::Evidence>,
}

pub static CLIENTS: Local<Slab<Client>> = Local::new(Slab::new());
pub static BUDGETS: Local<Slab<Budget>> = Local::new(Slab::new());
pub static OPS: Local<Slab<Op>> = Local::new(Slab::new());

/// Runs `f` on an operation, its client and its budget; `None` if any of them is gone.
pub fn with_op<R>(handle: u32, f: impl FnOnce(&mut Op, &mut Client, &mut Budget) -> R) -> Option<R> {
    OPS.with(|ops| {
        let op = ops.get_mut(handle)?;
        CLIENTS.with(|clients| {
            let client = clients.get_mut(op.client)?;
            BUDGETS.with(|budgets| {
                let budget = budgets.get_mut(op.budget)?;
                Some(f(op, client, budget))
            })
        })
    })
}
