//! Tokens leased from a coordinator's bucket to many realms (`Budget::lease_out` / `set_lease`):
//! what sharing a budget across edge isolates rests on.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::budget;
use retryline::budget::contact::{Contacts, LEASE_MS};
use retryline::budget::lease::Lease;
use retryline::budget::{Ask, Limit};
use retryline::{Budget, Priority};
use serde_json::json;

fn ask(earliest: u64, latest: u64) -> Ask<'static> {
    Ask { scope: "s", weight: 1, priority: Priority::Read, retry: false, after_timeout: false, earliest, latest }
}

#[test]
fn a_lease_is_the_asked_weight_and_a_small_batch_of_what_is_there_at_the_same_instant() {
    let mut coordinator = budget(json!({ "capacity": 30, "refillPerSecond": 5, "reserve": 0 }));
    let first = coordinator.lease_out("s", 2, Priority::Read, 1000, (0, u64::MAX));
    assert_eq!((first.tokens, first.from), (2 + 3, 1000), "a tenth of the capacity beyond the weight");
    // Lease until the bucket is dry: 30 tokens in all, then the next comes with the refill.
    let mut leased = first.tokens;
    while leased < 30 {
        leased += coordinator.lease_out("s", 1, Priority::Read, 1000, (0, u64::MAX)).tokens;
    }
    assert_eq!(leased, 30);
    let dry = coordinator.lease_out("s", 1, Priority::Read, 1000, (0, u64::MAX));
    assert_eq!((dry.tokens, dry.from), (1, 1200), "one token, when the refill brings it");
    let too_late = coordinator.lease_out("s", 1, Priority::Read, 1000, (0, 1300));
    assert_eq!((too_late.tokens, too_late.from), (0, 1400), "not before the latest start: nothing is taken");
    assert_eq!(coordinator.lease_out("s", 1, Priority::Read, 1000, (0, u64::MAX)).from, 1400);
}

#[test]
fn tokens_returned_from_an_expired_lease_are_the_coordinators_again() {
    let mut coordinator = budget(json!({ "capacity": 10, "refillPerSecond": 1, "reserve": 0 }));
    let mut leased = 0;
    while leased < 10 {
        leased += coordinator.lease_out("s", 1, Priority::Read, 0, (0, u64::MAX)).tokens;
    }
    assert_eq!(coordinator.lease_out("s", 1, Priority::Read, 0, (0, u64::MAX)).from, 1000);
    coordinator.lease_returned("s", 4);
    let again = coordinator.lease_out("s", 1, Priority::Read, 0, (0, u64::MAX));
    assert_eq!((again.tokens, again.from), (2, 0), "the returned tokens are there at once");
}

#[test]
fn a_realm_spends_its_lease_not_its_bucket_and_is_refused_when_it_is_spent() {
    let mut realm = budget(json!({ "capacity": 100, "refillPerSecond": 100 }));
    realm.set_lease("s", Some(Lease { tokens: 2, from: 50, until: 1000 }));
    let first = realm.admit(&ask(10, 5000)).expect("leased");
    assert_eq!(first.start_at, 50, "not before the coordinator had the tokens");
    let second = realm.admit(&ask(60, 5000)).expect("leased");
    assert_eq!(second.start_at, 60);
    assert_eq!(
        realm.admit(&ask(60, 5000)).unwrap_err(),
        Limit::Tokens,
        "the bucket's 100 are not this realm's to spend"
    );
    realm.release("s", second);
    assert_eq!(realm.lease("s").map(|l| l.tokens), Some(1), "a grant never sent goes back to the lease");
    assert_eq!(realm.snapshot(60, 0)[0].tokens, Some(1));
    // After its end its tokens are void: an attempt starting then waits for the next lease.
    let late = realm.admit(&ask(1001, 5000)).expect("granted, its tokens taken when it goes");
    assert_eq!(realm.dispatch("s", late, 1001), Err(200), "void after its end");
    realm.release("s", late);
    realm.set_lease("s", None);
    assert!(realm.admit(&ask(1001, 5000)).is_ok(), "without a lease the realm's own bucket again");
}

