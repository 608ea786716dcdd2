//! The typed Rust API on wasm32, for Rust dashboards (Leptos, Yew, Dioxus) and crates tested with
//! `wasm-pack test`: a [`Client`] built from the core's [`Policy`] and [`Budget`](SharedBudget),
//! whose [`Client::fetch`] takes a `web_sys::Request` and [`CallOptions`] and returns
//! `Result<web_sys::Response, Error>`.
//!
//! It runs the very shell the JavaScript `RetryClient` runs: `RetryClient`'s methods read their
//! JavaScript options into these same types and call the same steps, so both behave alike by
//! construction.
//!
//! **Cancelling** is dropping the future: its timers are cleared and the attempt in flight is
//! aborted (its `AbortSignal` fires). An order dropped in flight is kept unresolved in the store,
//! as any unknown outcome is: reconcile it. To cancel from elsewhere, give the call a
//! [`CallOptions::signal`] of your own and abort it: the call then ends with [`Reason::Aborted`].

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::AbortSignal;

use super::budget::{Held, SharedBudget};
use super::client::{entropy, Client as Shell, Failed, Observer};
use super::clock;
use super::error::{invalid, Failure};
use super::fetch::Fetcher;
use super::options::CallOptions as ShellCall;
use super::reconcile::{Query, Reconciled};
use super::secrets::Secrets;
use super::store::Store;
use super::text;
use crate::budget::{Budget, Priority};
use crate::classify::OperationKind;
use crate::draw::Draws;
use crate::input::{name, InvalidOption, Loose, Problem};
use crate::policy::Policy;
use crate::reason::Reason;
use crate::reconcile::{reconciliation_policy, Evidence};
use crate::record::AttemptRecord;

/// The most a call may weigh (as the JavaScript `weight` option).
const MAX_WEIGHT: u32 = 1_000_000;

/// Retries `fetch` under a policy; cheap to clone (clones share everything).
#[derive(Clone)]
pub struct Client {
    pub(super) shell: Rc<Shell>,
}

/// Builds a [`Client`]: `Client::builder().policy(p).budget(&b).build()`.
#[derive(Default)]
pub struct ClientBuilder {
    policy: Option<Policy>,
    budget: Option<Held>,
    seed: Option<u64>,
    store: Option<Store>,
    observer: Option<Observer>,
    read_body: bool,
}

impl ClientBuilder {
    /// The policy of every call (default: [`Policy::default`]).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// A budget shared with other clients (and, with `share` or `coordinator`, other realms).
    pub fn budget(mut self, budget: &SharedBudget) -> Self {
        self.budget = Some(budget.held());
        self
    }

    /// Seed for reproducible jitter (default: random).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
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

    /// Whether calls read the body inside the attempt timeout (default: no; per call too).
    pub fn read_body(mut self, read: bool) -> Self {
        self.read_body = read;
        self
    }

    /// The client.
    pub fn build(self) -> Client {
        let held =
            self.budget.unwrap_or_else(|| Held { budget: Rc::new(RefCell::new(Budget::default())), share: None });
        let shell = Shell {
            policy: self.policy.unwrap_or_default(),
            budget: held.budget,
            share: held.share,
            published: std::cell::Cell::new((0, 0)),
            draws: RefCell::new(Draws::scripted(Vec::new(), self.seed.unwrap_or_else(entropy))),
            fetcher: Fetcher::Global,
            on_attempt: None,
            observer: self.observer,
            on_escalation: None,
            store: self.store.unwrap_or_else(Store::memory),
            secrets: Secrets::default(),
            owner: text::hex16(entropy()),
            read_body: self.read_body,
        };
        Client { shell: Rc::new(shell) }
    }
}

/// What one call asks beyond the client's defaults; `CallOptions::default()` asks nothing.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    /// Replaces the client's policy for this call.
    pub policy: Option<Policy>,
    /// `read` or `order` (default: from the method — POST, PUT, PATCH and DELETE are orders).
    pub operation: Option<OperationKind>,
    /// Who goes first when the budget is short (default: `order` for orders, `read` otherwise).
    pub priority: Option<Priority>,
    /// An order's client id: its state is kept under it, and it is never sent twice.
    pub key: Option<String>,
    /// The budget scope (default: the URL's origin).
    pub scope: Option<String>,
    /// Tokens this call spends per attempt (default 1).
    pub weight: Option<u32>,
    /// This call's own deadline, ms from now (replaces the policy's).
    pub deadline_ms: Option<u64>,
    /// Aborting it ends the call with [`Reason::Aborted`].
    pub signal: Option<AbortSignal>,
    /// Read the body inside the attempt timeout (default: the client's choice).
    pub read_body: Option<bool>,
}

impl CallOptions {
    /// An order under `key`, its client order id.
    pub fn order(key: &str) -> CallOptions {
        CallOptions { operation: Some(OperationKind::Order), key: Some(key.to_owned()), ..CallOptions::default() }
    }

    /// Checked as the JavaScript options are, into what the shell runs.
    fn for_shell(self, client_policy: &Policy) -> Result<ShellCall, InvalidOption> {
        let text = |field: &str, value: Option<String>| value.map(|v| name(field, &Loose::Text(v))).transpose();
        let weight = self.weight.unwrap_or(1);
        if !(1..=MAX_WEIGHT).contains(&weight) {
            let problem = if weight == 0 {
                Problem::TooSmall { min: 1 }
            } else {
                Problem::TooLarge { max: u64::from(MAX_WEIGHT) }
            };
            return Err(InvalidOption::new("weight", problem));
        }
        let mut policy = self.policy.unwrap_or_else(|| client_policy.clone());
        if let Some(ms) = self.deadline_ms {
            policy = policy.with_call_deadline("deadlineMs", ms)?;
        }
        Ok(ShellCall {
            policy,
            operation: self.operation,
            priority: self.priority,
            key: text("key", self.key)?,
            scope: text("scope", self.scope)?,
            weight,
            signal: self.signal,
            read_body: self.read_body,
            on_attempt: None,
        })
    }
}

