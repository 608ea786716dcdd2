//! The retry policy: how long to wait, and when to stop.
//!
//! A [`Policy`] is always valid: it is built from options by [`Policy::with_options`]
//! (or deserialized, which goes through the same checks), and every check names the
//! field it rejects.
//!
//! # Default
//! | field | default | meaning |
//! |---|---|---|
//! | `baseDelayMs` | 500 | window of the first retry |
//! | `maxDelayMs` | 4000 | cap on every window |
//! | `jitter` | `"full"` | how a delay is drawn from its window |
//! | `maxAttempts` | 3 | total requests, including the initial one |
//! | `attemptTimeoutMs` | 10000; under a shorter `deadlineMs`, `deadlineMs / maxAttempts` | bound on one request: connect, headers and body (one you set must fit `deadlineMs`) |
//! | `deadlineMs` | 30000 | the operation's expiry, measured from its start |
//! | `retryOn` | 408, 429, 500, 502, 503, 504 | statuses worth another attempt |
//! | `retryAfterSpreadMs` | 0 | extra random spread after a provider's boundary |
//! | `minAttemptMs` | `attemptTimeoutMs` | least time before the deadline an attempt still starts with, its timeout cut to the time left |
//! | `maxHedges` | 0 (off) | hedges of a read or idempotent attempt whose response is late, at most 4 ([`crate::hedging`]) |
//! | `hedgeAfterMs` | `"p95"` | how late: a fixed delay, or the scope's observed 95th-percentile response time |

use serde::{Deserialize, Deserializer, Serialize};

use crate::hedging::{read_max_hedges, HedgeAfter};
use crate::input::read::{millis, text, whole};
use crate::input::{At, Invalid, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};

/// How a delay is drawn from its backoff window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Jitter {
    /// Uniform over `[0, window]`: the fewest synchronized retries.
    #[default]
    Full,
    /// `window/2` plus uniform over `[0, window/2]`: never retries at once.
    Equal,
    /// `min(cap, uniform[base, previous × 3])`: each delay grows from the last one.
    Decorrelated,
    /// Exactly the window, no randomness.
    None,
}

impl Jitter {
    const NAMES: &'static str = "\"full\", \"equal\", \"decorrelated\", \"none\"";

    fn from_name(name: &str) -> Option<Jitter> {
        crate::json::position(Self::NAME_LIST, name).and_then(|at| Self::ALL.get(at).copied())
    }
}

/// The most attempts one operation may make; a guard against typos such as `1e9`.
pub const MAX_ATTEMPTS: u64 = 10_000;

/// A validated retry policy. See the module documentation for the defaults.
#[derive(Clone, Debug, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    base_delay_ms: u64,
    max_delay_ms: u64,
    jitter: Jitter,
    max_attempts: u32,
    /// As set, or the default (cut to a share of a shorter deadline).
    attempt_timeout_ms: u64,
    /// The default while the caller has not set `attemptTimeoutMs` (it gives way to a shorter
    /// deadline); `None` once set, and a set timeout that cannot fit the deadline is an error.
    #[serde(skip)]
    attempt_timeout_default: Option<u64>,
    deadline_ms: u64,
    retry_on: Vec<u16>,
    retry_after_spread_ms: u64,
    /// Set: an attempt starts while at least this much time is left, with its timeout cut to
    /// the time left (so a deadline no longer than one attempt timeout still allows retries).
    #[serde(skip_serializing_if = "Option::is_none")]
    min_attempt_ms: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    max_hedges: u32,
    #[serde(rename = "hedgeAfterMs", skip_serializing_if = "Option::is_none")]
    hedge_after: Option<HedgeAfter>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Equal when they decide alike now: whether the attempt timeout was set or defaulted is not compared.
impl PartialEq for Policy {
    fn eq(&self, other: &Policy) -> bool {
        let key = |p: &Policy| {
            (p.base_delay_ms, p.max_delay_ms, p.jitter, p.max_attempts, p.attempt_timeout_ms, p.deadline_ms)
        };
        key(self) == key(other)
            && self.retry_on == other.retry_on
            && self.retry_after_spread_ms == other.retry_after_spread_ms
            && self.min_attempt_ms == other.min_attempt_ms
            && (self.max_hedges, self.hedge_after) == (other.max_hedges, other.hedge_after)
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            base_delay_ms: 500,
            max_delay_ms: 4000,
            jitter: Jitter::Full,
            max_attempts: 3,
            attempt_timeout_ms: 10_000,
            attempt_timeout_default: Some(10_000),
            deadline_ms: 30_000,
            retry_on: vec![408, 429, 500, 502, 503, 504],
            retry_after_spread_ms: 0,
            min_attempt_ms: None,
            max_hedges: 0,
            hedge_after: None,
        }
    }
}

