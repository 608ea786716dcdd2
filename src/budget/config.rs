//! What a `Budget` is configured with, validated field by field.
//!
//! # Default
//! | field | default | meaning |
//! |---|---|---|
//! | `capacity` | none (no token limit) | tokens per scope; a request spends its `weight` |
//! | `refillPerSecond` | required with `capacity` | tokens added back per second |
//! | `reserve` | 0.2 | share of each bucket kept for higher priorities: `refresh` may not dip into it, `read` into its upper third, `order` into its upper two thirds, `reconcile` takes all (whole tokens, rounded down) |
//! | `retryQuota` | on: 500, retry 5, after timeout 10, success +1 | `false` turns it off |
//! | `usedWeightHeader` | none | response header with the provider's own count of weight used (e.g. `X-MBX-USED-WEIGHT-1M`) |
//! | `breaker` | none | a circuit breaker per scope: `true` or `{ consecutiveFailures 5, failureRatio 0.5, windowMs 10000, minVolume 10, openMs 5000, maxOpenMs 60000, probes 1 }` |
//! | `maxInFlight` | none (no cap) | requests of a scope on the wire at once; one that finds no room waits, in priority order, while its deadline allows |
//! | `scopes` | none | per-scope overrides of `capacity`, `refillPerSecond`, `reserve`, `usedWeightHeader`, `breaker`, `maxInFlight` |

use super::quota::QuotaConfig;
use crate::input::read::{name, number, whole};
use crate::input::{At, Invalid, InvalidOption, Loose, Problem};

/// The most tokens a bucket may hold.
const MAX_CAPACITY: u64 = 1_000_000_000_000;

/// Limits that apply to one scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Tokens; `None` means no token limit.
    pub capacity: Option<u64>,
    /// Milli-tokens per second.
    pub refill_milli: u64,
    /// Share of the bucket held back for higher priorities, per mille (`reserve` × 1000, rounded down).
    pub reserve_permille: u32,
    /// Lower-cased header name.
    pub used_weight_header: Option<String>,
    /// The scope's circuit breaker (`None`: none, the default).
    pub breaker: Option<super::breaker::BreakerConfig>,
    /// Requests on the wire at once (`None`: no cap, the default).
    pub max_in_flight: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            capacity: None,
            refill_milli: 0,
            reserve_permille: 200,
            used_weight_header: None,
            breaker: None,
            max_in_flight: None,
        }
    }
}

/// A budget's validated options: default limits, per-scope overrides and the retry quota.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetConfig {
    /// The limits of every scope that `scopes` does not name.
    pub limits: Limits,
    /// Per-scope overrides by scope name; each inherits the top-level limits it does not set.
    pub scopes: Vec<(String, Limits)>,
    /// The retry quota each scope keeps (`None`: `retryQuota: false`, retries are not rationed).
    pub retry_quota: Option<QuotaConfig>,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig { limits: Limits::default(), scopes: Vec::new(), retry_quota: Some(QuotaConfig::default()) }
    }
}

impl BudgetConfig {
    /// No token limit and no retry quota: only provider holds and bans.
    pub fn unlimited() -> Self {
        BudgetConfig { retry_quota: None, ..BudgetConfig::default() }
    }

    /// The limits of `scope`.
    pub fn limits(&self, scope: &str) -> &Limits {
        self.scopes.iter().find(|(name, _)| name == scope).map_or(&self.limits, |(_, limits)| limits)
    }

    /// Reads a `Budget`'s options over the defaults; an error names its field, e.g. `scopes.binance.reserve`.
    pub fn from_options(options: &Loose) -> Result<BudgetConfig, InvalidOption> {
        BudgetConfig::read(options).map_err(|e| *e)
    }

    /// [`from_options`](Self::from_options), with an [`Invalid`] error.
    pub(crate) fn read(options: &Loose) -> Result<BudgetConfig, Invalid> {
        let mut config = BudgetConfig::default();
        // The config is moved once, and errors come out of one place.
        config.read_into(options)?;
        Ok(config)
    }

