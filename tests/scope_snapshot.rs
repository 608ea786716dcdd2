//! What an operator reads of each scope: holds and bans only while they last.
#![cfg(not(target_arch = "wasm32"))]

use retryline::Budget;

#[test]
fn a_scope_never_held_or_banned_shows_neither() {
    let mut b = Budget::default();
    b.hold("a", 0);
    let s = &b.snapshot(0, 1_000_000)[0];
    assert_eq!((s.held_until, s.hold_remaining_ms), (None, 0));
    assert_eq!((s.banned_until, s.ban_remaining_ms), (None, 0));
}

#[test]
fn a_hold_or_ban_that_has_ended_is_no_longer_shown() {
    let mut b = Budget::default();
    b.hold("a", 5000);
    b.ban("a", 7000);
    let during = &b.snapshot(4000, 1_000_000)[0];
    assert_eq!((during.held_until, during.banned_until), (Some(1_001_000), Some(1_003_000)));
    let after = &b.snapshot(7000, 1_000_000)[0];
    assert_eq!((after.held_until, after.hold_remaining_ms), (None, 0));
    assert_eq!((after.banned_until, after.ban_remaining_ms), (None, 0));
}

#[test]
fn a_longer_hold_is_never_shortened_by_a_shorter_one() {
    let mut b = Budget::default();
    b.hold("a", 9000);
    b.hold("a", 3000);
    b.ban("a", 8000);
    b.ban("a", 1000);
    assert_eq!((b.hold_remaining("a", 0), b.ban_remaining("a", 0)), (9000, 8000));
    assert_eq!((b.hold_remaining("b", 0), b.ban_remaining("b", 0)), (0, 0), "other scopes are free");
}
