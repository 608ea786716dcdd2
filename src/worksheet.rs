//! What a configuration decides, as a risk reviewer reads it: for one endpoint family (or the
//! client's defaults), the worksheet row the reference article asks for, computed from the policy
//! and the budget the core will actually run — not from what the caller meant to write.

use crate::backoff;
use crate::budget::{Budget, Priority};
use crate::classify::{classify, Observed, OperationKind};
use crate::json::{Object, ToJson};
use crate::policy::Policy;
use crate::reason::Reason;
use crate::retry_after::RESET_HEADER_NAMES;

/// One worksheet row's decisions.
pub struct Plan<'a> {
    /// The merged policy (client ← family ← call).
    pub policy: &'a Policy,
    /// The side-effect class.
    pub kind: OperationKind,
    /// Its budget priority.
    pub priority: Priority,
    /// Where its provider limits apply.
    pub scope: &'a str,
    /// Tokens per attempt.
    pub weight: u32,
    /// The scope's bucket: capacity and refill (milli-tokens a second), if it has one.
    pub bucket: Option<(u64, u64)>,
}

impl<'a> Plan<'a> {
    /// The plan of `policy` for `kind` in `scope` of `budget`.
    pub fn of(
        policy: &'a Policy,
        kind: OperationKind,
        priority: Priority,
        scope: &'a str,
        weight: u32,
        budget: &Budget,
    ) -> Plan<'a> {
        let limits = budget.limits(scope);
        let bucket = limits.capacity.map(|capacity| (capacity, limits.refill_milli));
        Plan { policy, kind, priority, scope, weight, bucket }
    }

    /// Each retry's window, `min(cap, base × 2ⁿ)`, up to the attempt ceiling.
    pub fn windows(&self) -> Vec<u64> {
        let p = self.policy;
        (0..p.max_attempts().saturating_sub(1))
            .map(|n| backoff::window(p.base_delay_ms(), p.max_delay_ms(), n))
            .collect()
    }

    /// The longest schedule: every attempt timing out and every wait its whole window, ms.
    pub fn longest_ms(&self) -> u64 {
        let attempts = u64::from(self.policy.max_attempts());
        let waits: u64 = self.windows().iter().fold(0, |sum, w| sum.saturating_add(*w));
        attempts.saturating_mul(self.policy.attempt_timeout_ms()).saturating_add(waits)
    }

    /// How many attempts the deadline admits on the longest schedule (the gate's own arithmetic).
    pub fn attempts_that_fit(&self) -> u32 {
        let (p, mut at, mut n) = (self.policy, 0u64, 0u32);
        let windows = self.windows();
        while n < p.max_attempts() {
            let wait = if n == 0 { 0 } else { windows.get(n as usize - 1).copied().unwrap_or(0) };
            let start = at.saturating_add(wait);
            if n > 0 && start.saturating_add(p.admission_ms()) > p.deadline_ms() {
                break;
            }
            at = start.saturating_add(p.attempt_timeout_ms());
            n += 1;
        }
        n
    }

    /// The statuses (the common ones, and every one `retryOn` names) whose answer ends in one of
    /// `reasons` for this kind, in order.
    fn statuses(&self, reasons: &[Reason]) -> Vec<u16> {
        const COMMON: [u16; 14] = [400, 401, 403, 404, 408, 409, 418, 422, 425, 429, 500, 502, 503, 504];
        let retry_on = self.policy.retry_on();
        // A scan, not a sort: sorting brought 4 KB of wasm.
        (100u16..=599)
            .filter(|s| COMMON.contains(s) || retry_on.contains(s))
            .filter(|&s| reasons.contains(&classify(self.kind, Observed::Response, s, retry_on)))
            .collect()
    }
}

impl ToJson for Plan<'_> {
    fn write_json(&self, out: &mut String) {
        let timeout = classify(self.kind, Observed::Timeout, 0, self.policy.retry_on());
        let waits: Vec<&str> = core::iter::once("retry-after").chain(RESET_HEADER_NAMES).collect();
        let mut o = Object::new(out);
        o.field("operation", &self.kind)
            .field("priority", &self.priority)
            .field("scope", &self.scope)
            .field("weight", &self.weight)
            .field("policy", self.policy)
            .field("windowsMs", &self.windows())
            .field("longestScheduleMs", &self.longest_ms())
            .field("attemptsThatFit", &self.attempts_that_fit())
            .field("retried", &self.statuses(&[Reason::Retryable, Reason::Throttled]))
            .field("unknownOutcome", &self.statuses(&[Reason::UnknownOutcome]))
            .field("banned", &self.statuses(&[Reason::Banned]))
            .field("final", &self.statuses(&[Reason::NonRetryable]))
            .field("timeouts", &timeout)
            .field("providerWaitHeaders", &waits);
        match self.bucket {
            Some((capacity, refill)) => o.field("bucket", &Bucket(capacity, refill)),
            None => o.field("bucket", &None::<u64>),
        };
        o.end();
    }
}

struct Bucket(u64, u64);

impl ToJson for Bucket {
    fn write_json(&self, out: &mut String) {
        // Refill in whole tokens where it is whole: no float formatting in the wasm build.
        Object::new(out).field("capacity", &self.0).field("refillMilliPerSecond", &self.1).end();
    }
}

impl Plan<'_> {
    /// The statuses retried (retryable, or throttled: 429), in order.
    pub fn retried(&self) -> Vec<u16> {
        self.statuses(&[Reason::Retryable, Reason::Throttled])
    }

    /// The statuses that leave this kind's outcome unknown (an order's 5xx): reconciled, never resent.
    pub fn unknown_outcome(&self) -> Vec<u16> {
        self.statuses(&[Reason::UnknownOutcome])
    }

    /// The statuses that are a ban on the scope (418).
    pub fn banned(&self) -> Vec<u16> {
        self.statuses(&[Reason::Banned])
    }

    /// The statuses that end the operation as they are.
    pub fn final_statuses(&self) -> Vec<u16> {
        self.statuses(&[Reason::NonRetryable])
    }

    /// What an attempt timeout means for this kind: retryable, or an unknown outcome.
    pub fn timeouts(&self) -> Reason {
        classify(self.kind, Observed::Timeout, 0, self.policy.retry_on())
    }

    /// The provider wait headers the core honours (lower case), Retry-After first.
    pub fn provider_wait_headers(&self) -> Vec<&'static str> {
        core::iter::once("retry-after").chain(RESET_HEADER_NAMES).collect()
    }
}

mod markdown;
mod pattern;
mod row;

pub use markdown::Worksheet;
pub use pattern::{Match, UrlPattern};
pub use row::{iso_day, Declared, Docs, Row, TokenBucket, Weight};
