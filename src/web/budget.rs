//! `Budget` for JavaScript: one core budget shared by every client that holds it.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::clock;
use super::error::invalid;
use super::to_js;
use super::value::{field, loose};
use crate::budget::{Budget, BudgetConfig};

thread_local! {
    /// Live budgets by id, so a `Budget` found inside an options object can be told from a look-alike.
    static LIVE: RefCell<BTreeMap<u32, Weak<RefCell<Budget>>>> = const { RefCell::new(BTreeMap::new()) };
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

/// Limits shared by every client that holds it: per-scope token buckets, a retry quota,
/// and the provider's holds and bans.
#[wasm_bindgen(js_name = Budget)]
pub struct SharedBudget {
    id: u32,
    shared: Rc<RefCell<Budget>>,
}

#[wasm_bindgen(js_class = Budget)]
impl SharedBudget {
    /// Validates every option; throws a `TypeError`/`RangeError` naming the field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<SharedBudget, JsValue> {
        let config = BudgetConfig::from_options(&loose(&options)).map_err(|e| invalid("Budget", &e))?;
        Ok(SharedBudget::with(Budget::new(config)))
    }

    /// Each scope: tokens, retry quota, holds and bans with their ends (wall-clock ms), queued operations.
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        let scopes = self.shared.borrow().snapshot(clock::now(), clock::wall_now());
        to_js(&scopes)
    }

    #[wasm_bindgen(getter, js_name = __retrylineBudget, skip_typescript)]
    pub fn id(&self) -> u32 {
        self.id
    }
}

impl SharedBudget {
    fn with(budget: Budget) -> SharedBudget {
        let shared = Rc::new(RefCell::new(budget));
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            id
        });
        LIVE.with(|live| live.borrow_mut().insert(id, Rc::downgrade(&shared)));
        SharedBudget { id, shared }
    }
}

impl Drop for SharedBudget {
    fn drop(&mut self) {
        LIVE.with(|live| live.borrow_mut().remove(&self.id));
    }
}

/// The core budget behind a JavaScript `Budget`, or `None` if `value` is not one.
pub fn shared(value: &JsValue) -> Option<Rc<RefCell<Budget>>> {
    let id = field(value, "__retrylineBudget").as_f64()?;
    LIVE.with(|live| live.borrow().get(&(id as u32)).and_then(Weak::upgrade))
}