impl Policy {
    /// A stream's reconnect policy before its options: windows from 1 s up to 30 s with equal jitter
    /// (each wait at least half its window, so no client comes back twice in one window and a storm's
    /// recovery stays bounded), 20 connection attempts and 5 minutes per outage, a 10 s connect timeout.
    pub fn for_streams() -> Policy {
        Policy {
            base_delay_ms: 1000,
            max_delay_ms: 30_000,
            jitter: Jitter::Equal,
            max_attempts: 20,
            deadline_ms: 300_000,
            ..Policy::default()
        }
    }

    /// The window of the first retry, ms; each later window doubles, up to `max_delay_ms`.
    pub fn base_delay_ms(&self) -> u64 {
        self.base_delay_ms
    }
    /// The cap on every backoff window, ms.
    pub fn max_delay_ms(&self) -> u64 {
        self.max_delay_ms
    }
    /// How each delay is drawn from its window.
    pub fn jitter(&self) -> Jitter {
        self.jitter
    }
    /// How many hedges a late attempt of a read may have (0: none).
    pub fn max_hedges(&self) -> u32 {
        self.max_hedges
    }
    /// When a hedge goes: as set, or the scope's 95th percentile.
    pub fn hedge_after(&self) -> HedgeAfter {
        self.hedge_after.unwrap_or_default()
    }
    /// The most requests the operation sends, the initial one included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
    /// How long one request may take (connect, headers and body), ms. The default (10 s) gives way
    /// to a shorter deadline: each attempt's equal share of it. One the caller set is kept (and must fit).
    pub fn attempt_timeout_ms(&self) -> u64 {
        self.attempt_timeout_ms
    }
    /// The operation's time limit, ms from its start: the deadline is fixed at `now + deadline_ms`.
    pub fn deadline_ms(&self) -> u64 {
        self.deadline_ms
    }
    /// Statuses worth another attempt; for an order only a listed 429 is retried, others are unknown outcomes.
    pub fn retry_on(&self) -> &[u16] {
        &self.retry_on
    }
    /// The most random extra wait after a provider's minimum, ms, so that clients held to one
    /// boundary do not all come back at once.
    pub fn retry_after_spread_ms(&self) -> u64 {
        self.retry_after_spread_ms
    }
    /// `minAttemptMs` as given (`None`: the whole attempt timeout).
    pub fn min_attempt_ms(&self) -> Option<u64> {
        self.min_attempt_ms
    }
    /// The time an attempt needs before the deadline to be admitted: the whole attempt
    /// timeout, or `minAttemptMs` (at most the attempt timeout) when the policy sets one.
    pub fn admission_ms(&self) -> u64 {
        self.min_attempt_ms.map_or(self.attempt_timeout_ms, |m| m.min(self.attempt_timeout_ms))
    }

    /// This policy with the given fields replaced (`options` is an object of policy fields).
    ///
    /// Every field is checked, then the combination: `maxDelayMs ≥ baseDelayMs` and
    /// `attemptTimeoutMs ≤ deadlineMs`. Absent (`null`/`undefined`) fields keep their value.
    ///
    /// Errors name the field by its path from the caller's options, e.g. `policy.maxAttempts`.
    pub fn with_options(&self, options: &Loose) -> Result<Policy, InvalidOption> {
        self.read_over(options).map_err(|e| *e)
    }

    /// [`with_options`](Self::with_options), with an [`Invalid`] error.
    pub(crate) fn read_over(&self, options: &Loose) -> Result<Policy, Invalid> {
        let mut p = self.clone();
        // Errors come out of one place, and the policy is moved once: the wasm build's code is
        // mostly such moves otherwise.
        match p.apply(options) {
            Ok(()) => Ok(p),
            Err(e) => Err(e.at("policy")),
        }
    }

    fn apply(&mut self, options: &Loose) -> Result<(), Invalid> {
        // The caller names the object itself (`policy`); its fields are named relative to it.
        for (field, value) in options.fields("")? {
            if !value.is_absent() {
                self.set(field, value)?;
            }
        }
        if let Some(default) = self.attempt_timeout_default {
            // A default that does not fit the deadline becomes each attempt's equal share of it,
            // so that a deadline shorter than the default still leaves room for the retries.
            self.attempt_timeout_ms = match default <= self.deadline_ms {
                true => default,
                false => (self.deadline_ms / u64::from(self.max_attempts)).max(1),
            };
        }
        self.check()
    }

