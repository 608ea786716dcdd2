//! The coordinator's half of a budget shared across isolates: js/durable-object.js keeps one of
//! these per scope, in a Durable Object, and stores what `save` gives after every change.

use wasm_bindgen::prelude::*;

use super::clock;
use super::error::invalid;
use super::guard;
use super::value::loose;
use crate::budget::shared::SharedState;
use crate::budget::{Budget, BudgetConfig, Priority};
use crate::input::Loose;
use crate::json::FromLoose;

/// The authoritative budget of one scope, for the isolates that lease from it.
#[wasm_bindgen(js_name = BudgetAuthority, skip_typescript)]
pub struct Authority {
    budget: Budget,
}

#[wasm_bindgen(js_class = BudgetAuthority)]
impl Authority {
    /// From the budget options the isolates give (JSON) and the state stored last (JSON, or "").
    #[wasm_bindgen(constructor)]
    pub fn new(limits: &str, saved: &str) -> Result<Authority, JsValue> {
        let options = guard::parse_json(limits).map_err(|_| super::error::type_error("Budget limits are not JSON"))?;
        let options = loose(&options, "options").map_err(|e| invalid("Budget", &e))?;
        let config = BudgetConfig::from_options(&options).map_err(|e| invalid("Budget", &e))?;
        let mut budget = Budget::new(config);
        let state = guard::parse_json(saved).ok().and_then(|v| loose(&v, "state").ok());
        if let Some(state) = state.and_then(|s| SharedState::from_loose(&s).ok()) {
            budget.import(&state, clock::now(), clock::wall_now());
        }
        Ok(Authority { budget })
    }

    /// One isolate's visit: `[weight, latest start, tokens returned, hold end, ban end]` (wall ms,
    /// 0 for none) in; `[tokens, from, hold end, ban end]` out. A weight of 0 leases nothing.
    pub fn lease(&mut self, scope: &str, priority: &str, numbers: &[f64]) -> Vec<f64> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let at = |i: usize| numbers.get(i).copied().filter(|x| x.is_finite() && *x >= 0.0).unwrap_or(0.0) as u64;
        let to_mono = |at: u64| now.saturating_add(at.saturating_sub(wall));
        let (weight, latest, returned) = (at(0), at(1), at(2));
        self.budget.hold(scope, to_mono(at(3)));
        self.budget.ban(scope, to_mono(at(4)));
        if returned > 0 {
            self.budget.lease_returned(scope, returned);
        }
        let (mut tokens, mut from) = (0.0, 0.0);
        if let (Ok(weight @ 1..), Some(priority)) =
            (u32::try_from(weight), Priority::from_loose(&Loose::Text(priority.to_owned())).ok())
        {
            let out = self.budget.lease_out(scope, weight, priority, now, to_mono(latest));
            tokens = out.tokens as f64;
            from = wall.saturating_add(out.from.saturating_sub(now)) as f64;
        }
        let (hold, ban) = self.budget.waits_wall(scope, now, wall);
        vec![tokens, from, hold as f64, ban as f64]
    }

    /// Everything that changed, as JSON, for the Durable Object's storage.
    pub fn save(&self) -> String {
        crate::json::to_json(&self.budget.export(clock::now(), clock::wall_now()))
    }

    /// Each scope, as `budget.snapshot()` describes it.
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        let mut scopes = self.budget.snapshot(clock::now(), clock::wall_now());
        for scope in &mut scopes {
            scope.sharing = "coordinator";
        }
        super::to_js(&scopes)
    }
}
