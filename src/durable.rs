//! Keyed operations in a shared store: who may run a key, and when another process may
//! take it over.
//!
//! A saved operation carries its owner and a lease. The owner renews the lease at every
//! save (before each send and each sleep, after each attempt), so it always covers what
//! the owner is about to do: until a planned wake, or until an attempt in flight has
//! timed out, plus [`LEASE_GRACE_MS`]. Another client that finds a live lease on a
//! sleeping operation waits for it once; if it was not renewed meanwhile, the owner is
//! gone (a killed worker) and the operation is resumed with its attempt count and its
//! original expiry. A live lease on an attempt in flight is refused at once (the owner is
//! at work). A key whose order ended with an unknown outcome is refused until reconciled.

use serde::{Deserialize, Serialize};

use crate::machine::Operation;
use crate::reconcile::Evidence;
use crate::state::{OperationState, PhaseState};

/// Slack added to every lease, for the owner's own scheduling delays.
pub const LEASE_GRACE_MS: u64 = 1000;

/// What a store keeps under an operation's key (camelCase JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Saved {
    /// The client that runs the operation.
    pub owner: String,
    /// Until when (wall-clock Unix ms) the owner is presumed alive.
    pub lease_until_ms: u64,
    /// Reconciliation was exhausted without evidence that settles the outcome.
    #[serde(default)]
    pub escalated: bool,
    /// The last evidence a status query returned.
    #[serde(default)]
    pub last_evidence: Option<Evidence>,
    /// The operation itself, as durable state.
    pub state: OperationState,
}

/// What a client may do with a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// Nothing runs under the key: begin a new operation.
    Fresh,
    /// Its owner is gone: resume it.
    Resume(Box<OperationState>),
    /// Another owner's lease is live until then (wall ms): wait once, then look again.
    WaitUntil(u64),
    /// Refused without touching the wire.
    Refuse(Refusal),
}

/// Why a client may not run a key now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// An order under this key may have executed: reconcile it first.
    Unresolved,
    /// Another client is running this key.
    InUse,
}

/// Decides what `me` may do with what the store holds, at wall-clock `wall_now`. A live lease is
/// refused to its own owner (it is running the key); an expired one is resumed by anyone, its
/// owner included.
/// `latest_start` (wall ms) is when the caller's own operation must have sent to finish in
/// time: a lease that outlives it is refused at once instead of being waited for.
pub fn claim(saved: Option<Saved>, me: &str, wall_now: u64, latest_start: u64) -> Claim {
    let Some(saved) = saved else { return Claim::Fresh };
    if saved.state.unresolved {
        return Claim::Refuse(Refusal::Unresolved);
    }
    if let PhaseState::Stopped { .. } = saved.state.phase {
        return Claim::Fresh;
    }
    if wall_now < saved.lease_until_ms {
        // Its own owner is running it: neither resumed twice nor waited for (it would wait on itself).
        if saved.owner == me {
            return Claim::Refuse(Refusal::InUse);
        }
        // An attempt in flight is the owner at work: refuse at once. A sleep may be a dead
        // owner's: wait for the lease once (unless it outlives either operation's time).
        let sleeping = matches!(saved.state.phase, PhaseState::Sleeping { .. });
        let worth_waiting =
            saved.lease_until_ms < saved.state.expires_at_wall_ms && saved.lease_until_ms <= latest_start;
        return if sleeping && worth_waiting {
            Claim::WaitUntil(saved.lease_until_ms)
        } else {
            Claim::Refuse(Refusal::InUse)
        };
    }
    // The lease is over: its owner is gone, even when it is `me` come back (a restarted worker
    // that kept its id), and the operation resumes where it was.
    Claim::Resume(Box::new(saved.state))
}

/// The lease an owner writes with `state`, saved at `wall_now`.
pub fn lease_until(state: &OperationState, wall_now: u64) -> u64 {
    let busy_until = match &state.phase {
        PhaseState::Sleeping { wake_at_wall_ms, .. } => *wake_at_wall_ms,
        PhaseState::InFlight { .. } => wall_now.saturating_add(state.policy.attempt_timeout_ms()),
        PhaseState::Idle => wall_now,
        PhaseState::Stopped { .. } => return 0,
    };
    busy_until.saturating_add(LEASE_GRACE_MS)
}

impl Saved {
    /// Its owner is still running it (not unresolved, not stopped).
    pub fn is_running(&self) -> bool {
        !self.state.unresolved && !matches!(self.state.phase, PhaseState::Stopped { .. })
    }

    /// What `owner` saves for `op` at monotonic `now`, wall clock `wall_now`.
    pub fn of(op: &Operation, owner: &str, now: u64, wall_now: u64, budget: &crate::Budget) -> Saved {
        let state = op.snapshot(now, wall_now, budget);
        Saved {
            owner: owner.to_owned(),
            lease_until_ms: lease_until(&state, wall_now),
            escalated: false,
            last_evidence: None,
            state,
        }
    }
}
