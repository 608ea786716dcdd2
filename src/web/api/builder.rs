//! How a [`Client`] is made: [`Client::new`], or [`Client::builder`] for more than a policy.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use super::client::{Client, Defaults};
use super::error::Error;
use super::family::{check_families, Family};
use super::retry_info::RetryInfo;
use super::shared_budget::{Held, SharedBudget};
use super::should_retry::{RetryContext, ShouldRetry};
use crate::budget::BudgetConfig;
use crate::draw::Draws;
use crate::policy::Policy;
use crate::record::AttemptRecord;
use crate::text;
use crate::web::executor::{Executor, Observer, RetryObserver};
use crate::web::platform::errors::invalid;
use crate::web::platform::store::Store;
use crate::web::platform::values;

/// Builds a [`Client`]: `Client::builder().policy(p).budget(&b).build()`.
///
/// # Default
/// [`Policy::default`], a budget of its own (no token limit; the retry quota on), random jitter
/// and no scripted draws, this client's memory for a store, no observer, bodies not read, no
/// endpoint families, no `should_retry` (every retry the core admits goes), never stale.
#[derive(Default)]
pub struct ClientBuilder {
    policy: Option<Policy>,
    budget: Option<Held>,
    seed: Option<u64>,
    draws: Vec<u64>,
    store: Option<Store>,
    observer: Option<Observer>,
    on_retry: Option<RetryObserver>,
    stale_if_error_ms: u64,
    coalesce: bool,
    read_body: bool,
    families: Vec<Family>,
    should_retry: Option<ShouldRetry>,
}

impl ClientBuilder {
    /// The policy of every call (default: [`Policy::default`]).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// A budget shared with other clients (and, with a `share` name, the origin's other realms).
    pub fn budget(mut self, budget: &SharedBudget) -> Self {
        self.budget = Some(budget.held());
        self
    }

    /// Seed for reproducible jitter (default: random).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The client's first backoff delays (ms), used in order before the seeded draws — to show a
    /// schedule exactly (the reference article's 400, 600, 1 200, 2 400 ms) in demos and tests, as
    /// the JavaScript `draws` option does (default: none).
    pub fn draws(mut self, delays: impl IntoIterator<Item = u64>) -> Self {
        self.draws = delays.into_iter().collect();
        self
    }

    /// Where keyed operations keep their state: a JavaScript object with `get`/`set`/`delete`
    /// (a `Map`, Durable Object storage) or `getItem`/`setItem`/`removeItem` (`localStorage`).
    /// Default: this client's memory.
    pub fn store(mut self, store: &JsValue) -> Result<Self, Error> {
        let store = Store::from_js(store).map_err(|e| Error::Invalid(invalid("store", &e)))?;
        self.store = Some(store);
        Ok(self)
    }

    /// Called with every attempt's record, sent or refused, as it is made.
    pub fn on_attempt(mut self, observer: impl Fn(&AttemptRecord) + 'static) -> Self {
        self.observer = Some(Rc::new(observer));
        self
    }

    /// Called before each retry's sleep (or its send, when no wait is planned) with the plan and
    /// why the attempt before it failed, as JavaScript's `onRetry`.
    pub fn on_retry(mut self, observer: impl Fn(&RetryInfo) + 'static) -> Self {
        self.on_retry = Some(Rc::new(observer));
        self
    }

    /// A read that fails for want of a current answer resolves with its last good response if it
    /// is at most `ms` old, marked stale ([`staleness`](super::staleness)), as JavaScript's
    /// `staleIfErrorMs`; at most 256 kept, the oldest going first. Default 0: never.
    pub fn stale_if_error_ms(mut self, ms: u64) -> Self {
        self.stale_if_error_ms = ms;
        self
    }

    /// Concurrent reads of the same request (GET or HEAD without a body or key, the same URL and
    /// headers) share one operation, as JavaScript's `coalesce`: each caller gets its own copy of
    /// the response; its abort or its own earlier deadline releases it alone. This client's reads
    /// only. Default: off.
    pub fn coalesce(mut self, coalesce: bool) -> Self {
        self.coalesce = coalesce;
        self
    }

    /// Whether calls read the body inside the attempt timeout (default: no; per call too).
    pub fn read_body(mut self, read: bool) -> Self {
        self.read_body = read;
        self
    }

    /// The veto over every call's retries (see [`ShouldRetry`]); a family's or a call's own wins
    /// over it (default: none).
    pub fn should_retry<F, Fut>(mut self, decide: F) -> Self
    where
        F: Fn(RetryContext) -> Fut + 'static,
        Fut: Future<Output = Result<bool, String>> + 'static,
    {
        self.should_retry = Some(ShouldRetry::new(decide));
        self
    }

    /// Endpoint families, first match wins: a call a family takes runs under its options, the
    /// call's own overriding them field by field, policies merged (see [`Family`]). `Err` names the first family
    /// that is not valid, e.g. `families[1] (orders): weight must be at least 1`.
    pub fn families(mut self, families: impl IntoIterator<Item = Family>) -> Result<Self, Error> {
        let families: Vec<Family> = families.into_iter().collect();
        check_families(&families).map_err(Error::Invalid)?;
        self.families = families;
        Ok(self)
    }

    /// The client.
    pub fn build(self) -> Client {
        let store = self.store.unwrap_or_else(Store::memory);
        let policy = self.policy.unwrap_or_default();
        let should_retry = self.should_retry.map(|s| s.0);
        let draws = RefCell::new(Draws::scripted(self.draws, self.seed.unwrap_or_else(values::entropy)));
        let Held { budget, share } = self.budget.unwrap_or_else(|| Held::new(BudgetConfig::default(), None));
        let kept = RefCell::default();
        let joinable = Default::default();
        let executor =
            Executor { budget, share, draws, store, observer: self.observer, on_retry: self.on_retry, kept, joinable };
        let owner = text::hex16(values::entropy());
        let (stale_ms, coalesce) = (self.stale_if_error_ms, self.coalesce);
        let defaults = Defaults { policy, owner, read_body: self.read_body, should_retry, stale_ms, coalesce };
        Client { executor: Rc::new(executor), defaults: Rc::new(defaults), families: self.families.into() }
    }
}

impl Client {
    /// A client with `policy`, its own budget and an in-memory store.
    pub fn new(policy: Policy) -> Client {
        Client::builder().policy(policy).build()
    }

    /// A builder over the defaults: [`Policy::default`], a budget of its own, memory for a store.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }
}
