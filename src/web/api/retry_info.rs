//! What `ClientBuilder::on_retry` hears: a retry the core admitted, before its sleep (or its send
//! when no wait is planned), with the plan and why the attempt before it failed.

use crate::record::AttemptRecord;

/// A retry that stands, as JavaScript's `onRetry(info)` describes it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RetryInfo {
    /// The attempt about to be made (2 for the first retry).
    pub attempt: u32,
    /// The wait before it, ms: `max(provider minimum + spread, draw)` plus the budget's.
    pub planned_wait_ms: u64,
    /// The provider's minimum (`Retry-After`, a scope's hold) within that wait, ms.
    pub provider_wait_ms: u64,
    /// The backoff window the draw came from, ms.
    pub window_ms: Option<u64>,
    /// The delay drawn from that window, ms.
    pub sampled_delay_ms: Option<u64>,
    /// Time left before the deadline when the retry was planned, ms.
    pub remaining_ms: u64,
    /// What the attempt before it meant: "retryable", "throttled", …
    pub reason: Option<&'static str>,
    /// The planned attempt's record (its decision still open).
    pub record: AttemptRecord,
}

impl RetryInfo {
    /// The info of planned attempt `record`, after an attempt that meant `reason`.
    pub(crate) fn new(record: AttemptRecord, reason: Option<&'static str>) -> RetryInfo {
        RetryInfo {
            attempt: record.attempt,
            planned_wait_ms: record.planned_wait_ms,
            provider_wait_ms: record.provider_wait_ms,
            window_ms: record.window_ms,
            sampled_delay_ms: record.sampled_delay_ms,
            remaining_ms: record.remaining_ms,
            reason,
            record,
        }
    }
}
