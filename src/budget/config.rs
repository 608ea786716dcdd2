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
//! | `scopes` | none | per-scope overrides of `capacity`, `refillPerSecond`, `reserve`, `usedWeightHeader` |

use super::quota::QuotaConfig;
use crate::input::{name, number, whole, InvalidOption, Loose, Problem};

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
}

impl Default for Limits {
    fn default() -> Self {
        Limits { capacity: None, refill_milli: 0, reserve_permille: 200, used_weight_header: None }
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
        let mut config = BudgetConfig::default();
        let mut scopes = None;
        let mut limits = Vec::new();
        for (field, value) in options.entries("options")? {
            if value.is_absent() {
                continue;
            }
            match field.as_str() {
                "retryQuota" => config.retry_quota = quota(value)?,
                "scopes" => scopes = Some(value),
                f if LIMIT_FIELDS.contains(&f) => limits.push((f, value)),
                f => return Err(InvalidOption::new(f, Problem::UnknownField)),
            }
        }
        config.limits = read_limits(&Limits::default(), &limits)?;
        if let Some(scopes) = scopes {
            for (scope, value) in scopes.entries("scopes")? {
                let fields: Vec<(&str, &Loose)> = value
                    .entries(scope)
                    .map_err(|e| e.within("scopes"))?
                    .iter()
                    .filter(|(_, v)| !v.is_absent())
                    .map(|(k, v)| (k.as_str(), v))
                    .collect();
                let parsed = read_limits(&config.limits, &fields).map_err(|e| e.within(scope).within("scopes"))?;
                config.scopes.push((scope.clone(), parsed));
            }
        }
        Ok(config)
    }
}

const LIMIT_FIELDS: [&str; 4] = ["capacity", "refillPerSecond", "reserve", "usedWeightHeader"];

/// Limits from `fields`, on top of `base` (a scope inherits what it does not name).
fn read_limits(base: &Limits, fields: &[(&str, &Loose)]) -> Result<Limits, InvalidOption> {
    let mut limits = base.clone();
    let mut refill_given = false;
    for (field, value) in fields {
        let field = *field;
        match field {
            "capacity" => limits.capacity = Some(whole(field, value, 1, MAX_CAPACITY)?),
            "refillPerSecond" => {
                let rate = number(field, value)?;
                if rate <= 0.0 {
                    return Err(InvalidOption::new(field, Problem::NotPositive));
                }
                // Rounded down: a slower refill is the safe side of a provider's limit.
                limits.refill_milli = ((rate * 1000.0) as u64).max(1);
                refill_given = true;
            }
            "reserve" => {
                let share = number(field, value)?;
                if !(0.0..1.0).contains(&share) {
                    return Err(InvalidOption::new(field, Problem::NotAFraction));
                }
                limits.reserve_permille = (share * 1000.0) as u32;
            }
            "usedWeightHeader" => limits.used_weight_header = Some(name(field, value)?.to_ascii_lowercase()),
            _ => return Err(InvalidOption::new(field, Problem::UnknownField)),
        }
    }
    if limits.capacity.is_some() && limits.refill_milli == 0 {
        return Err(InvalidOption::new("capacity", Problem::Requires { other: "refillPerSecond" }));
    }
    if refill_given && limits.capacity.is_none() {
        return Err(InvalidOption::new("refillPerSecond", Problem::Requires { other: "capacity" }));
    }
    Ok(limits)
}

fn quota(value: &Loose) -> Result<Option<QuotaConfig>, InvalidOption> {
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
                    || whole(f, value, 0, u64::from(u32::MAX)).map(|n| n as u32).map_err(|e| e.within("retryQuota"));
                match f {
                    "capacity" => config.capacity = units()?,
                    "retryCost" => config.retry_cost = units()?,
                    "timeoutCost" => config.timeout_cost = units()?,
                    "successCredit" => config.success_credit = units()?,
                    _ => return Err(InvalidOption::new(f, Problem::UnknownField).within("retryQuota")),
                }
            }
        }
        other => {
            return Err(InvalidOption::new(
                "retryQuota",
                Problem::WrongType { expected: "a boolean or an object", found: other.kind() },
            ))
        }
    }
    Ok(Some(config))
}
