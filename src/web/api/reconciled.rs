//! Settling an order whose outcome is unknown: [`Client::reconcile`] by the caller's status query,
//! [`Client::resolve`] by hand; both end in [`Reconciled`].

use std::future::Future;
use std::rc::Rc;

use web_sys::AbortSignal;

use super::client::Client;
use super::error::Error;
use crate::input::{name, Loose};
use crate::policy::Policy;
use crate::reconcile::{reconciliation_policy, Evidence};
use crate::record::AttemptRecord;
use crate::web::drivers::driver::Driver;
use crate::web::drivers::reconcile::{Query, Settlement};
use crate::web::platform::errors::invalid;

/// How a reconciliation (or a resolution by hand) ended.
#[derive(Clone, Debug)]
pub struct Reconciled {
    /// The order's key.
    pub key: String,
    /// The evidence settled it: the key is gone from the store.
    pub resolved: bool,
    /// The last evidence the queries found, or the state given by hand.
    pub state: Option<Evidence>,
    /// The policy ran out unresolved: an operator must look (the store keeps the key, marked).
    pub escalated: bool,
    /// The queries, as attempt records.
    pub records: Vec<AttemptRecord>,
    /// The store could not be brought up to date: what it said.
    pub store_error: Option<String>,
}

impl From<Settlement> for Reconciled {
    fn from(s: Settlement) -> Reconciled {
        let Settlement { key, resolved, state, escalated, records, store_error } = s;
        Reconciled { key, resolved, state, escalated, records, store_error }
    }
}

/// The key, checked as a call's is; `context` names the method in the error.
fn checked_key(context: &str, key: &str) -> Result<String, Error> {
    name("key", &Loose::Text(key.to_owned())).map_err(|e| Error::Invalid(invalid(context, &e)))
}

impl Client {
    /// Settles an order whose outcome is unknown by asking `query` (given the attempt, from 1,
    /// and a signal that fires when its time is up) until its evidence resolves it, under
    /// `policy` (default: 5 queries of 5 s within 60 s, see [`reconciliation_policy`]); never
    /// resends the order. `signal` aborts the reconciliation.
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
        let run = Driver::reconciliation(key, query, policy, signal);
        Ok(self.driver.reconcile(run).await?.into())
    }

    /// Closes an unknown outcome by hand with what the operator established (`state` must
    /// settle it: not [`Evidence::NotFound`]).
    pub async fn resolve(&self, key: &str, state: Evidence) -> Result<Reconciled, Error> {
        let key = checked_key("resolve", key)?;
        Ok(self.driver.resolve(&key, state).await?.into())
    }
}
