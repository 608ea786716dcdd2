//! A keyed operation's life in the store: claimed before it starts, saved before every
//! send and sleep, kept while unresolved, deleted when it ends.

use std::cell::RefCell;

use crate::budget::Budget;
use crate::durable::{self, Claim, Refusal, Saved};
use crate::json::{to_json, FromLoose};
use crate::machine::Operation;
use crate::record::{AttemptRecord, Pending};
use crate::state::OperationState;
use crate::text;
use crate::web::platform::clock;
use crate::web::platform::loose::loose;
use crate::web::platform::race::Race;
use crate::web::platform::store::{Fault, Store};

/// One key of a store, and the client that would own it.
pub struct Keyed<'a> {
    pub store: &'a Store,
    pub key: &'a str,
    pub owner: &'a str,
}

/// What the caller may do with the key.
pub enum Claimed {
    Fresh,
    Resume(Box<OperationState>),
    Refused(Refusal, Vec<AttemptRecord>),
}

impl Keyed<'_> {
    /// What the store holds under the key; a value this build cannot read is a fault that
    /// leaves it in place (nothing is overwritten).
    pub async fn load(&self, race: &Race) -> Result<Option<Saved>, Fault> {
        let Some(value) = self.store.get(self.key, race).await? else { return Ok(None) };
        let unreadable = |detail: String| Fault::Failed {
            pending: Pending::StoreGet,
            detail: text::join(&["the stored state of key \"", self.key, "\" is unreadable: ", &detail]),
        };
        let value = loose(&value, "state").map_err(|e| unreadable(e.message()))?;
        Saved::from_loose(&value).map(Some).map_err(|e| unreadable(e.within("state").message()))
    }

    /// Claims the key, waiting once for another owner's live lease if it ends by
    /// `latest_start_wall` (when the caller's own operation must have sent).
    pub async fn claim(&self, race: &Race, latest_start_wall: u64) -> Result<Claimed, Fault> {
        let mut waited = false;
        loop {
            let saved = self.load(race).await?;
            let records = saved.as_ref().map(|s| s.state.records.clone()).unwrap_or_default();
            match durable::claim(saved, self.owner, clock::wall_now(), latest_start_wall) {
                Claim::Fresh => return Ok(Claimed::Fresh),
                Claim::Resume(state) => return Ok(Claimed::Resume(state)),
                Claim::Refuse(refusal) => return Ok(Claimed::Refused(refusal, records)),
                Claim::WaitUntil(_) if waited => return Ok(Claimed::Refused(Refusal::InUse, records)),
                Claim::WaitUntil(wall) => {
                    let lease_left = wall.saturating_sub(clock::wall_now());
                    race.sleep(lease_left).await.map_err(|cut| Fault::Cut { pending: Pending::Lease, cut })?;
                    waited = true;
                }
            }
        }
    }

    /// Saves the operation with a lease that covers what it is about to do.
    pub async fn save(&self, op: &Operation, budget: &RefCell<Budget>, race: &Race) -> Result<(), Fault> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let saved = Saved::of(op, self.owner, now, wall, &budget.borrow());
        self.store.set(self.key, to_json(&saved), race).await
    }

    /// The operation ended: an unresolved order stays (refusing the key), anything else is removed.
    pub async fn finish(&self, op: &Operation, budget: &RefCell<Budget>, race: &Race) -> Result<(), Fault> {
        if op.is_unresolved() {
            self.save(op, budget, race).await
        } else {
            self.store.delete(self.key, race).await
        }
    }
}
