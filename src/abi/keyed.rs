//! A keyed operation's life in the glue's store: claimed before it starts, saved before every send
//! and sleep, kept while unresolved, deleted when it ends. The store calls are the glue's; who may
//! run the key, and what is saved, are decided here.

use super::errors::failure_json;
use super::io::{self, with_input};
use super::ms;
use super::state::{with_op, OPS};
use crate::durable::{self, Claim, Refusal, Saved};
use crate::failure::{refusal_detail, Note};
use crate::input::{At, Invalid, Loose};
use crate::json::{to_json, FromLoose};
use crate::machine::Operation;
use crate::reason::Reason;
use crate::text::join;

/// What a store holds under `key` (wire form read, or absent); `Err` when it is unreadable, with
/// the output saying why.
pub fn read_saved(stored: Result<Loose, Invalid>, key: &str) -> Result<Option<Saved>, ()> {
    match stored.and_then(|v| if v.is_absent() { Ok(None) } else { Saved::read_loose(&v).map(Some) }) {
        Ok(saved) => Ok(saved),
        Err(e) => {
            io::output(join(&["the stored state of key \"", key, "\" is unreadable: ", &e.at("state").message()]));
            Err(())
        }
    }
}

/// What `me` (the input's first string) may do with the state stored under the call's key (the
/// second, in wire form; absent if the store had none). `waited`: 1 if it already waited once for
/// another owner's lease. Returns 0 to begin afresh, 1 resumed (numbers: how many of its records
/// were already reported), 2 wait for a lease (numbers: until, wall ms), 3 refused as unresolved,
/// 4 refused as in use, 5 the state is unreadable, 6 it cannot be resumed (5 and 6: the output
/// says why; the store keeps the value).
#[no_mangle]
pub extern "C" fn rl_op_claim(handle: u32, me: u32, state: u32, now: f64, wall: f64, waited: u32) -> u32 {
    let (now, wall) = (ms(now), ms(wall));
    with_input(|input| {
        let me = input.text(me);
        let stored = input.wire(state);
        with_op(handle, |slot, _, budget| {
            let key = slot.op.key().unwrap_or_default().to_owned();
            let Ok(saved) = read_saved(stored, &key) else { return 5 };
            let records = saved.as_ref().map(|s| s.state.records.clone()).unwrap_or_default();
            let latest_start = slot.op.deadline_at().saturating_sub(slot.op.policy().admission_ms());
            let latest_start_wall = wall.saturating_add(latest_start.saturating_sub(now));
            let refused = |slot: &mut super::state::Op, code| {
                slot.refused_records = records.clone();
                code
            };
            match durable::claim(saved, me, wall, latest_start_wall) {
                Claim::Fresh => 0,
                Claim::WaitUntil(_) if waited == 1 => refused(slot, 4),
                Claim::WaitUntil(until) => {
                    io::numbers(&[until as f64]);
                    2
                }
                Claim::Refuse(Refusal::Unresolved) => refused(slot, 3),
                Claim::Refuse(Refusal::InUse) => refused(slot, 4),
                Claim::Resume(state) => {
                    let deadline = slot.op.deadline_at();
                    match Operation::restore(*state, now, wall, budget) {
                        Ok(mut op) => {
                            op.limit_deadline(deadline);
                            // Its earlier records were reported by the process that made them.
                            io::numbers(&[op.records().len() as f64]);
                            slot.op = op;
                            slot.resumed = true;
                            1
                        }
                        Err(e) => {
                            io::output(join(&[
                                "the stored state of key \"",
                                &key,
                                "\" cannot be resumed: ",
                                &e.message(),
                            ]));
                            6
                        }
                    }
                }
            }
        })
        .unwrap_or(0)
    })
}

/// The error of a key refused by [`rl_op_claim`] (`refusal` 3 or 4): reason `unknown-outcome`,
/// the saved operation's records, a message that says what to do.
#[no_mangle]
pub extern "C" fn rl_op_refusal(handle: u32, refusal: u32) {
    let json = OPS.with(|ops| {
        let slot = ops.get(handle)?;
        let refusal = if refusal == 3 { Refusal::Unresolved } else { Refusal::InUse };
        let detail = refusal_detail(refusal, slot.op.key().unwrap_or_default());
        Some(failure_json(slot, Reason::UnknownOutcome, &slot.refused_records, Some(&detail), &Note::None))
    });
    io::output(json.unwrap_or_default());
}

/// What `owner` (input) saves under the key now: JSON, with a lease that covers what the
/// operation is about to do.
#[no_mangle]
pub extern "C" fn rl_op_save(handle: u32, owner: u32, now: f64, wall: f64) {
    let json = with_input(|input| {
        let owner = input.text(owner);
        with_op(handle, |slot, _, budget| to_json(&Saved::of(&slot.op, owner, ms(now), ms(wall), budget)))
    });
    io::output(json.unwrap_or_default());
}

/// 1 if the operation ended with an order whose outcome is unknown (the store keeps it), else 0
/// (its key is deleted).
#[no_mangle]
pub extern "C" fn rl_op_unresolved(handle: u32) -> u32 {
    OPS.with(|ops| ops.get(handle).map_or(0, |slot| u32::from(slot.op.is_unresolved())))
}
