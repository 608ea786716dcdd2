//! How long a scope's responses take, for a hedge's `"p95"` delay: a histogram of log-spaced
//! buckets (each a quarter wider than the last), halved as it fills so that recent answers weigh
//! most. Bounded memory, no sorting; the percentile is read as its bucket's upper bound.

use super::Budget;
use crate::hedging::P95_MIN_SAMPLES;

/// Buckets: from 1 ms, each bound a quarter above the last; the last (past 39 s) takes everything longer.
const BUCKETS: usize = 48;

/// Observations the histogram holds before it halves them.
const HALVE_AT: u32 = 1000;

/// The upper bound of bucket `i`, ms.
fn bound(i: usize) -> u64 {
    let mut b = 1u64;
    for _ in 0..i {
        b = (b + 1).max(b + b / 4);
    }
    b
}

/// A scope's response times.
#[derive(Clone, Debug)]
pub struct Latency {
    counts: [u32; BUCKETS],
    total: u32,
}

impl Default for Latency {
    fn default() -> Self {
        Latency { counts: [0; BUCKETS], total: 0 }
    }
}

impl Latency {
    /// One response (or a timeout, at the time it was cut) that took `ms`.
    pub fn observe(&mut self, ms: u64) {
        let mut i = 0;
        let mut b = 1u64;
        while i + 1 < BUCKETS && ms > b {
            b = (b + 1).max(b + b / 4);
            i += 1;
        }
        if let Some(count) = self.counts.get_mut(i) {
            *count = count.saturating_add(1);
            self.total = self.total.saturating_add(1);
        }
        if self.total >= HALVE_AT {
            self.total = 0;
            for count in &mut self.counts {
                *count /= 2;
                self.total += *count;
            }
        }
    }

    /// The time within which `permille` of the observed responses came (an upper bound), once
    /// there are enough of them.
    pub fn quantile(&self, permille: u64) -> Option<u64> {
        if self.total < P95_MIN_SAMPLES {
            return None;
        }
        let want = u64::from(self.total) * permille;
        let mut seen = 0u64;
        self.counts
            .iter()
            .position(|count| {
                seen += u64::from(*count);
                seen * 1000 >= want
            })
            .map(bound)
    }
}

/// Each scope's response times, kept by the budget its calls share.
impl Budget {
    /// A response of `scope` came (or an attempt was cut) `ms` after it was sent.
    pub fn observe_latency(&mut self, scope: &str, ms: u64) {
        self.scope_mut(scope).latency.get_or_insert_with(Default::default).observe(ms);
    }

    /// The scope's 95th-percentile response time, ms, once it has [`P95_MIN_SAMPLES`] of them.
    pub fn latency_p95(&mut self, scope: &str) -> Option<u64> {
        self.scope_mut(scope).latency.as_ref().and_then(|l| l.quantile(950))
    }
}
