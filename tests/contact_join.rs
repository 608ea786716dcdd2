//! A fleet process's first visit (`Contacts::joining`): it includes connecting to Redis, and a new
//! process must hear of the fleet's bans before it sends, so it is waited for longer than the
//! later ones — never past the latest start of its attempt — and only until it has ended, answered or not.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::budget;
use retryline::budget::contact::{Contacts, CONTACT_MS, FRESH_MS};
use retryline::budget::Ask;
use retryline::Priority;
use serde_json::json;

const WALL: u64 = 1_700_000_000_000;

fn ask(latest: u64) -> Ask<'static> {
    Ask { scope: "s", weight: 1, priority: Priority::Read, retry: false, after_timeout: false, earliest: 0, latest }
}

fn realm() -> retryline::Budget {
    budget(json!({ "capacity": 10, "refillPerSecond": 5 }))
}

#[test]
fn the_first_visit_is_waited_for_up_to_the_join_bound_never_past_the_deadline_then_the_contact_bound() {
    let mut b = realm();
    let mut contacts = Contacts::default();
    contacts.joining(1000);
    assert_eq!(contacts.before(&mut b, &ask(5000), 0, WALL, 8000).map(|v| v.within), Some(1000));
    assert_eq!(contacts.before(&mut b, &ask(5000), 0, WALL, 400).map(|v| v.within), Some(400), "the deadline cuts it");
    // So does the latest start of the attempt: after it nothing could be sent, with or without the fleet's news.
    assert_eq!(
        contacts.before(&mut b, &ask(700), 0, WALL, 8000).map(|v| v.within),
        Some(700),
        "its latest start cuts it"
    );
    assert_eq!(
        contacts.before(&mut b, &ask(100), 0, WALL, 8000).map(|v| v.within),
        Some(CONTACT_MS),
        "never below the contact bound"
    );
    // A wait the deadline cut short proves nothing: the next step still joins.
    contacts.answered(&mut b, "s", None, 400, 400, WALL + 400);
    assert!(!contacts.unreachable());
    assert_eq!(contacts.before(&mut b, &ask(5000), 400, WALL + 400, 8000).map(|v| v.within), Some(1000));
    // Answered: joined, and later visits are waited for the contact bound.
    contacts.answered(&mut b, "s", Some([0, 0, 0, 0, 0, 0, 0]), 30, 430, WALL + 430);
    let later = 430 + FRESH_MS + 1;
    assert_eq!(contacts.before(&mut b, &ask(5000), later, WALL + later, 8000).map(|v| v.within), Some(CONTACT_MS));
}

#[test]
fn a_first_visit_not_answered_in_the_join_bound_is_a_coordinator_down_and_ends_the_join() {
    let mut b = realm();
    let mut contacts = Contacts::default();
    contacts.joining(1000);
    contacts.before(&mut b, &ask(5000), 0, WALL, 8000).expect("a visit");
    // Not answered in the contact bound, but within the join bound: not yet down.
    contacts.answered(&mut b, "s", None, CONTACT_MS, CONTACT_MS, WALL + CONTACT_MS);
    assert!(!contacts.unreachable(), "the join bound is the one that counts");
    contacts.answered(&mut b, "s", None, 1000, 1000, WALL + 1000);
    assert!(contacts.unreachable());
    // Down: the next visits go in the background, and the join bound is not waited again.
    let visit = contacts.before(&mut b, &ask(9000), 2001, WALL + 2001, 9000).expect("asked again in the background");
    assert!(visit.background);
    assert_eq!(visit.within, CONTACT_MS);
}

#[test]
fn without_a_join_bound_the_first_visit_is_a_visit_like_any_other() {
    let mut b = realm();
    let mut contacts = Contacts::default();
    assert_eq!(contacts.before(&mut b, &ask(5000), 0, WALL, 8000).map(|v| v.within), Some(CONTACT_MS));
}

#[test]
fn a_spent_lease_is_dropped_when_the_coordinator_stops_answering_so_the_step_spends_its_own_bucket() {
    let mut b = realm();
    let mut contacts = Contacts::default();
    // A lease of one token from 0, spent at once.
    contacts.answered(&mut b, "s", Some([1, WALL, 0, 0, 0, 0, 0]), 5, 5, WALL + 5);
    b.admit(&ask(5000)).expect("the leased token");
    // The next step visits for more (the lease is spent, not expired), and the visit fails at once
    // (a refused connection: no answer, as if the whole bound had passed), well within the lease.
    let visit = contacts.before(&mut b, &ask(5000), 60, WALL + 60, 8000).expect("a visit for tokens");
    assert_eq!(visit.weight, 1);
    contacts.answered(&mut b, "s", None, CONTACT_MS, 62, WALL + 62);
    assert!(contacts.unreachable());
    assert!(b.lease("s").is_none(), "the spent lease is gone");
    b.admit(&ask(5000)).expect("granted from this realm's own bucket, not refused budget");
}

#[test]
fn a_read_that_cannot_start_before_the_fleets_next_token_makes_no_visit() {
    let mut b = realm();
    let mut contacts = Contacts::default();
    // The coordinator answered: no tokens before 1 000 ms from now (a lease of none, from then).
    contacts.answered(&mut b, "s", Some([0, WALL + 1000, 0, 0, 0, 0, 4]), 5, 0, WALL);
    let at = FRESH_MS + 1;
    assert_eq!(contacts.before(&mut b, &ask(500), at, WALL + at, 8000), None, "it could not start by then: no visit");
    assert!(contacts.before(&mut b, &ask(1500), at, WALL + at, 8000).is_some(), "one that could still visits");
    let order = Ask { priority: Priority::Order, ..ask(500) };
    assert!(
        contacts.before(&mut b, &order, at, WALL + at, 8000).is_some(),
        "an order may have a reserve a read has not"
    );
}

#[test]
fn tokens_spent_alone_are_told_by_one_visit_and_again_only_if_it_went_unanswered() {
    let mut b = realm();
    let mut contacts = Contacts::default();
    contacts.answered(&mut b, "s", None, CONTACT_MS, 0, WALL);
    assert!(contacts.unreachable());
    b.admit(&ask(0)).unwrap();
    b.admit(&ask(0)).unwrap();
    assert_eq!(b.spent_alone("s"), 2, "two tokens of its own bucket");
    let at = retryline::budget::contact::RETRY_MS;
    let told = contacts.before(&mut b, &ask(5000), at, WALL + at, 8000).expect("a background visit");
    assert_eq!(told.spent, 2);
    assert_eq!(b.spent_alone("s"), 0, "on their way: another visit does not tell them too");
    contacts.answered(&mut b, "s", None, CONTACT_MS, at + CONTACT_MS, WALL + at + CONTACT_MS);
    assert_eq!(b.spent_alone("s"), 2, "unanswered: the next visit tells them");
    let again = 2 * at + CONTACT_MS;
    let told = contacts.before(&mut b, &ask(again + 5000), again, WALL + again, again + 8000).expect("a visit");
    assert_eq!(told.spent, 2);
    contacts.answered(&mut b, "s", Some([0, 0, 0, 0, 0, 0, 4]), 5, again + 5, WALL + again + 5);
    assert_eq!(b.spent_alone("s"), 0, "heard: told once");
}
