//! The send meter: the line held at the moment a request goes on the wire, whatever was planned.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::meter::Meter;

#[test]
fn a_full_meter_lets_its_capacity_through_then_says_how_long_the_next_token_takes() {
    // 3 tokens, 2 a second.
    let mut m = Meter::new(3, 2000);
    assert_eq!((m.take(1, 0), m.take(2, 0)), (Ok(()), Ok(())));
    assert_eq!(m.take(1, 0), Err(500), "one token every 500 ms");
    assert_eq!(m.take(1, 499), Err(1));
    assert_eq!(m.take(1, 500), Ok(()));
    assert_eq!(m.take(2, 500), Err(1000), "a heavier request waits for its whole weight");
}

#[test]
fn a_refused_take_spends_nothing() {
    let mut m = Meter::new(2, 1000);
    assert_eq!(m.take(2, 0), Ok(()));
    assert_eq!(m.take(2, 1000), Err(1000), "one token back after a second, two are needed");
    assert_eq!(m.take(2, 2000), Ok(()), "the refused take did not spend the token it saw");
}

#[test]
fn refill_follows_the_time_that_passed_since_the_last_take() {
    let mut m = Meter::new(4, 1000);
    assert_eq!(m.take(4, 10_000), Ok(()), "full after a long idle time, but not fuller");
    assert_eq!(m.take(1, 10_000), Err(1000));
    // Two seconds later, exactly two tokens are back.
    assert_eq!(m.take(2, 12_000), Ok(()));
    assert_eq!(m.take(1, 12_000), Err(1000));
}

#[test]
fn a_long_idle_time_refills_to_the_capacity_and_no_further() {
    let mut m = Meter::new(3, 1000);
    assert_eq!(m.take(3, 0), Ok(()));
    assert_eq!(m.take(3, 3_600_000), Ok(()));
    assert_eq!(m.take(1, 3_600_000), Err(1000));
}

#[test]
fn an_instant_seen_twice_adds_nothing() {
    let mut m = Meter::new(2, 1000);
    assert_eq!(m.take(1, 500), Ok(()));
    assert_eq!(m.take(1, 500), Ok(()));
    assert_eq!(m.take(1, 500), Err(1000));
    assert_eq!(m.take(1, 500), Err(1000), "asking again at the same instant refills nothing");
}

#[test]
fn the_providers_used_count_caps_what_is_left() {
    // 10 tokens, 2 a second; the provider says 7 are spent by others behind the same limit.
    let mut m = Meter::new(10, 2000);
    m.observe_used(7, 0);
    assert_eq!(m.take(3, 0), Ok(()));
    assert_eq!(m.take(1, 0), Err(500));
}

#[test]
fn a_used_count_never_adds_tokens() {
    let mut m = Meter::new(10, 1000);
    assert_eq!(m.take(9, 0), Ok(()));
    m.observe_used(2, 0);
    assert_eq!(m.take(2, 0), Err(1000), "one token left, whatever the provider has counted so far");
}

#[test]
fn a_used_count_is_read_at_its_own_instant() {
    let mut m = Meter::new(10, 1000);
    assert_eq!(m.take(10, 0), Ok(()));
    // Five seconds later five tokens are back; the provider counts 8 of 10 used: two are left.
    m.observe_used(8, 5000);
    assert_eq!(m.take(2, 5000), Ok(()));
    assert_eq!(m.take(1, 5000), Err(1000));
}
