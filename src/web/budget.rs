//! `Budget` for JavaScript: one core budget shared by every client that holds it.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::clock;
use super::to_js;
use super::value::field;
use crate::budget::Budget;

thread_local! {
    /// Live budgets by id, so a `Budget` found inside an options object can be told from a look-alike.
    static LIVE: RefCell<BTreeMap<u32, Weak<RefCell<Budget>>>> = const { RefCell::new(BTreeMap::new()) };
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

/// Shared limits: provider holds and bans per scope.
#[wasm_bindgen(js_name = Budget)]
pub struct SharedBudget {
    id: u32,
    shared: Rc<RefCell<Budget>>,
}

#[wasm_bindgen(js_class = Budget)]
impl SharedBudget {
    #[wasm_bindgen(constructor)]
    pub fn new() -> SharedBudget {
        let shared = Rc::new(RefCell::new(Budget::unlimited()));
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            id
        });
        LIVE.with(|live| live.borrow_mut().insert(id, Rc::downgrade(&shared)));
        SharedBudget { id, shared }
    }

    /// Each scope: holds and bans with their ends (wall-clock ms) and what remains of them.
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        let scopes = self
            .shared
            .borrow()
            .snapshot(clock::now(), clock::wall_now());
        to_js(&scopes)
    }

    #[wasm_bindgen(getter, js_name = __retrylineBudget, skip_typescript)]
    pub fn id(&self) -> u32 {
        self.id
    }
}

impl Default for SharedBudget {
    fn default() -> Self {
        SharedBudget::new()
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
