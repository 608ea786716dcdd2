//! Each strategy of the contention simulator reads as what it does, in reports, in the `--json`
//! rows of `cargo run --example contention` and in the dashboard's simulator panel.
#![cfg(not(target_arch = "wasm32"))]

use retryline::contention::Strategy;

const ALL: [(Strategy, &str); 7] = [
    (Strategy::Exponential, "exponential"),
    (Strategy::Decorrelated, "decorrelated"),
    (Strategy::Equal, "equal"),
    (Strategy::Full, "full"),
    (Strategy::NoBackoff, "no-backoff"),
    (Strategy::FullWithQuota, "full+quota"),
    (Strategy::FullWithBucket, "full+bucket"),
];

#[test]
fn every_strategy_has_its_own_name_and_is_found_by_it() {
    assert_eq!(Strategy::ALL.map(Strategy::name), ALL.map(|(_, name)| name), "in the simulator's order");
    for (strategy, name) in ALL {
        assert_eq!(strategy.name(), name);
        assert_eq!(Strategy::from_name(name), Some(strategy), "{name}");
    }
}

#[test]
fn exponential_backoff_is_not_named_none() {
    // "none" is the jitter it draws with, and reads as no backoff at all (that is `no-backoff`).
    assert_eq!(Strategy::from_name("none"), None);
    assert_eq!(Strategy::from_name("Exponential"), None, "names are matched exactly");
}
