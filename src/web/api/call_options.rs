//! [`CallOptions`]: what one call asks beyond its client's defaults, checked as the JavaScript
//! options are before anything is sent.

use web_sys::AbortSignal;

use super::policy_layer::{layered, PolicyLayer};
use super::should_retry::ShouldRetry;
use crate::budget::Priority;
use crate::builders::PolicyBuilder;
use crate::call;
use crate::classify::OperationKind;
use crate::input::{name, InvalidOption, Loose, Problem};
use crate::policy::Policy;
use crate::web::executor::Predicate;
use crate::web::platform::response::Waits;

/// What a call asks beyond the client's defaults, already checked: the core's spec, and its own.
pub struct CallSpec {
    /// Its policy is its family's and its own merged over the client's.
    pub core: call::CallSpec,
    pub signal: Option<AbortSignal>,
    /// Its own predicate, or its family's (default: the client's).
    pub should_retry: Option<Predicate>,
    /// The provider wait headers its responses are read for.
    pub waits: Waits,
}

/// What one call asks beyond the client's defaults; `CallOptions::default()` asks nothing.
///
/// # Default
/// The client's policy (or its family's, merged over it), the operation from the method, no
/// key, the URL's origin as scope, weight 1, the client's `read_body` and `should_retry`.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    /// Replaces the policy this call would run under (the client's, or its family's).
    pub policy: Option<Policy>,
    /// Sets these fields of the policy for this call, merged field by field over its family's
    /// (or the client's, or [`policy`](Self::policy) if given), as JavaScript's `policy` option is.
    pub policy_fields: Option<PolicyBuilder>,
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
    /// Aborting it ends the call with [`Reason::Aborted`](crate::Reason::Aborted).
    pub signal: Option<AbortSignal>,
    /// Read the body inside the attempt timeout (default: the client's choice).
    pub read_body: Option<bool>,
    /// This call's veto over its retries (default: its family's, else the client's).
    pub should_retry: Option<ShouldRetry>,
    /// This read's `staleIfErrorMs` (default: the client's; see
    /// [`ClientBuilder::stale_if_error_ms`](super::ClientBuilder::stale_if_error_ms)).
    pub stale_if_error_ms: Option<u64>,
    /// This read's `coalesce` (default: the client's; see
    /// [`ClientBuilder::coalesce`](super::ClientBuilder::coalesce)).
    pub coalesce: Option<bool>,
}

impl CallOptions {
    /// An order under `key`, its client order id.
    pub fn order(key: &str) -> CallOptions {
        CallOptions { operation: Some(OperationKind::Order), key: Some(key.to_owned()), ..CallOptions::default() }
    }

    /// Checked as the JavaScript options are, into what the executor runs: the policy is its own
    /// over its family's (`family`) over the client's, field by field.
    pub(super) fn checked(self, client: &Policy, family: Option<&PolicyLayer>) -> Result<CallSpec, InvalidOption> {
        let text = |field: &str, value: Option<String>| value.map(|v| name(field, &Loose::Text(v))).transpose();
        let weight = self.weight.unwrap_or(1);
        check_weight(weight)?;
        let own = [self.policy.map(PolicyLayer::Whole), self.policy_fields.map(PolicyLayer::Fields)];
        let layers: Vec<PolicyLayer> = family.cloned().into_iter().chain(own.into_iter().flatten()).collect();
        let mut policy = layered(client, &layers)?;
        if let Some(ms) = self.deadline_ms {
            policy = policy.with_call_deadline("deadlineMs", ms)?;
        }
        let core = call::CallSpec {
            policy,
            operation: self.operation,
            priority: self.priority,
            key: text("key", self.key)?,
            scope: text("scope", self.scope)?,
            weight,
            read_body: self.read_body,
            stale_if_error_ms: self.stale_if_error_ms,
            coalesce: self.coalesce,
        };
        let should_retry = self.should_retry.map(|s| s.0);
        Ok(CallSpec { core, signal: self.signal, should_retry, waits: Waits::default() })
    }
}

/// A weight within 1..=[`crate::budget::MAX_WEIGHT`], as the JavaScript `weight` option (a family's too).
pub(super) fn check_weight(weight: u32) -> Result<(), InvalidOption> {
    let max = crate::budget::MAX_WEIGHT;
    if (1..=max).contains(&weight) {
        return Ok(());
    }
    let problem = if weight == 0 { Problem::TooSmall { min: 1 } } else { Problem::TooLarge { max: u64::from(max) } };
    Err(InvalidOption::new("weight", problem))
}
