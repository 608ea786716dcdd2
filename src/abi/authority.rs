//! The coordinator's half of a budget shared across isolates: js/durable-object.js keeps one of
//! these per scope, in a Durable Object, and stores what `rl_authority_save` gives after every change.

use super::cell::Local;
use super::io;
use super::slab::Slab;
use super::{invalid, ms};
use crate::budget::authority::{Answered, Told};
use crate::budget::shared::SharedState;
use crate::budget::{Budget, BudgetConfig, Priority};
use crate::input::{Invalid, Loose};
use crate::json::{to_json, FromLoose};

static AUTHORITIES: Local<Slab<Budget>> = Local::new(Slab::new());

/// The authoritative budget of one scope, from the budget options the isolates give (wire form)
/// and the state stored last (wire form, or absent). Numbers: now, wall, the lengths of the two.
/// Returns its handle, or 0 with the error.
#[no_mangle]
pub extern "C" fn rl_authority_new() -> u32 {
    let made: Result<Budget, Invalid> = io::with_args(|[now, wall, limits, saved], input| {
        let (limits, saved) = (io::len(limits), io::len(saved));
        let options = input.wire(limits)?;
        let mut budget = Budget::new(BudgetConfig::read(&options)?);
        let state = input.wire(saved).ok().filter(|s| !s.is_absent());
        if let Some(state) = state.and_then(|s| SharedState::read_loose(&s).ok()) {
            budget.import(&state, ms(now), ms(wall));
        }
        Ok(budget)
    });
    match made {
        Ok(budget) => AUTHORITIES.with(|a| a.insert(budget)),
        Err(error) => invalid(&error),
    }
}

#[no_mangle]
pub extern "C" fn rl_authority_free(handle: u32) {
    AUTHORITIES.with(|a| a.remove(handle));
}

/// One isolate's visit to a scope at a priority (input, their lengths among the numbers): its
/// weight, earliest and latest start, tokens returned, its hold and ban ends (wall ms, 0 for none),
/// its breaker's opening and probe (`budget::breaker_shared`), the tokens it spent alone while it
/// could not reach the coordinator. Numbers: now, wall, then those, then
/// the two lengths. Numbers out: tokens, from, hold end, ban end, the breaker's open end (wall ms)
/// and the probe's answer, then 1 if the visit changed the state (0: it needs no storing). A weight
/// of 0 leases nothing.
#[no_mangle]
pub extern "C" fn rl_authority_lease(handle: u32) -> u32 {
    io::with_args(
        |[now, wall, weight, earliest, latest, returned, hold, ban, breaker, probe, spent, scope, priority], input| {
            let (scope, priority) = (input.text(io::len(scope)), input.text(io::len(priority)));
            let told = Told {
                weight: u32::try_from(ms(weight)).unwrap_or(0),
                priority: Priority::read_loose(&Loose::Text(priority.to_owned())).ok(),
                earliest: ms(earliest),
                latest: ms(latest),
                returned: ms(returned),
                hold: ms(hold),
                ban: ms(ban),
                breaker: ms(breaker),
                probe: ms(probe),
                spent: ms(spent),
            };
            AUTHORITIES.with(|authorities| {
                let Some(budget) = authorities.get_mut(handle) else { return 0 };
                let Answered { answer, changed } = budget.answer_visit(scope, told, ms(now), ms(wall));
                let mut numbers = answer.map(|n| n as f64).to_vec();
                numbers.push(f64::from(u8::from(changed)));
                io::numbers(&numbers);
                1
            })
        },
    )
}

/// Everything that changed, as JSON, for the Durable Object's storage.
#[no_mangle]
pub extern "C" fn rl_authority_save(handle: u32, now: f64, wall: f64) {
    let json = AUTHORITIES.with(|a| a.get(handle).map(|b| to_json(&b.export(ms(now), ms(wall)))));
    io::output(json.unwrap_or_default());
}

/// Each scope, as `budget.snapshot()` describes it (JSON; the Durable Object says "coordinator").
#[no_mangle]
pub extern "C" fn rl_authority_snapshot(handle: u32, now: f64, wall: f64) {
    let json = AUTHORITIES.with(|a| a.get(handle).map(|b| to_json(&b.snapshot(ms(now), ms(wall)))));
    io::output(json.unwrap_or_else(|| "[]".to_owned()));
}
