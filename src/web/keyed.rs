//! A keyed operation's life in the store: claimed before it starts, saved before every
//! send and sleep, kept while unresolved, deleted when it ends.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::abort::AbortWatch;
use super::clock;
use super::error::type_error;
use super::store::Store;
use super::timer;
use super::to_js;
use super::value::loose;
use crate::budget::Budget;
use crate::durable::{self, Claim, Refusal, Saved};
use crate::machine::Operation;
use crate::record::AttemptRecord;
use crate::state::OperationState;

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
    Aborted,
}

impl Keyed<'_> {
    /// What the store holds under the key; a value this build cannot read is an error that
    /// leaves it in place (nothing is overwritten).
    pub async fn load(&self) -> Result<Option<Saved>, JsValue> {
        let Some(value) = self.store.get(self.key).await? else { return Ok(None) };
        let saved = loose(&value)
            .read::<Saved>()
            .map_err(|e| type_error(&format!("the stored state of key \"{}\" is unreadable: {e}", self.key)))?;
        Ok(Some(saved))
    }

    /// Claims the key, waiting once for another owner's live lease.
    pub async fn claim(&self, abort: &AbortWatch) -> Result<Claimed, JsValue> {
        let mut waited = false;
        loop {
            let saved = self.load().await?;
            let records = saved.as_ref().map(|s| s.state.records.clone()).unwrap_or_default();
            match durable::claim(saved, self.owner, clock::wall_now()) {
                Claim::Fresh => return Ok(Claimed::Fresh),
                Claim::Resume(state) => return Ok(Claimed::Resume(state)),
                Claim::Refuse(refusal) => return Ok(Claimed::Refused(refusal, records)),
                Claim::WaitUntil(_) if waited => return Ok(Claimed::Refused(Refusal::InUse, records)),
                Claim::WaitUntil(wall) => {
                    if !timer::sleep(wall.saturating_sub(clock::wall_now()), abort).await {
                        return Ok(Claimed::Aborted);
                    }
                    waited = true;
                }
            }
        }
    }

    /// Saves the operation with a lease that covers what it is about to do.
    pub async fn save(&self, op: &Operation, budget: &RefCell<Budget>) -> Result<(), JsValue> {
        let saved = Saved::of(op, self.owner, clock::now(), clock::wall_now(), &budget.borrow());
        self.store.set(self.key, &to_js(&saved)?).await
    }

    /// The operation ended: an unresolved order stays (refusing the key), anything else is removed.
    pub async fn finish(&self, op: &Operation, budget: &RefCell<Budget>) -> Result<(), JsValue> {
        if op.is_unresolved() {
            self.save(op, budget).await
        } else {
            self.store.delete(self.key).await
        }
    }
}
