//! A budget carried between realms (tabs and workers of one origin): the glue holds the share's
//! Web Lock around each budget step, reads the state from IndexedDB before it and writes it after.

use super::io::{self, with_input};
use super::ms;
use super::state::{BUDGETS, OPS};
use crate::budget::shared::SharedState;
use crate::json::{to_json, FromLoose};

/// The budget's state, in wall-clock time, as JSON.
#[no_mangle]
pub extern "C" fn rl_budget_export(handle: u32, now: f64, wall: f64) {
    let json = BUDGETS.with(|b| b.get(handle).map(|b| to_json(&b.export(ms(now), ms(wall)))));
    io::output(json.unwrap_or_default());
}

/// Takes up a state another realm exported (input: wire form); an unreadable one is ignored
/// (returns 0), as a state this build cannot read would be.
#[no_mangle]
pub extern "C" fn rl_budget_import(handle: u32, state: u32, now: f64, wall: f64) -> u32 {
    with_input(|input| {
        let Ok(state) = input.wire(state).and_then(|s| SharedState::read_loose(&s)) else { return 0 };
        BUDGETS.with(|b| match b.get_mut(handle) {
            Some(budget) => {
                budget.import(&state, ms(now), ms(wall));
                1
            }
            None => 0,
        })
    })
}

/// The wall-clock ends (Unix ms, 0: none) of the hold and ban on an operation's scope, as numbers:
/// a later one after a step is news for the share's sleepers.
#[no_mangle]
pub extern "C" fn rl_op_waits(handle: u32, now: f64, wall: f64) {
    let waits = OPS.with(|ops| {
        let slot = ops.get(handle)?;
        BUDGETS.with(|b| b.get(slot.budget).map(|b| b.waits_wall(slot.op.scope(), ms(now), ms(wall))))
    });
    let (hold, ban) = waits.unwrap_or((0, 0));
    io::numbers(&[hold as f64, ban as f64]);
}
