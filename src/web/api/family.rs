//! [`Family`]: an endpoint family declared once on the client — which requests it takes and the
//! call options they run under — checked as the JavaScript `families` option is.
//!
//! The first family whose match takes a request wins; the call's own [`CallOptions`] override
//! it field by field, and policies are merged field by field too, as in JavaScript: the call's
//! policy fields over the family's over the client's (a whole [`Policy`] gives every field).

use std::future::Future;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use super::call_options::{check_weight, CallOptions};
use super::policy_layer::{layered, PolicyLayer};
use super::should_retry::{RetryContext, ShouldRetry};
use crate::budget::Priority;
use crate::classify::OperationKind;
use crate::input::{name, InvalidOption, Loose, Problem};
use crate::policy::Policy;
use crate::retry_after::RESET_HEADER_NAMES;
use crate::text;
use crate::web::platform::errors::{invalid, type_error};
use crate::web::platform::response::Waits;
use crate::worksheet::{iso_day, Declared, Docs, Match};

/// What a family's functions are given of a request. `body` is the text body given to
/// [`Client::send`](super::Client::send); `None` for a `get`, and for a `fetch` of a
/// `web_sys::Request` (its body cannot be read before it is sent).
#[derive(Clone, Copy, Debug)]
pub struct FamilyRequest<'a> {
    /// As the request has it (`Request` upper-cases the standard methods).
    pub method: &'a str,
    /// As the request has it.
    pub url: &'a str,
    /// The text body, if the call gave one.
    pub body: Option<&'a str>,
}

type WeightFn = Rc<dyn Fn(&FamilyRequest) -> u32>;
type KeyFn = Rc<dyn Fn(&FamilyRequest) -> Option<String>>;

/// An endpoint family: `Family::new("orders", Match::new(&["POST"], Some(url))).operation(OperationKind::Order)`.
/// Every option left unset is the client's default; [`ClientBuilder::families`](super::ClientBuilder::families)
/// checks them.
#[derive(Clone)]
pub struct Family {
    pub(super) name: String,
    pub(super) matcher: Match,
    pub(super) operation: Option<OperationKind>,
    pub(super) scope: Option<String>,
    pub(super) weight: Option<u32>,
    pub(super) weight_by: Option<WeightFn>,
    pub(super) priority: Option<Priority>,
    pub(super) policy: Option<PolicyLayer>,
    pub(super) key: Option<KeyFn>,
    pub(super) docs: Option<Docs>,
    pub(super) should_retry: Option<ShouldRetry>,
    /// As given (checked by [`check_families`]); `None`: every provider wait header.
    pub(super) provider_wait_headers: Option<Vec<String>>,
    /// Its reads' `staleIfErrorMs` and `coalesce` (default: the client's).
    pub(super) stale_if_error_ms: Option<u64>,
    pub(super) coalesce: Option<bool>,
}

impl Family {
    /// The family `name` of the requests `matcher` takes.
    pub fn new(name: &str, matcher: Match) -> Family {
        let (operation, scope, weight, weight_by, priority, policy, key, docs) = Default::default();
        let (should_retry, provider_wait_headers) = (None, None);
        let name = name.to_owned();
        Family {
            name,
            matcher,
            operation,
            scope,
            weight,
            weight_by,
            priority,
            policy,
            key,
            docs,
            should_retry,
            provider_wait_headers,
            stale_if_error_ms: None,
            coalesce: None,
        }
    }

    /// Its reads' `staleIfErrorMs` (see [`ClientBuilder::stale_if_error_ms`](super::ClientBuilder::stale_if_error_ms)).
    pub fn stale_if_error_ms(mut self, ms: u64) -> Family {
        self.stale_if_error_ms = Some(ms);
        self
    }

    /// Its reads' `coalesce` (see [`ClientBuilder::coalesce`](super::ClientBuilder::coalesce)).
    pub fn coalesce(mut self, coalesce: bool) -> Family {
        self.coalesce = Some(coalesce);
        self
    }

