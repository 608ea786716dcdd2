//! A saved key's own owner, back after its lease expired (a restarted worker that kept its client
//! id), resumes it as any other client would; while its lease is live it is running the key itself.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{begin, unlimited};
use retryline::durable::{claim, Claim, Refusal, Saved};
use retryline::state::PhaseState;
use retryline::{Draws, OperationKind, Outcome};
use serde_json::json;

const WALL: u64 = 1_767_225_600_000;

/// Owner `a`'s read, saved at 100 ms: sleeping 1 s after a 503, or (`None`) with its first attempt in flight.
fn saved(outcome: Option<Outcome>) -> Saved {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![1000], 1));
    let mut op = begin(json!({ "attemptTimeoutMs": 100, "deadlineMs": 10000 }), OperationKind::Read, "s", 0);
    op.start(0, &mut draws, &mut budget);
    if let Some(outcome) = outcome {
        op.on_outcome(100, WALL + 100, &outcome, &mut draws, &mut budget);
    }
    Saved::of(&op, "a", 100, WALL + 100, &budget)
}

#[test]
fn the_owner_resumes_its_own_key_once_its_lease_has_expired() {
    for s in [saved(Some(Outcome::response(503))), saved(None)] {
        let end = s.lease_until_ms;
        let Claim::Resume(state) = claim(Some(s.clone()), "a", end, u64::MAX) else {
            panic!("the owner's lease ended at {end}: {:?}", claim(Some(s), "a", end, u64::MAX))
        };
        assert_eq!(*state, s.state, "with its attempt count and its original expiry");
        assert!(matches!(claim(Some(s.clone()), "b", end, u64::MAX), Claim::Resume(_)), "as another client would");
    }
}

#[test]
fn the_owner_is_refused_its_own_key_while_its_lease_is_live() {
    for s in [saved(Some(Outcome::response(503))), saved(None)] {
        let end = s.lease_until_ms;
        let sleeping = matches!(s.state.phase, PhaseState::Sleeping { .. });
        // It is running the key: not resumed twice, and not waited for (that would be waiting on itself).
        assert_eq!(claim(Some(s.clone()), "a", end - 1, u64::MAX), Claim::Refuse(Refusal::InUse), "{sleeping}");
        assert_eq!(claim(Some(s.clone()), "a", WALL + 100, u64::MAX), Claim::Refuse(Refusal::InUse));
    }
}
