//! Hedged reads at the boundary: when to hedge, the hedge itself, and which request an outcome
//! is for. Action code 4 (beside those of [`super::operation`]): nothing to do now — a hedge
//! refused (its record says why), or an outcome that waits for another request of the race.

use super::ms;
use super::operation::act;
use super::state::{with_op, OPS};

/// How long after its last request the operation waits before it hedges, ms; -1: it does not.
#[no_mangle]
pub extern "C" fn rl_op_hedge_delay(handle: u32) -> f64 {
    with_op(handle, |slot, _, budget| slot.op.hedge_delay(budget).map_or(-1.0, |ms| ms as f64)).unwrap_or(-1.0)
}

/// Hedges the request in flight at `now`: 0 (send: attempt, timeout ms) or 4 (refused, or none to make).
#[no_mangle]
pub extern "C" fn rl_op_hedge(handle: u32, now: f64) -> u32 {
    let now = ms(now);
    with_op(handle, |slot, _, budget| match slot.op.hedge(now, budget) {
        Some(action) => act(action, &slot.op, now),
        None => 4,
    })
    .unwrap_or(3)
}

/// The next `rl_op_outcome` is that of request `attempt`: 1 if it is in flight, else 0.
#[no_mangle]
pub extern "C" fn rl_op_flight(handle: u32, attempt: u32) -> u32 {
    OPS.with(|ops| ops.get_mut(handle).map_or(0, |slot| u32::from(slot.op.select_flight(attempt))))
}