    /// `read`, `idempotent` or `order` (default: from the method).
    pub fn operation(mut self, kind: OperationKind) -> Family {
        self.operation = Some(kind);
        self
    }

    /// The budget scope (default: the request's origin).
    pub fn scope(mut self, scope: &str) -> Family {
        self.scope = Some(scope.to_owned());
        self
    }

    /// Tokens per attempt.
    pub fn weight(mut self, tokens: u32) -> Family {
        (self.weight, self.weight_by) = (Some(tokens), None);
        self
    }

    /// Tokens per attempt, from the request (e.g. more for a ticker of every symbol).
    pub fn weight_by(mut self, weight: impl Fn(&FamilyRequest) -> u32 + 'static) -> Family {
        let weight: WeightFn = Rc::new(weight);
        (self.weight, self.weight_by) = (None, Some(weight));
        self
    }

    /// Who goes first when the budget is short.
    pub fn priority(mut self, priority: Priority) -> Family {
        self.priority = Some(priority);
        self
    }

    /// The policy of the family's calls: a whole [`Policy`] replaces the client's, a
    /// [`PolicyBuilder`](crate::builders::PolicyBuilder) sets its fields over the client's. A
    /// call's own policy fields are merged over it field by field (default: the client's policy).
    pub fn policy(mut self, policy: impl Into<PolicyLayer>) -> Family {
        self.policy = Some(policy.into());
        self
    }

    /// The family's veto over its calls' retries (see [`ShouldRetry`]); a call's own wins over it
    /// (default: the client's).
    pub fn should_retry<F, Fut>(mut self, decide: F) -> Family
    where
        F: Fn(RetryContext) -> Fut + 'static,
        Fut: Future<Output = Result<bool, String>> + 'static,
    {
        self.should_retry = Some(ShouldRetry::new(decide));
        self
    }

    /// Narrows the provider wait headers its responses may set (any case): of `Retry-After`,
    /// `RateLimit-Reset`, `X-RateLimit-Reset`, `X-RateLimit-Retry-After` and `X-Rate-Limit-Reset`
    /// (the default: all), only these — e.g. `&["Retry-After"]` where the provider says to trust it
    /// alone. [`ClientBuilder::families`](super::ClientBuilder::families) refuses an empty list or
    /// a header the core does not read.
    pub fn provider_wait_headers(mut self, names: &[&str]) -> Family {
        self.provider_wait_headers = Some(names.iter().map(|n| n.to_ascii_lowercase()).collect());
        self
    }

    /// Finds the operation's identity (e.g. the client order id in the body), when the call gives no key.
    pub fn key(mut self, key: impl Fn(&FamilyRequest) -> Option<String> + 'static) -> Family {
        self.key = Some(Rc::new(key));
        self
    }

    /// The provider's documentation: its page, the date it was checked, the statuses it calls final.
    pub fn docs(mut self, docs: Docs) -> Family {
        self.docs = Some(docs);
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The provider wait headers its responses are read for.
    pub(super) fn waits(&self) -> Waits {
        let Some(names) = &self.provider_wait_headers else { return Waits::default() };
        let named = |name: &str| names.iter().any(|n| n == name);
        let resets = RESET_HEADER_NAMES.iter().enumerate().filter(|(_, name)| named(name));
        Waits { retry_after: named("retry-after"), resets: resets.fold(0, |mask, (i, _)| mask | 1 << i) }
    }

    /// Its policy over the client's (the client's if that does not hold).
    pub(super) fn policy_over(&self, client: &Policy) -> Policy {
        layered(client, self.policy.as_slice()).unwrap_or_else(|_| client.clone())
    }

    /// What the worksheet is told of it.
    pub(super) fn declared(&self) -> Declared<'_> {
        let (scope, docs) = (self.scope.as_deref(), self.docs.as_ref());
        Declared { name: &self.name, matcher: &self.matcher, scope, weight_by_request: self.weight_by.is_some(), docs }
    }

