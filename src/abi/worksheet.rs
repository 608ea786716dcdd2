//! The worksheet row of a call the glue began without sending it (a family's options, or the
//! client's defaults): what it would decide, as JSON in the output.

use super::call::CALLS;
use super::io;
use super::state::BUDGETS;
use crate::json::to_json;
use crate::worksheet::Plan;

/// The plan of call `handle` (see [`Plan`]); the output is its JSON, empty if it is gone.
#[no_mangle]
pub extern "C" fn rl_call_plan(handle: u32) {
    let json = CALLS.with(|calls| {
        let slot = calls.get(handle)?;
        let op = slot.call.operation();
        BUDGETS.with(|budgets| {
            let budget = budgets.get(slot.budget)?;
            let start = &op.start;
            Some(to_json(&Plan::of(op.policy(), start.kind, start.priority, op.scope(), start.weight, budget)))
        })
    });
    io::output(json.unwrap_or_default());
}
