//! The worksheet row of a call operation the glue began without sending it (a family's options,
//! or the client's defaults): what it would decide, as JSON in the output.

use super::io;
use super::state::with_op;
use crate::json::to_json;
use crate::worksheet::Plan;

/// The plan of operation `handle` (see [`Plan`]); the output is its JSON, empty if it is gone.
#[no_mangle]
pub extern "C" fn rl_op_plan(handle: u32) {
    let json = with_op(handle, |slot, _, budget| {
        let (op, start) = (&slot.op, &slot.op.start);
        to_json(&Plan::of(op.policy(), start.kind, start.priority, op.scope(), start.weight, budget))
    });
    io::output(json.unwrap_or_default());
}
