//! What an observation means for the next step, per operation kind (DESIGN.md §2).
//!
//! | observation | read / idempotent | order |
//! |---|---|---|
//! | 2xx, 3xx | success | success |
//! | status in `retryOn` | retry (429: throttled) | 429: throttled (rejected before execution); others: unknown outcome |
//! | any other 5xx | non-retryable | unknown outcome |
//! | 418 | banned | banned |
//! | other 4xx, 1xx | non-retryable | non-retryable |
//! | timeout, network error, interrupted | retry | unknown outcome |
//! | caller abort | aborted | aborted (unknown outcome once sent) |

use serde::{Deserialize, Serialize};

use crate::reason::Reason;

/// What a request could change, which decides whether repeating it is safe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OperationKind {
    /// A read: repeating it changes nothing.
    #[default]
    Read,
    /// A write the caller vouches is safe to repeat (e.g. it carries an idempotency key the provider honours).
    Idempotent,
    /// A write that may not be repeated: once transmitted, a lost answer is an unknown outcome.
    Order,
    /// A stream's connection attempts (`client.stream`): never a call's option, only its records'.
    Stream,
}

impl OperationKind {
    /// The accepted names, quoted, for an error that lists them.
    pub const NAMES: &'static str = "\"read\", \"idempotent\", \"order\"";

    /// The kind an option names (`read`, `idempotent`, `order`); `None` for any other name.
    pub fn from_name(name: &str) -> Option<OperationKind> {
        let kind = crate::json::position(Self::NAME_LIST, name).and_then(|at| Self::ALL.get(at).copied());
        kind.filter(|&k| k != OperationKind::Stream)
    }

    /// GET, HEAD and OPTIONS are reads; every other method is an order unless the caller says otherwise.
    pub fn from_method(method: &str) -> OperationKind {
        if ["GET", "HEAD", "OPTIONS"].iter().any(|m| m.eq_ignore_ascii_case(method)) {
            OperationKind::Read
        } else {
            OperationKind::Order
        }
    }

    /// Whether repeating it is unsafe: a lost answer is then an unknown outcome, never a retry.
    pub fn is_order(self) -> bool {
        self == OperationKind::Order
    }

    /// A stream's reconnects wait out a ban or a repeated throttle while the outage's deadline
    /// allows, where a call stops: a stream is meant to come back.
    pub fn is_stream(self) -> bool {
        self == OperationKind::Stream
    }
}

/// What the shell observed of one attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Observed {
    /// A response arrived (status in the record).
    Response,
    /// The attempt timeout expired first.
    Timeout,
    /// The request failed without a response (reset, refused, DNS, CORS).
    NetworkError,
    /// The caller aborted it.
    Aborted,
    /// The process stopped while it was in flight (found on restore): nothing is known of it.
    Interrupted,
}

/// Classifies an observation (`status` for responses) for an operation of `kind`.
pub fn classify(kind: OperationKind, observed: Observed, status: u16, retry_on: &[u16]) -> Reason {
    match observed {
        Observed::Aborted => Reason::Aborted,
        Observed::Timeout | Observed::NetworkError | Observed::Interrupted if kind.is_order() => Reason::UnknownOutcome,
        Observed::Timeout | Observed::NetworkError | Observed::Interrupted => Reason::Retryable,
        Observed::Response => classify_status(kind, status, retry_on),
    }
}

fn classify_status(kind: OperationKind, status: u16, retry_on: &[u16]) -> Reason {
    let listed = retry_on.contains(&status);
    match status {
        200..=399 => Reason::Success,
        // A stream's connection that stayed up its minimum uptime (101 Switching Protocols).
        101 if kind.is_stream() => Reason::Success,
        418 => Reason::Banned,
        429 if listed => Reason::Throttled,
        // A server error on an order is not proof of rejection.
        _ if kind.is_order() && (status >= 500 || (listed && status != 429)) => Reason::UnknownOutcome,
        _ if listed => Reason::Retryable,
        _ => Reason::NonRetryable,
    }
}

/// A response's status as the platform reported it: only 200–599 tells of the outcome; anything
/// else makes the attempt a failed one, and the text says why.
pub fn response_status(status: f64) -> Result<u16, String> {
    use crate::text::{join, signed};
    if status.fract() != 0.0 || !status.is_finite() {
        return Err("the response's status is not a whole number".to_owned());
    }
    match status {
        x if (200.0..=599.0).contains(&x) => Ok(x as u16),
        0.0 => Err("an opaque response (status 0) tells nothing of the outcome".to_owned()),
        x if x.abs() < 1e15 => Err(join(&["status ", &signed(x as i64), " is not an HTTP status"])),
        _ => Err("the response's status is not a whole number".to_owned()),
    }
}
