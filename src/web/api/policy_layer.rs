//! [`PolicyLayer`]: a policy as a family or a call gives it — whole, or some of its fields — and
//! the policy a call runs under: the client's, then its family's, then its own, merged field by
//! field as JavaScript merges `policy` objects, and checked once, merged.

use crate::builders::PolicyBuilder;
use crate::input::InvalidOption;
use crate::policy::Policy;

/// A policy laid over the one under it.
#[derive(Clone, Debug)]
pub enum PolicyLayer {
    /// Replaces the policy under it: every field is given.
    Whole(Policy),
    /// Sets these fields over the policy under it; the fields left unset keep its values.
    Fields(PolicyBuilder),
}

impl From<Policy> for PolicyLayer {
    fn from(policy: Policy) -> PolicyLayer {
        PolicyLayer::Whole(policy)
    }
}

impl From<PolicyBuilder> for PolicyLayer {
    fn from(fields: PolicyBuilder) -> PolicyLayer {
        PolicyLayer::Fields(fields)
    }
}

/// `layers`, in order, over `client`'s policy; an error names the field (`policy.maxDelayMs`).
pub(super) fn layered(client: &Policy, layers: &[PolicyLayer]) -> Result<Policy, InvalidOption> {
    let mut base = client;
    let mut fields: Option<PolicyBuilder> = None;
    for layer in layers {
        match layer {
            PolicyLayer::Whole(policy) => (base, fields) = (policy, None),
            PolicyLayer::Fields(more) => {
                fields = Some(match fields.take() {
                    Some(under) => under.merged(more.clone()),
                    None => more.clone(),
                })
            }
        }
    }
    match fields {
        Some(fields) => fields.build_over(base),
        None => Ok(base.clone()),
    }
}
