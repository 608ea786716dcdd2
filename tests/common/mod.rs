//! Shared helpers for the native tests: policies from JSON, operations on a virtual clock.
#![allow(dead_code)]

use retryline::{replay, Budget, Loose, Operation, OperationKind, Policy, Priority, ReplayReport, ReplaySpec, Start};
use serde_json::Value;

pub fn policy(options: Value) -> Policy {
    let options: Loose = serde_json::from_value(options).expect("JSON");
    Policy::from_options(&options).expect("a valid policy")
}

/// A budget from its JavaScript options.
pub fn budget(options: Value) -> Budget {
    let options: Loose = serde_json::from_value(options).expect("JSON");
    Budget::new(retryline::budget::BudgetConfig::from_options(&options).expect("valid budget options"))
}

pub fn start(options: Value, kind: OperationKind, scope: &str) -> Start {
    Start {
        policy: policy(options),
        kind,
        priority: Priority::for_kind(kind),
        scope: scope.to_owned(),
        weight: 1,
        key: None,
        method: None,
        url: None,
    }
}

pub fn begin(options: Value, kind: OperationKind, scope: &str, now: u64) -> Operation {
    Operation::begin(start(options, kind, scope), now, 1_767_225_600_000 + now)
}

pub fn run(spec: Value) -> ReplayReport {
    let spec: ReplaySpec = serde_json::from_value(spec).expect("a valid replay spec");
    replay(spec)
}

pub mod sim;

pub fn unlimited() -> Budget {
    Budget::unlimited()
}
