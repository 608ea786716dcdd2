//! `new Budget(options)`: the core budget that every client holding it shares. How it is shared
//! beyond this realm (`share`, `coordinator`) is the glue's; the limits are read here.

use super::io::{self, with_input};
use super::state::BUDGETS;
use super::{invalid, ms};
use crate::budget::{Budget, BudgetConfig};
use crate::input::{At, Invalid, Loose};

/// A budget from its options (wire form, without `coordinator`, which the glue reads). Returns its
/// handle, or 0 with the error. `share`, if given, must be a name.
#[no_mangle]
pub extern "C" fn rl_budget_new(opts: u32) -> u32 {
    let read = with_input(|input| input.wire(opts).map_err(|e| e.at("options")).and_then(config));
    match read {
        Ok(config) => BUDGETS.with(|b| b.insert(Budget::new(config))),
        Err(error) => invalid(&error),
    }
}

/// The limits from `options`; `share` is checked as a name and left to the glue.
pub fn config(options: Loose) -> Result<BudgetConfig, Invalid> {
    let Loose::Map(mut entries) = options else { return BudgetConfig::read(&options) };
    if let Some(at) = entries.iter().position(|(k, _)| k == "share") {
        if let Some((_, share)) = crate::sorted_map::remove_at(&mut entries, at) {
            if !share.is_absent() {
                crate::input::read::name("share", &share)?;
            }
        }
    }
    BudgetConfig::read(&Loose::Map(entries))
}

#[no_mangle]
pub extern "C" fn rl_budget_free(handle: u32) {
    BUDGETS.with(|b| b.remove(handle));
    #[cfg(feature = "abi-lease")]
    super::lease::forget(handle);
}

/// Each scope, as `budget.snapshot()` describes it (JSON); the glue says how it is shared.
#[no_mangle]
pub extern "C" fn rl_budget_snapshot(handle: u32, now: f64, wall: f64) {
    let json = BUDGETS.with(|b| b.get(handle).map(|b| crate::json::to_json(&b.snapshot(ms(now), ms(wall)))));
    io::output(json.unwrap_or_else(|| "[]".to_owned()));
}