/// How a call ended without a successful response.
#[derive(Debug)]
pub enum Error {
    /// The operation stopped: its [`Reason`], the last response and every record.
    Stopped(Box<Stopped>),
    /// An option or the request was invalid (a `TypeError`/`RangeError` naming the field), or the
    /// request's body could not be read: nothing was sent.
    Invalid(JsValue),
}

/// An operation that stopped without success: what `RetryError` carries in JavaScript.
#[derive(Debug)]
pub struct Stopped {
    /// Why it stopped.
    pub reason: Reason,
    /// "POST https://…/order: unknown-outcome after 1 request: the order may have executed; …"
    pub message: String,
    /// The order's key, if it had one.
    pub key: Option<String>,
    /// The provider's last response (body unread, URL redacted), if there was one.
    pub response: Option<web_sys::Response>,
    /// Every attempt, sent or refused, in order.
    pub records: Vec<AttemptRecord>,
}

impl Error {
    /// Why the operation stopped; `None` for an invalid call.
    pub fn reason(&self) -> Option<Reason> {
        match self {
            Error::Stopped(stopped) => Some(stopped.reason),
            Error::Invalid(_) => None,
        }
    }

    /// The operation's records (none for an invalid call).
    pub fn records(&self) -> &[AttemptRecord] {
        match self {
            Error::Stopped(stopped) => &stopped.records,
            Error::Invalid(_) => &[],
        }
    }

    /// The provider's last response, if there was one.
    pub fn response(&self) -> Option<&web_sys::Response> {
        match self {
            Error::Stopped(stopped) => stopped.response.as_ref(),
            Error::Invalid(_) => None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Stopped(stopped) => f.write_str(&stopped.message),
            Error::Invalid(error) => f.write_str(&super::guard::describe(error)),
        }
    }
}

impl std::error::Error for Error {}

impl From<Failed> for Error {
    fn from(failed: Failed) -> Error {
        match failed {
            Failed::Stopped(failure) => {
                let message = failure.message();
                let Failure { stop, key, response, records, .. } = *failure;
                let response = response.dyn_into::<web_sys::Response>().ok();
                Error::Stopped(Box::new(Stopped { reason: stop.reason, message, key, response, records }))
            }
            Failed::Thrown(error) => Error::Invalid(error),
        }
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

    /// `fetch(request)` with retries under the client's policy and `options`: the successful
    /// response, or why the operation stopped. Dropping the future cancels the call.
    pub async fn fetch(&self, request: &web_sys::Request, options: CallOptions) -> Result<web_sys::Response, Error> {
        self.run(request.as_ref(), &JsValue::UNDEFINED, options).await
    }

    /// `GET url` with retries.
    pub async fn get(&self, url: &str, options: CallOptions) -> Result<web_sys::Response, Error> {
        self.run(&JsValue::from_str(url), &JsValue::UNDEFINED, options).await
    }

    /// `method url` with `headers` and a text `body`, with retries.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
        options: CallOptions,
    ) -> Result<web_sys::Response, Error> {
        let init = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&init, &k.into(), v).map(|_| ());
        let header_pairs = js_sys::Array::new();
        for (name, value) in headers {
            header_pairs.push(&js_sys::Array::of2(&(*name).into(), &(*value).into()));
        }
        set("method", &method.into())
            .and_then(|()| set("headers", &header_pairs))
            .and_then(|()| body.map_or(Ok(()), |b| set("body", &b.into())))
            .map_err(Error::Invalid)?;
        self.run(&JsValue::from_str(url), &init, options).await
    }

    async fn run(&self, input: &JsValue, init: &JsValue, options: CallOptions) -> Result<web_sys::Response, Error> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let call = options.for_shell(&self.shell.policy).map_err(|e| Error::Invalid(invalid("fetch options", &e)))?;
        let prepared = self.shell.prepare_call(now, wall, input, init, call).map_err(Error::Invalid)?;
        // Dropped before it ends: its timers are cleared by their races, its request aborted by `fetch::send`.
        let response = self.shell.run(prepared).await?;
        response.dyn_into::<web_sys::Response>().map_err(|other| {
            Error::Invalid(super::error::type_error(&text::join(&[
                "fetch gave ",
                super::value::kind(&other),
                ", not a Response",
            ])))
        })
    }
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
        let called_at = (clock::now(), clock::wall_now());
        let key = name("key", &Loose::Text(key.to_owned())).map_err(|e| Error::Invalid(invalid("reconcile", &e)))?;
        let policy = match policy {
            Some(policy) => policy,
            None => reconciliation_policy(&Loose::Absent).map_err(|e| Error::Invalid(invalid("reconcile", &e)))?,
        };
        let query = Query::Rust(Rc::new(move |attempt, signal| Box::pin(query(attempt, signal))));
        let run = Shell::reconciliation(key, query, policy, signal, called_at);
        Ok(self.shell.reconcile(run).await?)
    }

    /// Closes an unknown outcome by hand with what the operator established (`state` must
    /// settle it: not [`Evidence::NotFound`]).
    pub async fn resolve(&self, key: &str, state: Evidence) -> Result<Reconciled, Error> {
        let key = name("key", &Loose::Text(key.to_owned())).map_err(|e| Error::Invalid(invalid("resolve", &e)))?;
        Ok(self.shell.resolve(clock::now(), &key, Some(state)).await?)
    }
}
