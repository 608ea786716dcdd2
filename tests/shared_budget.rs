//! A budget's state carried between realms whose monotonic clocks have different origins
//! (`Budget::export` / `import`): what sharing a budget across tabs or isolates rests on.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::budget;
use retryline::budget::Ask;
use retryline::{Budget, Priority};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

fn ask(earliest: u64, retry: bool) -> Ask<'static> {
    Ask { scope: "s", weight: 1, priority: Priority::Read, retry, after_timeout: false, earliest, latest: u64::MAX }
}

/// Sends at once if a token is there: admit, and dispatch when the grant starts now.
fn send_now(b: &mut Budget, now: u64, retry: bool) -> bool {
    match b.admit(&ask(now, retry)) {
        Ok(grant) if grant.start_at <= now => b.dispatch("s", grant, now).is_ok(),
        Ok(grant) => {
            b.release("s", grant);
            false
        }
        Err(_) => false,
    }
}

#[test]
fn another_realm_takes_up_tokens_quota_holds_and_bans_at_the_same_wall_instants() {
    let options = json!({ "capacity": 10, "refillPerSecond": 5, "reserve": 0 });
    let mut a = budget(options.clone());
    // Realm A: monotonic 1000 ms is wall WALL.
    for _ in 0..6 {
        assert!(send_now(&mut a, 1000, false));
    }
    assert!(send_now(&mut a, 1000, true), "a retry spends the quota");
    a.hold("s", 3000);
    a.ban("s", 1500);
    let state = a.export(1000, WALL);

    // Realm B: its monotonic clock started long after A's; 100 ms of wall time later.
    let mut b = budget(options);
    b.import(&state, 50_000, WALL + 100);
    let seen = &b.snapshot(50_000, WALL + 100)[0];
    let there = &a.snapshot(1100, WALL + 100)[0];
    assert_eq!(seen.tokens, there.tokens, "the same tokens at the same wall instant");
    assert_eq!(seen.tokens, Some(3));
    assert_eq!(seen.retry_quota.map(|q| q.available), Some(495));
    assert_eq!((seen.hold_remaining_ms, seen.held_until), (1900, Some(WALL + 2000)));
    assert_eq!((seen.ban_remaining_ms, seen.banned_until), (400, Some(WALL + 500)));
    assert_eq!(b.ban_remaining("s", 50_400), 0, "the ban ends at the same wall instant");
}

#[test]
fn realms_taking_turns_through_the_shared_state_never_spend_more_than_one_bucket() {
    // Three realms flood one scope, each step taking up the latest state and handing it on, as
    // tabs under one lock would. Their clocks started at different times.
    let options = json!({ "capacity": 20, "refillPerSecond": 10, "reserve": 0 });
    let origins = [0u64, 7_000, 123_456];
    let mut realms: Vec<Budget> = origins.iter().map(|_| budget(options.clone())).collect();
    let mut state = realms[0].export(origins[0], WALL);
    let mut sent_at: Vec<u64> = Vec::new();
    for tick in 0..3000u64 {
        // Every millisecond of wall time, each realm tries to send.
        let wall = WALL + tick;
        for (i, realm) in realms.iter_mut().enumerate() {
            let now = origins[i] + tick;
            realm.import(&state, now, wall);
            if send_now(realm, now, false) {
                sent_at.push(tick);
            }
            state = realm.export(now, wall);
        }
    }
    // One bucket's worth: 20 at once, then 10 a second — whoever sends.
    for second in 0..3 {
        let in_second = sent_at.iter().filter(|t| **t / 1000 == second).count();
        let allowed = if second == 0 { 20 + 10 } else { 10 };
        assert!(in_second <= allowed, "second {second}: {in_second} sends");
    }
    assert_eq!(sent_at.len(), 20 + 30 - 1, "and the bucket is used to the full: {}", sent_at.len());
}

