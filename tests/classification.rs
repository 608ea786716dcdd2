//! The default classification table of DESIGN.md §2, per operation kind.
#![cfg(not(target_arch = "wasm32"))]

use retryline::classify::classify;
use retryline::{Observed, OperationKind as K, Policy, Reason as R};

fn by_status(kind: K, status: u16) -> R {
    classify(kind, Observed::Response, status, Policy::default().retry_on())
}

#[test]
fn successes() {
    for status in [200, 201, 204, 301, 304, 399] {
        for kind in [K::Read, K::Idempotent, K::Order] {
            assert_eq!(by_status(kind, status), R::Success, "{status} {kind:?}");
        }
    }
}

#[test]
fn transient_statuses_are_retried_for_reads() {
    for status in [408, 500, 502, 503, 504] {
        assert_eq!(by_status(K::Read, status), R::Retryable, "{status}");
        assert_eq!(by_status(K::Idempotent, status), R::Retryable, "{status}");
    }
    assert_eq!(by_status(K::Read, 429), R::Throttled);
}

#[test]
fn an_order_is_retried_only_on_429_which_is_rejected_before_execution() {
    assert_eq!(by_status(K::Order, 429), R::Throttled);
    for status in [408, 500, 501, 502, 503, 504, 505, 599] {
        assert_eq!(by_status(K::Order, status), R::UnknownOutcome, "{status}");
    }
}

#[test]
fn client_errors_stop() {
    for status in [400, 401, 402, 403, 404, 405, 409, 413, 422, 451] {
        for kind in [K::Read, K::Idempotent, K::Order] {
            assert_eq!(by_status(kind, status), R::NonRetryable, "{status} {kind:?}");
        }
    }
    // 5xx outside retryOn stop a read, they do not retry it.
    assert_eq!(by_status(K::Read, 501), R::NonRetryable);
}

#[test]
fn a_418_bans_the_scope() {
    for kind in [K::Read, K::Idempotent, K::Order] {
        assert_eq!(by_status(kind, 418), R::Banned);
    }
}

#[test]
fn failures_without_a_response() {
    for observed in [Observed::Timeout, Observed::NetworkError, Observed::Interrupted] {
        assert_eq!(classify(K::Read, observed, 0, &[]), R::Retryable);
        assert_eq!(classify(K::Idempotent, observed, 0, &[]), R::Retryable);
        assert_eq!(classify(K::Order, observed, 0, &[]), R::UnknownOutcome);
    }
    for kind in [K::Read, K::Order] {
        assert_eq!(classify(kind, Observed::Aborted, 0, &[]), R::Aborted);
    }
}

#[test]
fn retry_on_overrides_the_table() {
    assert_eq!(classify(K::Read, Observed::Response, 503, &[500]), R::NonRetryable);
    assert_eq!(classify(K::Read, Observed::Response, 409, &[409]), R::Retryable);
    assert_eq!(classify(K::Read, Observed::Response, 429, &[]), R::NonRetryable);
}

#[test]
fn the_method_decides_the_default_kind() {
    for m in ["GET", "get", "HEAD", "OPTIONS"] {
        assert_eq!(K::from_method(m), K::Read, "{m}");
    }
    for m in ["POST", "PUT", "DELETE", "PATCH"] {
        assert_eq!(K::from_method(m), K::Order, "{m}");
    }
}

#[test]
fn an_order_answered_with_any_5xx_is_unknown_even_when_retry_on_leaves_it_out() {
    // With retryOn: [429], a 500 is not retryable; for an order it is still no proof of rejection.
    assert_eq!(classify(K::Order, Observed::Response, 500, &[429]), R::UnknownOutcome);
    assert_eq!(classify(K::Order, Observed::Response, 599, &[429]), R::UnknownOutcome);
    assert_eq!(classify(K::Order, Observed::Response, 499, &[429]), R::NonRetryable);
    assert_eq!(classify(K::Read, Observed::Response, 500, &[429]), R::NonRetryable);
}