    /// Sets the field `f` from its option value.
    fn set(&mut self, f: &str, value: &Loose) -> Result<(), Invalid> {
        let ms = match f {
            "baseDelayMs" => &mut self.base_delay_ms,
            "maxDelayMs" => &mut self.max_delay_ms,
            "attemptTimeoutMs" => {
                self.attempt_timeout_default = None;
                &mut self.attempt_timeout_ms
            }
            "deadlineMs" => &mut self.deadline_ms,
            "retryAfterSpreadMs" => &mut self.retry_after_spread_ms,
            "minAttemptMs" => {
                self.min_attempt_ms = Some(positive_millis(f, value)?);
                return Ok(());
            }
            "maxHedges" => {
                self.max_hedges = read_max_hedges(f, value)?;
                return Ok(());
            }
            "hedgeAfterMs" => {
                self.hedge_after = Some(HedgeAfter::read(f, value)?);
                return Ok(());
            }
            "maxAttempts" => {
                self.max_attempts = whole(f, value, 1, MAX_ATTEMPTS)? as u32;
                return Ok(());
            }
            "jitter" => {
                self.jitter = Jitter::from_name(text(f, value)?)
                    .ok_or_else(|| InvalidOption::boxed(f, Problem::UnknownName { allowed: Jitter::NAMES }))?;
                return Ok(());
            }
            "retryOn" => {
                self.retry_on = statuses(f, value)?;
                return Ok(());
            }
            _ => return Err(InvalidOption::boxed(f, Problem::UnknownField)),
        };
        *ms = millis(f, value)?;
        Ok(())
    }

    /// This policy under a call's own deadline (`field` names the option): an attempt timeout
    /// longer than the deadline is cut to it, so the call makes one attempt at most.
    pub fn with_call_deadline(&self, field: &str, deadline_ms: u64) -> Result<Policy, InvalidOption> {
        if deadline_ms == 0 {
            return Err(InvalidOption::new(field, Problem::TooSmall { min: 1 }));
        }
        let mut p = self.clone();
        p.deadline_ms = deadline_ms;
        p.attempt_timeout_ms = p.attempt_timeout_ms.min(deadline_ms);
        Ok(p)
    }

    /// The defaults of reconciliation queries ([`crate::reconcile::reconciliation_policy`]): 5
    /// queries, each bounded by 5 s, within 60 s, over windows of 1 s doubling up to 8 s.
    pub fn reconciliation_default() -> Policy {
        Policy {
            max_attempts: 5,
            base_delay_ms: 1000,
            max_delay_ms: 8000,
            attempt_timeout_ms: 5000,
            attempt_timeout_default: Some(5000),
            deadline_ms: 60_000,
            ..Policy::default()
        }
    }

    /// Builds a policy from options over the defaults.
    pub fn from_options(options: &Loose) -> Result<Policy, InvalidOption> {
        Policy::default().with_options(options)
    }

    /// [`from_options`](Self::from_options), with an [`Invalid`] error.
    pub(crate) fn read(options: &Loose) -> Result<Policy, Invalid> {
        Policy::default().read_over(options)
    }

    /// The checks that involve more than one field.
    fn check(&self) -> Result<(), Invalid> {
        if self.max_delay_ms < self.base_delay_ms {
            return Err(InvalidOption::boxed("maxDelayMs", Problem::BelowBase));
        }
        let min_attempt_fits = self.min_attempt_ms.map_or(true, |m| m <= self.deadline_ms);
        if self.admission_ms() > self.deadline_ms || !min_attempt_fits {
            let field = if self.min_attempt_ms.is_some() { "minAttemptMs" } else { "attemptTimeoutMs" };
            return Err(InvalidOption::boxed(field, Problem::LongerThanDeadline));
        }
        if self.attempt_timeout_ms == 0 {
            return Err(InvalidOption::boxed("attemptTimeoutMs", Problem::TooSmall { min: 1 }));
        }
        Ok(())
    }
}

/// Milliseconds, at least 1.
fn positive_millis(field: &str, value: &Loose) -> Result<u64, Invalid> {
    match millis(field, value)? {
        0 => Err(InvalidOption::boxed(field, Problem::TooSmall { min: 1 })),
        ms => Ok(ms),
    }
}

fn statuses(field: &str, value: &Loose) -> Result<Vec<u16>, Invalid> {
    let Loose::List(items) = value else {
        return Err(InvalidOption::boxed(field, Problem::WrongType { expected: "an array", found: value.kind() }));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let code = whole(field, item, 0, MAX_SAFE_INTEGER).map_err(|e| match e.problem {
            Problem::WrongType { .. } => e,
            _ => InvalidOption::boxed(field, Problem::NotAStatus),
        })?;
        if !(100..=599).contains(&code) {
            return Err(InvalidOption::boxed(field, Problem::NotAStatus));
        }
        if (200..=399).contains(&code) {
            return Err(InvalidOption::boxed(field, Problem::SuccessStatus { status: code as u16 }));
        }
        out.push(code as u16);
    }
    Ok(out)
}

/// Deserializing a policy applies the same checks as [`Policy::from_options`].
impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let options = Loose::deserialize(deserializer)?;
        Policy::from_options(&options).map_err(serde::de::Error::custom)
    }
}
