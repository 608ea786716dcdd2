//! Typed builders for [`Policy`] and [`BudgetConfig`], for Rust callers: each setter is a field of
//! the JavaScript options, and `build` runs the very checks the JavaScript API runs, naming the
//! field (`maxDelayMs` below `baseDelayMs`, a timeout longer than the deadline, …).
//!
//! ```
//! use retryline::{Jitter, Policy};
//! let policy = Policy::builder().max_attempts(5).base_delay_ms(200).jitter(Jitter::Equal).deadline_ms(8_000);
//! // The 10 s default attempt timeout gives way to the shorter deadline: a fifth of it each…
//! assert_eq!(policy.clone().build()?.attempt_timeout_ms(), 1_600);
//! // …but a timeout you set must fit in it.
//! assert!(policy.clone().attempt_timeout_ms(9_000).build().is_err());
//! let policy = policy.attempt_timeout_ms(2_000).build()?;
//! assert_eq!(policy.max_attempts(), 5);
//! # Ok::<(), retryline::InvalidOption>(())
//! ```

use crate::budget::BudgetConfig;
use crate::input::{InvalidOption, Loose};
use crate::policy::{Jitter, Policy};

/// Options gathered as the JavaScript API would see them.
#[derive(Clone, Debug, Default)]
struct Fields(Vec<(String, Loose)>);

impl Fields {
    fn set(mut self, name: &str, value: Loose) -> Self {
        self.0.retain(|(k, _)| k != name);
        self.0.push((name.to_owned(), value));
        self
    }

    fn number(self, name: &str, value: u64) -> Self {
        self.set(name, Loose::Number(value as f64))
    }

    fn into_loose(self) -> Loose {
        Loose::Map(self.0)
    }
}

/// Builds a [`Policy`] over the defaults (see [`crate::policy`]).
#[derive(Clone, Debug, Default)]
pub struct PolicyBuilder(Fields);

impl Policy {
    /// A builder over the defaults: 3 attempts, 500 ms base, 4 s cap, full jitter, 10 s per
    /// attempt, 30 s deadline, retried on 408, 429, 500, 502, 503, 504.
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder::default()
    }
}

impl PolicyBuilder {
    /// Attempts in all, the first call included (1–100).
    pub fn max_attempts(self, n: u32) -> Self {
        PolicyBuilder(self.0.number("maxAttempts", u64::from(n)))
    }
    /// The first backoff window, ms.
    pub fn base_delay_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("baseDelayMs", ms))
    }
    /// The largest backoff window, ms (at least the base).
    pub fn max_delay_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("maxDelayMs", ms))
    }
    /// How a delay is drawn from its window.
    pub fn jitter(self, jitter: Jitter) -> Self {
        PolicyBuilder(self.0.set("jitter", Loose::Text(jitter.name().to_owned())))
    }
    /// Each attempt's timeout, ms.
    pub fn attempt_timeout_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("attemptTimeoutMs", ms))
    }
    /// The whole operation's deadline from its start, ms.
    pub fn deadline_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("deadlineMs", ms))
    }
    /// The statuses retried (besides network errors and timeouts).
    pub fn retry_on(self, statuses: &[u16]) -> Self {
        let list = statuses.iter().map(|s| Loose::Number(f64::from(*s))).collect();
        PolicyBuilder(self.0.set("retryOn", Loose::List(list)))
    }
    /// Spread added after a provider's `Retry-After`, ms, so that waiting clients do not return at once.
    pub fn retry_after_spread_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("retryAfterSpreadMs", ms))
    }
    /// An attempt still starts while at least this much time is left, its timeout cut to it.
    pub fn min_attempt_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("minAttemptMs", ms))
    }
    /// Hedges of a late read or idempotent call, at most `n` (0–4) per call ([`crate::hedging`]).
    pub fn max_hedges(self, n: u32) -> Self {
        PolicyBuilder(self.0.number("maxHedges", u64::from(n)))
    }
    /// A hedge goes once the answer is this late (default: the scope's 95th percentile).
    pub fn hedge_after_ms(self, ms: u64) -> Self {
        PolicyBuilder(self.0.number("hedgeAfterMs", ms))
    }
    /// The policy, or the first field that is wrong.
    pub fn build(self) -> Result<Policy, InvalidOption> {
        Policy::from_options(&self.0.into_loose())
    }
    /// These fields over `base`, the ones left unset keeping base's: how a family's or a call's
    /// policy is merged field by field, as JavaScript merges `policy` objects.
    pub fn build_over(self, base: &Policy) -> Result<Policy, InvalidOption> {
        base.with_options(&self.0.into_loose())
    }
    /// These fields with `later`'s set over them (`later` wins a field both set).
    pub fn merged(self, later: PolicyBuilder) -> Self {
        let fields = later.0 .0.into_iter().fold(self.0, |fields, (name, value)| fields.set(&name, value));
        PolicyBuilder(fields)
    }
}

/// Builds a [`BudgetConfig`]: the limits of every scope (per-scope limits: [`BudgetConfig::from_options`]).
#[derive(Clone, Debug, Default)]
pub struct BudgetBuilder(Fields);

impl BudgetConfig {
    /// A builder: no token limit and the default retry quota until told otherwise.
    pub fn builder() -> BudgetBuilder {
        BudgetBuilder::default()
    }
}

impl BudgetBuilder {
    /// Tokens in each scope's bucket.
    pub fn capacity(self, tokens: u64) -> Self {
        BudgetBuilder(self.0.number("capacity", tokens))
    }
    /// Tokens added back each second (a fraction allowed).
    pub fn refill_per_second(self, rate: f64) -> Self {
        BudgetBuilder(self.0.set("refillPerSecond", Loose::Number(rate)))
    }
    /// Share of each bucket kept for higher priorities, in `[0, 1)`.
    pub fn reserve(self, share: f64) -> Self {
        BudgetBuilder(self.0.set("reserve", Loose::Number(share)))
    }
    /// The response header carrying the provider's own count of weight used (e.g. `X-MBX-USED-WEIGHT-1M`).
    pub fn used_weight_header(self, name: &str) -> Self {
        BudgetBuilder(self.0.set("usedWeightHeader", Loose::Text(name.to_owned())))
    }
    /// A circuit breaker per scope with its defaults ([`crate::budget::breaker::BreakerConfig`]);
    /// its fields through [`BudgetConfig::from_options`].
    pub fn breaker(self) -> Self {
        BudgetBuilder(self.0.set("breaker", Loose::Bool(true)))
    }
    /// At most this many requests of a scope on the wire at once (`maxInFlight`); the rest wait
    /// for room in priority order while their deadlines allow.
    pub fn max_in_flight(self, requests: u64) -> Self {
        BudgetBuilder(self.0.number("maxInFlight", requests))
    }
    /// No retry quota: retries are limited by attempts, deadline and tokens only.
    pub fn without_retry_quota(self) -> Self {
        BudgetBuilder(self.0.set("retryQuota", Loose::Bool(false)))
    }
    /// The configuration, or the first field that is wrong.
    pub fn build(self) -> Result<BudgetConfig, InvalidOption> {
        BudgetConfig::from_options(&self.0.into_loose())
    }
}
