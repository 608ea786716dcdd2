//! A breaker kept with a coordinator, on the virtual clock: two realms and the scope's authority,
//! visited as the shell would visit it. An opening in one realm reaches the other; when both are
//! half-open one probe goes among them; its success closes the other too; a failed probe opens
//! them again; a coordinator without a breaker leaves each realm its own.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use retryline::budget::breaker_shared::{PROBE_ASK, PROBE_CLOSED, PROBE_HOLD_MS, PROBE_NONE};
use retryline::budget::contact::{Contacts, Visit};
use retryline::budget::{Ask, BudgetConfig};
use retryline::{Budget, Draws, Loose, Priority};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn budget(breaker: bool) -> Budget {
    let options = match breaker {
        true => {
            json!({ "retryQuota": false, "breaker": { "consecutiveFailures": 1, "openMs": 1000, "maxOpenMs": 1000 } })
        }
        false => json!({ "retryQuota": false }),
    };
    let options: Loose = serde_json::from_value(options).unwrap();
    Budget::new(BudgetConfig::from_options(&options).unwrap())
}

fn ask(now: u64) -> Ask<'static> {
    Ask {
        scope: "s",
        weight: 1,
        priority: Priority::Read,
        retry: false,
        after_timeout: false,
        earliest: now,
        latest: now + 5000,
    }
}

/// One realm: its budget and what it knows of the coordinator. Both realms share one clock here.
struct Realm {
    budget: Budget,
    contacts: Contacts,
}

impl Realm {
    fn new() -> Realm {
        Realm { budget: budget(true), contacts: Contacts::default() }
    }
    /// The visit before a step, made and taken up: what the realm said.
    fn before(&mut self, authority: &mut Budget, now: u64) -> Option<Visit> {
        let visit = self.contacts.before(&mut self.budget, &ask(now), now, WALL + now, now + 10_000)?;
        self.take(authority, visit, now);
        Some(visit)
    }
    /// The visit after a step (news of a hold, a ban, the breaker), made and taken up.
    fn after(&mut self, authority: &mut Budget, now: u64) -> Option<Visit> {
        let visit = self.contacts.after(&mut self.budget, "s", Priority::Read, now, WALL + now, now + 10_000)?;
        self.take(authority, visit, now);
        Some(visit)
    }
    fn take(&mut self, authority: &mut Budget, v: Visit, now: u64) {
        let wall = WALL + now;
        let out = authority.lease_out("s", v.weight.max(1), v.priority, now, (now, now + 5000));
        let (open, probe) = authority.breaker_visited("s", v.breaker_wall, v.probe, now, wall);
        let (hold, ban) = authority.waits_wall("s", now, wall);
        let answer = [out.tokens, wall + out.from.saturating_sub(now), hold, ban, open, probe, 0];
        self.contacts.answered(&mut self.budget, "s", Some(answer), 1, now, wall);
    }
    fn fail(&mut self, now: u64) {
        self.budget.breaker_observe("s", now, true, Draws::seeded(now).rng());
    }
    fn state(&self, now: u64) -> &'static str {
        self.budget.snapshot(now, WALL + now).iter().find(|s| s.scope == "s").and_then(|s| s.breaker).unwrap_or("none")
    }
}

#[test]
fn an_opening_reaches_the_other_realm_and_one_probe_goes_among_them() {
    let mut authority = budget(true);
    let (mut a, mut b) = (Realm::new(), Realm::new());
    a.before(&mut authority, 0);
    b.before(&mut authority, 0);
    a.fail(10);
    let told = a.after(&mut authority, 10).expect("the opening is news");
    assert!(told.breaker_wall > WALL + 10, "{told:?}");
    // B's next step hears of it (its news is older than FRESH_MS) and refuses with A's end.
    b.before(&mut authority, 100).expect("a visit for fresh news");
    assert_eq!((a.state(100), b.state(100)), ("open", "open"));
    assert!(b.budget.breaker_open_ms("s", 100) > 0);

    // Both half-open after at most 1 s: A asks first and gets the slot; B is held open meanwhile.
    let now = 1600;
    let asked = a.before(&mut authority, now).expect("a half-open breaker asks for the probe");
    assert_eq!(asked.probe, PROBE_ASK);
    assert!(a.budget.breaker_admit("s", now, false, 1000).is_ok(), "A's probe goes");
    let asked = b.before(&mut authority, now + 1).expect("B asks too");
    assert_eq!(asked.probe, PROBE_ASK);
    assert_eq!(b.state(now + 1), "open", "B is held open while A's probe is out");
    assert!(b.budget.breaker_open_ms("s", now + 1) > PROBE_HOLD_MS - 100);

    // A's probe succeeds: it closes, tells the coordinator, and B hears it on its next visit.
    a.budget.breaker_observe("s", now + 50, false, Draws::seeded(1).rng());
    let closed = a.after(&mut authority, now + 50).expect("a probe that closed the breaker is news");
    assert_eq!(closed.probe, PROBE_CLOSED);
    assert_eq!(authority.snapshot(now + 50, WALL)[0].breaker, Some("closed"));
    let heard = b.before(&mut authority, now + 200).expect("fresh news");
    assert_eq!(heard.breaker_wall, 0, "B does not tell the hold it took up as its own opening");
    assert_eq!((a.state(now + 200), b.state(now + 200)), ("closed", "closed"));
}

