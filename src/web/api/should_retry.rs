//! [`ShouldRetry`]: the caller's veto over a retry, as `policy.shouldRetry` is in JavaScript — on
//! the client ([`ClientBuilder::should_retry`](super::ClientBuilder::should_retry)), on a family
//! ([`Family::should_retry`](super::Family::should_retry)) and per call
//! ([`CallOptions::should_retry`](super::CallOptions::should_retry)), the call's winning over its
//! family's, which wins over the client's.

use std::future::Future;
use std::rc::Rc;

use crate::record::AttemptRecord;
use crate::web::executor::Predicate;

/// What `shouldRetry` is asked about: the attempt the retry would follow.
#[derive(Clone, Debug)]
pub struct RetryContext {
    /// Its number (1: the initial request).
    pub attempt: u32,
    /// Its status, if a response came.
    pub status: Option<u16>,
    /// What went wrong with it, if no response came (a network error's words, or that the
    /// response was still pending when its attempt timed out: `record.outcome` says which).
    pub error: Option<String>,
    /// Its response (body unread, unless the call reads bodies), if one came.
    pub response: Option<web_sys::Response>,
    /// Its record.
    pub record: AttemptRecord,
}

/// Asked, with the [`RetryContext`] of the attempt a retry would follow, only after the core has
/// admitted that retry (the gate, the budget, a ban, an order's unknown outcome): it can stop a
/// retry, never widen one. `Ok(true)` lets it go; `Ok(false)` or `Err(why)` stops the call with
/// [`Reason::NonRetryable`](crate::Reason::NonRetryable), the refused record's `limit` being
/// `should-retry` and its `error` what `Err` said. It may take its time, up to the call's
/// deadline: one that has not answered by then is a refusal that says so. To decide on a status
/// the policy would not retry, add it to the policy's `retry_on` first.
///
/// ```ignore
/// // 400, 400, 200 → two requests, then NonRetryable.
/// let policy = Policy::builder().retry_on(&[400, 429, 503]).build()?;
/// let client = Client::builder()
///     .policy(policy)
///     .should_retry(|context| async move { Ok(context.status != Some(400) || context.attempt < 2) })
///     .build();
/// ```
#[derive(Clone)]
pub struct ShouldRetry(pub(super) Predicate);

impl ShouldRetry {
    /// The predicate `decide`.
    pub fn new<F, Fut>(decide: F) -> ShouldRetry
    where
        F: Fn(RetryContext) -> Fut + 'static,
        Fut: Future<Output = Result<bool, String>> + 'static,
    {
        ShouldRetry(Rc::new(move |record: AttemptRecord, error, response| {
            let context = RetryContext { attempt: record.attempt, status: record.status, error, response, record };
            Box::pin(decide(context))
        }))
    }
}

impl std::fmt::Debug for ShouldRetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ShouldRetry(…)")
    }
}
