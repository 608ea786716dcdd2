//! `new Budget(options)`: the core budget that every client holding it shares. How it is shared
//! beyond this realm (`share`, `coordinator`) is the glue's; the limits are read here.

use super::io::{self, with_input};
use super::state::BUDGETS;
use super::{invalid, ms};
use crate::budget::{Budget, BudgetConfig};
use crate::input::{At, Invalid, InvalidOption, Loose, Problem};

/// A budget from its options (wire form, without `coordinator` or `redis`, which the glue reads),
/// kept as `sharing` says: 0 this realm's, 1 across tabs, 2 leased from coordinators (whose first
/// visit is waited for up to `join_ms`, its own bucket a share of `assumed` processes until the
/// fleet counts itself; builds with `leases`, else this realm's). Returns its handle, or 0 with the
/// error. `share`, if given, must be a name.
#[no_mangle]
#[cfg_attr(not(feature = "leases"), allow(unused_variables))] // `join_ms`, `assumed`: coordinators' only
pub extern "C" fn rl_budget_new(opts: u32, sharing: u32, join_ms: f64, assumed: f64) -> u32 {
    let read = with_input(|input| input.wire(opts).map_err(|e| e.at("options")).and_then(config));
    match read {
        Ok(config) => {
            #[cfg_attr(not(any(feature = "tabs", feature = "leases")), allow(unused_mut))]
            let mut budget = Budget::new(config);
            match sharing {
                #[cfg(feature = "tabs")]
                1 => budget.share_across_tabs(),
                #[cfg(feature = "leases")]
                2 => budget.lease_from_coordinators(ms(join_ms), ms(assumed)),
                _ => {}
            }
            BUDGETS.with(|b| b.insert(budget))
        }
        Err(error) => invalid(&error),
    }
}

/// The coordinator of a scope answered a visit, or did not. Numbers: now, wall, 1 answered (0 not),
/// how long it was waited for (ms), then the answer — tokens, from, hold, ban, breaker (wall ms),
/// probe, the fleet's processes (0: not counted) — and the scope's length (input).
#[cfg(feature = "leases")]
#[no_mangle]
pub extern "C" fn rl_budget_visited(handle: u32) {
    io::with_args(|[now, wall, answered, waited, tokens, from, hold, ban, breaker, probe, members, scope], input| {
        let scope = input.text(io::len(scope));
        let answer =
            (answered == 1.0).then(|| [ms(tokens), ms(from), ms(hold), ms(ban), ms(breaker), ms(probe), ms(members)]);
        BUDGETS.with(|budgets| {
            if let Some(budget) = budgets.get_mut(handle) {
                budget.visited(scope, answer, ms(waited), ms(now), ms(wall));
            }
        });
    });
}

/// The limits from `options`; `share` is checked as a name and left to the glue. A build that can
/// share a budget neither across tabs nor through coordinators (the lean entry's) refuses it.
pub fn config(options: Loose) -> Result<BudgetConfig, Invalid> {
    let Loose::Map(mut entries) = options else { return BudgetConfig::read(&options) };
    if let Some(at) = entries.iter().position(|(k, _)| k == "share") {
        if let Some((_, share)) = crate::sorted_map::remove_at(&mut entries, at) {
            if !share.is_absent() && !cfg!(any(feature = "tabs", feature = "leases")) {
                let what = "a budget shared across tabs";
                return Err(InvalidOption::boxed("share", Problem::NotInThisEntry { what, import: "Budget" }));
            }
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
}

/// Each scope, as `budget.snapshot()` describes it (JSON); the glue says how it is shared.
/// Number 0: 1 if a coordinator has stopped answering.
#[no_mangle]
pub extern "C" fn rl_budget_snapshot(handle: u32, now: f64, wall: f64) {
    let json = BUDGETS.with(|b| {
        let budget = b.get(handle)?;
        io::numbers(&[if budget.unreachable() { 1.0 } else { 0.0 }]);
        Some(crate::json::to_json(&budget.snapshot(ms(now), ms(wall))))
    });
    io::output(json.unwrap_or_else(|| "[]".to_owned()));
}