#[test]
fn a_grant_whose_realm_went_away_is_dropped_once_its_start_has_passed() {
    let mut a = budget(json!({ "capacity": 1, "refillPerSecond": 1, "reserve": 0 }));
    assert!(send_now(&mut a, 0, false));
    let waiting = a.admit(&ask(0, false)).expect("a grant for later");
    assert_eq!(waiting.start_at, 1000);
    let state = a.export(0, WALL);
    let mut b = budget(json!({ "capacity": 1, "refillPerSecond": 1, "reserve": 0 }));
    b.import(&state, 500, WALL + 500);
    assert_eq!(b.snapshot(500, WALL + 500)[0].queued, 1, "still waiting to start");
    b.import(&state, 1500, WALL + 1500);
    assert_eq!(b.snapshot(1500, WALL + 1500)[0].queued, 0, "its start passed: dropped");
}

#[test]
fn the_shared_state_keeps_its_json_form_and_a_bad_one_is_refused() {
    use retryline::budget::shared::SharedState;
    use retryline::json::{to_json, FromLoose};
    let mut a = budget(json!({ "capacity": 5, "refillPerSecond": 1, "usedWeightHeader": "X-W" }));
    assert!(send_now(&mut a, 10, true));
    a.observe_used_weight("s", 3, 20);
    a.admit(&ask(10, false)).expect("a queued grant");
    a.ban("s", 5000);
    a.hold("other", 7000);
    let state = a.export(20, WALL);
    let text = to_json(&state);
    let read_text = |text: &str| SharedState::from_loose(&serde_json::from_str(text).expect("JSON"));
    let read = read_text(&text).expect("read back");
    assert_eq!(read, state, "{text}");
    assert_eq!(read.scopes.len(), 2, "{text}");
    assert!(read.scopes.iter().any(|s| s.meter.is_some() && !s.queued.is_empty()), "{text}");
    // A negative number, a state cut short, one claiming more scopes than it holds, and the
    // object form of an earlier version: each refused as a whole, never half taken up.
    let items: Vec<serde_json::Value> = serde_json::from_str(&text).expect("an array");
    let with = |i: usize, v: serde_json::Value| {
        let mut items = items.clone();
        items[i] = v;
        serde_json::Value::Array(items).to_string()
    };
    assert!(read_text(&with(1, json!(-1))).is_err());
    assert!(read_text(&with(2, json!(1_000))).is_err());
    assert!(read_text(&with(0, json!(1))).is_err());
    assert!(read_text(&serde_json::Value::Array(items[..items.len() - 1].to_vec()).to_string()).is_err());
    assert!(read_text(r#"{"nextGrant":1,"scopes":[]}"#).is_err());
}

#[test]
fn a_breaker_and_many_scopes_cross_in_the_json_form() {
    use retryline::budget::shared::{SharedScope, SharedState};
    use retryline::json::{to_json, FromLoose};
    let scope = |name: &str, breaker| SharedScope {
        scope: name.into(),
        hold_until: WALL + 1,
        ban_until: 0,
        bucket_tat_us: Some(WALL * 1000),
        meter: None,
        quota_available: Some(7),
        queued: vec![(3, WALL + 9), (4, WALL + 10)],
        breaker,
        room: None,
        // A coalesced read on the wire: its 64-bit identity crosses in two halves.
        flights: vec![(0xdead_beef_0123_4567, 11, WALL + 20)],
    };
    let state = SharedState {
        next_grant: 5,
        scopes: vec![scope("a \"quoted\" ñ", Some([1, WALL + 5, 2, 3, 4])), scope("b", None)],
    };
    // The smallest scope there is: its name and ends, no bucket, quota, queued grant or breaker.
    let bare = SharedScope { bucket_tat_us: None, quota_available: None, queued: vec![], ..scope("c", None) };
    let alone = SharedState { next_grant: 0, scopes: vec![bare] };
    assert_eq!(
        SharedState::from_loose(&serde_json::from_str(&to_json(&alone)).expect("JSON")).expect("read back"),
        alone
    );
    let text = to_json(&state);
    assert_eq!(
        SharedState::from_loose(&serde_json::from_str(&text).expect("JSON")).expect("read back"),
        state,
        "{text}"
    );
}
