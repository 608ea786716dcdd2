//! The coordinator's side of a visit (`Budget::answer_visit`): a visit that took, told and was
//! granted nothing leaves the state as it was, so a fleet process answering from Redis writes
//! nothing for it and news visits do not contend with the leases that must be written.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::budget;
use retryline::budget::authority::Told;
use retryline::budget::breaker_shared::{PROBE_ASK, PROBE_CLOSED};
use retryline::Priority;
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn news() -> Told {
    Told { priority: Some(Priority::Read), latest: WALL + 1000, ..Told::default() }
}

#[test]
fn news_changes_nothing_a_lease_a_new_ban_or_a_return_does() {
    let mut authority = budget(json!({ "capacity": 10, "refillPerSecond": 5 }));
    let news_at = |a: &mut retryline::Budget, now: u64| a.answer_visit("s", news(), now, WALL + now).changed;
    assert!(!news_at(&mut authority, 0), "news of nothing");
    let lease = authority.answer_visit("s", Told { weight: 1, ..news() }, 10, WALL + 10);
    assert!(lease.changed && lease.answer[0] >= 1, "{lease:?}");
    assert!(!news_at(&mut authority, 20), "news after a lease");
    let ban = Told { ban: WALL + 5000, ..news() };
    assert!(authority.answer_visit("s", ban, 30, WALL + 30).changed, "a ban it did not have");
    assert!(!authority.answer_visit("s", ban, 40, WALL + 40).changed, "the same ban again");
    assert!(authority.answer_visit("s", Told { returned: 1, ..news() }, 50, WALL + 50).changed, "tokens returned");
    assert!(authority.answer_visit("s", Told { spent: 1, ..news() }, 60, WALL + 60).changed, "tokens spent alone");
    // A lease the bucket cannot give in time takes nothing.
    while authority.answer_visit("s", Told { weight: 1, latest: WALL + 70, ..news() }, 70, WALL + 70).answer[0] > 0 {}
    let late = authority.answer_visit("s", Told { weight: 1, latest: WALL + 70, ..news() }, 70, WALL + 70);
    assert!(late.answer[0] == 0 && !late.changed, "{late:?}");
}

#[test]
fn a_probe_granted_or_answered_changes_the_breaker_an_ask_while_closed_does_not() {
    let mut authority = budget(
        json!({ "capacity": 10, "refillPerSecond": 5, "breaker": { "consecutiveFailures": 1, "openMs": 1000, "maxOpenMs": 1000 } }),
    );
    let ask = Told { probe: PROBE_ASK, ..news() };
    let closed = authority.answer_visit("s", ask, 0, WALL);
    assert_eq!((closed.answer[5], closed.changed), (PROBE_CLOSED, false), "asked while closed");
    let opened = authority.answer_visit("s", Told { breaker: WALL + 1000, ..news() }, 0, WALL);
    assert!(opened.changed && opened.answer[4] > WALL, "{opened:?}");
    let granted = authority.answer_visit("s", ask, 1000, WALL + 1000);
    assert_eq!((granted.answer[5], granted.changed), (PROBE_ASK, true), "the slot granted once half-open");
    let answered = authority.answer_visit("s", Told { probe: PROBE_CLOSED, ..news() }, 1100, WALL + 1100);
    assert!(answered.changed, "the probe's outcome");
}
