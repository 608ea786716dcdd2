//! Settling an order whose outcome is unknown: [`Client::reconcile`] by the caller's status query,
//! [`Client::resolve`] by hand; both end in [`Reconciled`].

use std::future::Future;
use std::rc::Rc;

use web_sys::AbortSignal;

use super::client::Client;
use super::error::Error;
pub use super::settle::Reconciled;
use super::settle::{self, Settled};
use crate::input::{name, InvalidOption, Loose, Problem};
use crate::policy::Policy;
use crate::reconcile::{reconciliation_policy, Evidence};
use crate::web::executor::{Query, Running};
use crate::web::platform::errors::{invalid, type_error};

/// The evidence names that settle an order (all but `not-found`).
const RESOLVING: &str = "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\"";

/// The key, checked as a call's is; `context` names the method in the error.
fn checked_key(context: &str, key: &str) -> Result<String, Error> {
    name("key", &Loose::Text(key.to_owned())).map_err(|e| Error::Invalid(invalid(context, &e)))
}

impl Client {
    /// Settles an order whose outcome is unknown by asking `query` (given the attempt, from 1,
    /// and a signal that fires when its time is up) until its evidence resolves it, under
    /// `policy` (default: 5 queries of 5 s within 60 s, see [`reconciliation_policy`]); never
    /// resends the order. `signal` aborts the reconciliation. A key still being submitted by its
    /// owner is refused with a `TypeError` ([`Error::Invalid`]).
    pub async fn reconcile<F, Fut>(
        &self,
        key: &str,
        query: F,
        policy: Option<Policy>,
        signal: Option<AbortSignal>,
    ) -> Result<Reconciled, Error>
    where
        F: Fn(u32, AbortSignal) -> Fut + 'static,
        Fut: Future<Output = Result<Evidence, String>> + 'static,
    {
        let key = checked_key("reconcile", key)?;
        let policy = match policy {
            Some(policy) => policy,
            None => reconciliation_policy(&Loose::Absent).map_err(|e| Error::Invalid(invalid("reconcile", &e)))?,
        };
        let query: Query = Rc::new(move |attempt, signal| Box::pin(query(attempt, signal)));
        settled(self.reconciliation(&key, query, policy, signal)).await
    }

    /// Closes an unknown outcome by hand with what the operator established (`state` must
    /// settle it: not [`Evidence::NotFound`]).
    pub async fn resolve(&self, key: &str, state: Evidence) -> Result<Reconciled, Error> {
        let key = checked_key("resolve", key)?;
        if !state.resolves() {
            let problem = Problem::UnknownName { allowed: RESOLVING };
            return Err(Error::Invalid(invalid("resolve", &InvalidOption::new("state", problem))));
        }
        settled(self.resolution(&key, state)).await
    }
}

/// What a reconciliation (or a resolution) came to, once it has settled; dropping it cancels it.
async fn settled(running: Running) -> Result<Reconciled, Error> {
    match settle::settled(running).await {
        Settled::Reconciled(reconciled) => Ok(*reconciled),
        Settled::Stopped(stopped) => Err(Error::Stopped(stopped)),
        Settled::Thrown(error) => Err(Error::Invalid(error)),
        Settled::Response(_) => Err(Error::Invalid(type_error("a reconciliation ended as a fetch"))),
    }
}
