//! The retry quota: retries spend it, successes pay it back, so a failing provider
//! sees first attempts but not a snowball of retries.
//!
//! The numbers are the AWS SDKs' standard retry quota: 500 units; a retry costs 5, a
//! retry after a timeout 10; a successful retry refunds its cost, a success on the
//! first attempt adds 1. With every request failing, about 100 retries (50 after
//! timeouts) are allowed before retries stop and only first attempts go out.

use serde::Serialize;

/// The quota's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaConfig {
    /// Units the quota holds when full, and at the start (default 500).
    pub capacity: u32,
    /// Units a retry spends (default 5).
    pub retry_cost: u32,
    /// Units a retry after a timeout spends (default 10): a timeout hints at an overloaded provider.
    pub timeout_cost: u32,
    /// Units a success that spent nothing (a first attempt) adds back (default 1).
    pub success_credit: u32,
}

impl Default for QuotaConfig {
    fn default() -> Self {
        QuotaConfig { capacity: 500, retry_cost: 5, timeout_cost: 10, success_credit: 1 }
    }
}

/// One scope's retry quota: retries spend units, successes pay them back.
#[derive(Clone, Debug)]
pub struct Quota {
    config: QuotaConfig,
    available: u32,
}

/// The quota as an operator reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaSnapshot {
    /// Units left to spend.
    pub available: u32,
    /// Units the quota holds when full.
    pub capacity: u32,
}

impl Quota {
    /// A full quota with these numbers.
    pub fn new(config: QuotaConfig) -> Self {
        Quota { config, available: config.capacity }
    }

    /// What a retry costs, after a timeout or another failure.
    pub fn cost(&self, after_timeout: bool) -> u32 {
        if after_timeout {
            self.config.timeout_cost
        } else {
            self.config.retry_cost
        }
    }

    /// Spends `cost` if it is available.
    pub fn spend(&mut self, cost: u32) -> bool {
        match self.available.checked_sub(cost) {
            Some(left) => {
                self.available = left;
                true
            }
            None => false,
        }
    }

    /// Gives back what a retry cost (it succeeded, or was never sent).
    pub fn refund(&mut self, cost: u32) {
        self.available = self.available.saturating_add(cost).min(self.config.capacity);
    }

    /// Units left to spend.
    pub fn available(&self) -> u32 {
        self.available
    }

    /// Sets the units left (at most the capacity), e.g. when importing shared state.
    pub fn set_available(&mut self, available: u32) {
        self.available = available.min(self.config.capacity);
    }

    /// A first attempt succeeded.
    pub fn credit(&mut self) {
        self.refund(self.config.success_credit);
    }

    /// The quota as an operator reads it.
    pub fn snapshot(&self) -> QuotaSnapshot {
        QuotaSnapshot { available: self.available, capacity: self.config.capacity }
    }
}