#[test]
fn isolates_leasing_from_one_coordinator_never_start_more_than_one_bucket_allows() {
    // Three isolates flood one scope for 10 s, each leasing when its lease is spent or stale,
    // returning what an expired lease left: over any window d, starts ≤ capacity + rate × d.
    let (capacity, rate) = (10u64, 5u64);
    let mut coordinator = budget(json!({ "capacity": capacity, "refillPerSecond": rate, "reserve": 0 }));
    let mut realms: Vec<Budget> =
        (0..3).map(|_| budget(json!({ "capacity": capacity, "refillPerSecond": rate }))).collect();
    let mut starts = Vec::new();
    for now in (0..10_000u64).step_by(7) {
        let realm = &mut realms[(now / 7 % 3) as usize];
        let stale = realm.lease("s").is_none_or(|l| l.tokens == 0 || now >= l.until);
        if stale {
            if let Some(left) = realm.lease("s").filter(|l| now >= l.until && l.tokens > 0) {
                coordinator.lease_returned("s", left.tokens);
            }
            let out = coordinator.lease_out("s", 1, Priority::Read, now, (0, now + 500));
            realm.set_lease("s", Some(Lease { tokens: out.tokens, from: out.from, until: out.from.max(now) + 300 }));
        }
        if let Ok(grant) = realm.admit(&ask(now, now + 500)) {
            starts.push(grant.start_at);
            assert!(realm.dispatch("s", grant, grant.start_at).is_ok());
        }
    }
    starts.sort_unstable();
    assert!(starts.len() as u64 >= capacity + rate * 9, "the bucket was used: {}", starts.len());
    for (i, &at) in starts.iter().enumerate() {
        let within = starts[i..].iter().take_while(|&&t| t < at + 1000).count() as u64;
        assert!(within <= capacity + rate, "{within} starts in the second from {at} ms");
    }
}

#[test]
fn a_retry_that_sleeps_past_a_lease_gets_one_that_starts_when_it_wakes() {
    // A 503 at 0 with a 1 s wait: the retry's tokens are asked for its start at 1000, not now, so
    // the lease (good for LEASE_MS from its start) is not over before the retry is sent.
    let mut coordinator = budget(json!({ "capacity": 30, "refillPerSecond": 5, "reserve": 0 }));
    let mut realm = budget(json!({ "capacity": 30, "refillPerSecond": 5 }));
    let mut contacts = Contacts::default();
    let (wall, retry) = (1_700_000_000_000u64, ask(1000, 5000));
    let visit = contacts.before(&mut realm, &retry, 0, wall, 8000).expect("the realm has no lease: it visits");
    assert_eq!((visit.weight, visit.earliest_wall, visit.latest_wall), (1, wall + 1000, wall + 5000));
    let to_mono = |at: u64| at - wall;
    let out = coordinator.lease_out(
        "s",
        visit.weight,
        visit.priority,
        0,
        (to_mono(visit.earliest_wall), to_mono(visit.latest_wall)),
    );
    assert_eq!(out.from, 1000, "leased from the retry's start");
    contacts.answered(&mut realm, "s", Some([out.tokens, wall + out.from, 0, 0, 0, 0, 0]), 3, 3, wall + 3);
    assert_eq!(realm.lease("s").map(|l| (l.from, l.until)), Some((1000, 1000 + LEASE_MS)));
    let grant = realm.admit(&retry).expect("the retry is granted, not refused \"budget\"");
    assert_eq!(grant.start_at, 1000);
    // An attempt that starts at once still finds room in a lease that starts now.
    let now = ask(0, 5000);
    let visit = contacts
        .before(&mut budget(json!({ "capacity": 30, "refillPerSecond": 5 })), &now, 0, wall, 8000)
        .expect("a visit");
    assert_eq!(visit.earliest_wall, wall);
}

#[test]
fn a_retry_planned_past_its_lease_takes_its_tokens_from_the_lease_it_holds_when_it_goes() {
    // A lease good until 200; a retry planned at 0 to start at 1000 (a 1 s Retry-After).
    let mut realm = budget(json!({ "capacity": 30, "refillPerSecond": 5, "retryQuota": false }));
    realm.set_lease("s", Some(Lease { tokens: 5, from: 0, until: LEASE_MS }));
    let grant = realm.admit(&ask(1000, 5000)).expect("granted, not refused \"budget\"");
    assert_eq!(grant.start_at, 1000);
    assert_eq!(realm.lease("s").map(|l| l.tokens), Some(5), "nothing is taken from a lease that ends before the start");
    // On waking, the old lease is over: not sent until a new lease has the tokens.
    assert_eq!(realm.dispatch("s", grant, 1000), Err(200), "tried again after the next visit");
    realm.set_lease("s", Some(Lease { tokens: 3, from: 1000, until: 1000 + LEASE_MS }));
    assert_eq!(realm.dispatch("s", grant, 1000), Ok(()));
    assert_eq!(realm.lease("s").map(|l| l.tokens), Some(2), "its weight came from the new lease");
    // A lease whose tokens start later: the attempt waits for them.
    let later = realm.admit(&ask(1300, 5000)).expect("deferred");
    realm.set_lease("s", Some(Lease { tokens: 1, from: 1450, until: 1450 + LEASE_MS }));
    assert_eq!(realm.dispatch("s", later, 1300), Err(150));
    // The coordinator unreachable, the lease dropped: the realm's own bucket pays.
    let own = realm.admit(&ask(2000, 5000)).expect("deferred");
    realm.set_lease("s", None);
    assert_eq!(realm.dispatch("s", own, 2000), Ok(()));
    assert_eq!(realm.snapshot(2000, 0)[0].tokens, Some(29));
}