    /// Its options under the call's own `given` (which win field by field) for `request`; its
    /// policy is laid under the call's when the call is checked. Its functions run here, only
    /// where the call leaves their field unset.
    pub(super) fn under(&self, given: CallOptions, request: &FamilyRequest) -> Result<CallOptions, JsValue> {
        let context = || text::join(&["fetch: family \"", &self.name, "\""]);
        let weight = match (&given.weight, &self.weight_by) {
            (None, Some(weight)) => {
                let tokens = weight(request);
                check_weight(tokens).map_err(|e| invalid(&context(), &e))?;
                Some(tokens)
            }
            _ => self.weight,
        };
        let key = match (&given.key, &self.key) {
            (None, Some(key)) => key(request),
            _ => None,
        };
        Ok(CallOptions {
            operation: given.operation.or(self.operation),
            priority: given.priority.or(self.priority),
            key: given.key.or(key),
            scope: given.scope.or_else(|| self.scope.clone()),
            weight: given.weight.or(weight),
            should_retry: given.should_retry.or_else(|| self.should_retry.clone()),
            stale_if_error_ms: given.stale_if_error_ms.or(self.stale_if_error_ms),
            coalesce: given.coalesce.or(self.coalesce),
            ..given
        })
    }
}

/// The family's own fields, checked: an error names the field (`weight`, `docs.checked`, …).
fn check(family: &Family) -> Result<(), InvalidOption> {
    if let Match::Request { methods, .. } = &family.matcher {
        if methods.iter().any(String::is_empty) {
            return Err(InvalidOption::new("match.method", Problem::Empty));
        }
    }
    if let Some(scope) = &family.scope {
        name("scope", &Loose::Text(scope.clone()))?;
    }
    family.weight.map_or(Ok(()), check_weight)?;
    if family.provider_wait_headers.as_ref().is_some_and(Vec::is_empty) {
        return Err(InvalidOption::new("providerWaitHeaders", Problem::Empty));
    }
    let Some(docs) = &family.docs else { return Ok(()) };
    if docs.checked.as_deref().is_some_and(|c| iso_day(c).is_none()) {
        let problem = Problem::WrongType { expected: "an ISO date (YYYY-MM-DD)", found: "another string" };
        return Err(InvalidOption::new("docs.checked", problem));
    }
    if docs.final_statuses.iter().any(|s| !(100..=599).contains(s)) {
        return Err(InvalidOption::new("docs.final", Problem::NotAStatus));
    }
    Ok(())
}

/// The `families` of a client, checked in order: the first error, named `families[1] (orders): …`.
pub(super) fn check_families(families: &[Family]) -> Result<(), JsValue> {
    for (i, family) in families.iter().enumerate() {
        let at = text::join(&["families[", &text::number(i as u64), "]"]);
        if family.name.is_empty() {
            return Err(invalid(&at, &InvalidOption::new("name", Problem::Empty)));
        }
        let named = text::join(&[&at, " (", &family.name, ")"]);
        if families[..i].iter().any(|earlier| earlier.name == family.name) {
            return Err(type_error(&text::join(&[
                &named,
                ": name \"",
                &family.name,
                "\" is taken by an earlier family",
            ])));
        }
        if matches!(&family.matcher, Match::Request { methods, url: None } if methods.is_empty()) {
            return Err(type_error(&text::join(&[&named, ": match needs a method or a url"])));
        }
        check(family).map_err(|e| invalid(&named, &e))?;
        let read = |name: &String| name == "retry-after" || RESET_HEADER_NAMES.contains(&name.as_str());
        if let Some(unread) = family.provider_wait_headers.iter().flatten().find(|name| !read(name)) {
            let known = text::join(&["retry-after, ", &RESET_HEADER_NAMES.join(", ")]);
            return Err(type_error(&text::join(&[
                &named,
                ": providerWaitHeaders: \"",
                unread,
                "\" is not a header retryline reads as a provider wait (",
                &known,
                ")",
            ])));
        }
    }
    Ok(())
}