    fn read_into(&mut self, options: &Loose) -> Result<(), Invalid> {
        let mut scopes = None;
        let mut limits = Vec::new();
        for (field, value) in options.fields("options")? {
            if value.is_absent() {
                continue;
            }
            match field.as_str() {
                "retryQuota" => self.retry_quota = quota(value)?,
                "scopes" => scopes = Some(value),
                f if LIMIT_FIELDS.contains(&f) => limits.push((f, value)),
                f => return Err(InvalidOption::boxed(f, Problem::UnknownField)),
            }
        }
        read_limits(&mut self.limits, &limits)?;
        let Some(scopes) = scopes else { return Ok(()) };
        for (scope, value) in scopes.fields("scopes")? {
            let mut parsed = self.limits.clone();
            let read = value.fields(scope).map_err(|e| e.at("scopes")).and_then(|entries| {
                let fields: Vec<(&str, &Loose)> =
                    entries.iter().filter(|(_, v)| !v.is_absent()).map(|(k, v)| (k.as_str(), v)).collect();
                read_limits(&mut parsed, &fields).map_err(|e| e.at(scope).at("scopes"))
            });
            read?;
            self.scopes.push((scope.clone(), parsed));
        }
        Ok(())
    }
}

const LIMIT_FIELDS: [&str; 6] =
    ["capacity", "refillPerSecond", "reserve", "usedWeightHeader", "breaker", "maxInFlight"];

/// The most requests a scope may cap on the wire at once.
const MAX_IN_FLIGHT: u64 = 1_000_000;

/// Limits from `fields`, over those `limits` has (a scope inherits what it does not name).
fn read_limits(limits: &mut Limits, fields: &[(&str, &Loose)]) -> Result<(), Invalid> {
    let mut refill_given = false;
    for &(field, value) in fields {
        match field {
            "capacity" => limits.capacity = Some(whole(field, value, 1, MAX_CAPACITY)?),
            "refillPerSecond" => {
                let rate = number(field, value)?;
                if rate <= 0.0 {
                    return Err(InvalidOption::boxed(field, Problem::NotPositive));
                }
                // Rounded down: a slower refill is the safe side of a provider's limit.
                limits.refill_milli = ((rate * 1000.0) as u64).max(1);
                refill_given = true;
            }
            "reserve" => {
                let share = number(field, value)?;
                if !(0.0..1.0).contains(&share) {
                    return Err(InvalidOption::boxed(field, Problem::NotAFraction));
                }
                limits.reserve_permille = (share * 1000.0) as u32;
            }
            "usedWeightHeader" => limits.used_weight_header = Some(name(field, value)?.to_ascii_lowercase()),
            "breaker" => limits.breaker = super::breaker::BreakerConfig::read(value)?,
            "maxInFlight" => limits.max_in_flight = Some(whole(field, value, 1, MAX_IN_FLIGHT)?),
            _ => return Err(InvalidOption::boxed(field, Problem::UnknownField)),
        }
    }
    if limits.capacity.is_some() && limits.refill_milli == 0 {
        return Err(InvalidOption::boxed("capacity", Problem::Requires { other: "refillPerSecond" }));
    }
    if refill_given && limits.capacity.is_none() {
        return Err(InvalidOption::boxed("refillPerSecond", Problem::Requires { other: "capacity" }));
    }
    Ok(())
}

fn quota(value: &Loose) -> Result<Option<QuotaConfig>, Invalid> {
    let mut config = QuotaConfig::default();
    match value {
        Loose::Bool(false) => return Ok(None),
        Loose::Bool(true) => return Ok(Some(config)),
        Loose::Map(entries) => {
            for (field, value) in entries {
                if value.is_absent() {
                    continue;
                }
                let f = field.as_str();
                let units =
                    || whole(f, value, 0, u64::from(u32::MAX)).map(|n| n as u32).map_err(|e| e.at("retryQuota"));
                match f {
                    "capacity" => config.capacity = units()?,
                    "retryCost" => config.retry_cost = units()?,
                    "timeoutCost" => config.timeout_cost = units()?,
                    "successCredit" => config.success_credit = units()?,
                    _ => return Err(InvalidOption::boxed(f, Problem::UnknownField).at("retryQuota")),
                }
            }
        }
        other => {
            return Err(InvalidOption::boxed(
                "retryQuota",
                Problem::WrongType { expected: "a boolean or an object", found: other.kind() },
            ))
        }
    }
    Ok(Some(config))
}
