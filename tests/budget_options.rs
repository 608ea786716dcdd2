//! Budget options are read in the order they are written: the first mistake is the one named.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::BudgetConfig;
use retryline::{Loose, Problem};

/// Options in exactly this order (as a JavaScript object keeps them).
fn first_error(fields: &[(&str, Loose)]) -> (String, Problem) {
    let options = Loose::Map(fields.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect());
    let err = BudgetConfig::from_options(&options).expect_err("invalid options");
    (err.field, err.problem)
}

fn text(s: &str) -> Loose {
    Loose::Text(s.to_owned())
}

#[test]
fn a_misspelt_field_is_named_before_a_later_mistake() {
    let (field, problem) = first_error(&[("capacty", Loose::Number(10.0)), ("retryQuota", text("yes"))]);
    assert_eq!((field.as_str(), problem), ("capacty", Problem::UnknownField));
    let (field, problem) = first_error(&[("burst", Loose::Number(10.0)), ("scopes", Loose::Number(3.0))]);
    assert_eq!((field.as_str(), problem), ("burst", Problem::UnknownField));
}

#[test]
fn a_mistake_before_a_misspelt_field_is_named_first() {
    let (field, _) = first_error(&[("retryQuota", text("yes")), ("capacty", Loose::Number(10.0))]);
    assert_eq!(field, "retryQuota");
}
