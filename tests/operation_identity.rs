//! An operation keeps who it is and the policy it runs under, for the shell and the store.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use retryline::{Operation, OperationKind};
use serde_json::json;

#[test]
fn an_operation_answers_with_its_own_key_and_policy() {
    let mut start = common::start(json!({ "maxAttempts": 7, "deadlineMs": 12345 }), OperationKind::Order, "s");
    start.key = Some("client-order-42".into());
    let op = Operation::begin(start, 0, 0);
    assert_eq!(op.key(), Some("client-order-42"));
    assert_eq!((op.policy().max_attempts(), op.policy().deadline_ms()), (7, 12345));
    assert_eq!(op.policy(), &common::policy(json!({ "maxAttempts": 7, "deadlineMs": 12345 })));
}

#[test]
fn an_operation_without_a_key_has_none() {
    let op = common::begin(json!({}), OperationKind::Read, "s", 0);
    assert_eq!(op.key(), None);
}