#[test]
fn a_failed_probe_opens_every_realm_again() {
    let mut authority = budget(true);
    let (mut a, mut b) = (Realm::new(), Realm::new());
    a.before(&mut authority, 0);
    b.before(&mut authority, 0);
    a.fail(10);
    a.after(&mut authority, 10);
    b.before(&mut authority, 100);
    let now = 1600;
    assert_eq!(a.before(&mut authority, now).map(|v| v.probe), Some(PROBE_ASK));
    assert!(a.budget.breaker_admit("s", now, false, 1000).is_ok());
    // A grant is kept while the probe is out: a visit meanwhile does not open A against its own probe.
    a.before(&mut authority, now + 60);
    assert_eq!(a.state(now + 60), "half-open");
    a.fail(now + 100);
    let told = a.after(&mut authority, now + 100).expect("the new opening is news");
    assert!(told.breaker_wall > WALL + now + 100);
    b.before(&mut authority, now + 200);
    assert_eq!((a.state(now + 200), b.state(now + 200)), ("open", "open"));
    // Until A's new end, not the probe's hold: the next probe is not put off by PROBE_HOLD_MS.
    let left = b.budget.breaker_open_ms("s", now + 200);
    assert!((1..=1000).contains(&left), "{left}");
    assert_eq!(authority.breaker_open_ms("s", now + 200), left);
    // The grant ended with its probe: half-open again, A asks for the slot anew.
    assert_eq!(a.before(&mut authority, now + 1300).map(|v| v.probe), Some(PROBE_ASK));
    assert_eq!(a.state(now + 1300), "half-open");
}

#[test]
fn a_coordinator_without_a_breaker_leaves_each_realm_its_own() {
    let mut authority = budget(false);
    let (mut a, mut b) = (Realm::new(), Realm::new());
    a.before(&mut authority, 0);
    a.fail(10);
    a.after(&mut authority, 10);
    b.before(&mut authority, 100);
    assert_eq!((a.state(100), b.state(100)), ("open", "closed"));
    // Half-open, A asks; the answer neither grants nor refuses: A's own probe goes.
    let v = a.before(&mut authority, 1600).expect("a visit");
    assert_eq!(v.probe, PROBE_ASK);
    assert_eq!(authority.breaker_visited("s", 0, PROBE_ASK, 1600, WALL + 1600), (0, PROBE_NONE));
    assert!(a.budget.breaker_admit("s", 1600, false, 1000).is_ok());
}

#[test]
fn a_closed_coordinator_does_not_reset_a_realm_counting_its_failures() {
    let options: Loose =
        serde_json::from_value(json!({ "retryQuota": false, "breaker": { "consecutiveFailures": 3 } })).unwrap();
    let config = BudgetConfig::from_options(&options).unwrap();
    let mut authority = Budget::new(config.clone());
    let mut a = Realm { budget: Budget::new(config), contacts: Contacts::default() };
    for i in 0..3 {
        // Every visit answers "closed": the realm's run of failures goes on all the same.
        a.before(&mut authority, i * 100);
        a.fail(i * 100 + 10);
        a.after(&mut authority, i * 100 + 10);
    }
    assert_eq!(a.state(300), "open");
    assert_eq!(authority.snapshot(300, WALL)[0].breaker, Some("open"));
}

#[test]
fn a_realm_new_to_the_scope_takes_the_probe_or_waits_for_it() {
    let mut authority = budget(true);
    let mut a = Realm::new();
    a.before(&mut authority, 0);
    a.fail(10);
    a.after(&mut authority, 10);
    // Two realms with closed breakers of their own come once the coordinator's is half-open.
    let (mut c, mut d) = (Realm::new(), Realm::new());
    assert_eq!(c.before(&mut authority, 1600).map(|v| v.probe), Some(PROBE_ASK));
    assert_eq!(c.state(1600), "half-open", "granted: its next attempt is the probe");
    assert!(c.budget.breaker_admit("s", 1600, false, 1000).is_ok());
    d.before(&mut authority, 1601);
    assert_eq!(d.state(1601), "open", "the other waits for the probe");
    // A realm whose breaker is open asks nothing: its visits carry no probe.
    assert_eq!(d.before(&mut authority, 1700).map(|v| v.probe), Some(PROBE_NONE));
}

#[test]
fn the_coordinator_grants_only_who_asks_and_an_end_now_opens_nothing() {
    let mut authority = budget(true);
    // Closed: an opening that ends now is no opening.
    assert_eq!(authority.breaker_visited("s", WALL + 100, PROBE_NONE, 100, WALL + 100), (0, PROBE_CLOSED));
    let (open, probe) = authority.breaker_visited("s", WALL + 1100, PROBE_NONE, 100, WALL + 100);
    assert_eq!((open, probe), (WALL + 1100, PROBE_NONE));
    // Half-open: a visit that does not ask is not granted the slot, and leaves it for one that asks.
    assert_eq!(authority.breaker_visited("s", 0, PROBE_NONE, 1200, WALL + 1200), (0, PROBE_NONE));
    assert_eq!(authority.snapshot(1200, WALL + 1200)[0].breaker, Some("half-open"));
    assert_eq!(authority.breaker_visited("s", 0, PROBE_ASK, 1201, WALL + 1201), (0, PROBE_ASK));
    assert_eq!(authority.breaker_visited("s", 0, PROBE_ASK, 1202, WALL + 1202).1, PROBE_NONE, "one grant");
}
