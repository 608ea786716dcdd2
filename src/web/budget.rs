//! `Budget` for JavaScript: one core budget shared by every client that holds it.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::clock;
use super::error::invalid;
use super::guard;
use super::to_js;
use super::value::loose;
use crate::budget::{Budget, BudgetConfig};
use crate::input::{InvalidOption, Loose};
use crate::sorted_map::SortedMap;

/// Live budgets by id, so a `Budget` found inside an options object can be told from a look-alike.
struct Live {
    budgets: SortedMap<u32, Entry>,
    next_id: u32,
}

/// A live budget and the name it is shared under.
struct Entry {
    budget: Weak<RefCell<Budget>>,
    share: Option<Rc<str>>,
}

/// The core budget a client uses, and the name it is shared under across realms, if any.
#[derive(Clone)]
pub struct Held {
    pub budget: Rc<RefCell<Budget>>,
    pub share: Option<Rc<str>>,
}

thread_local! {
    static LIVE: RefCell<Live> = const { RefCell::new(Live { budgets: SortedMap::new(), next_id: 1 }) };
    /// `Budget.prototype` and its id getter, as wasm-bindgen's glue made them.
    static GENUINE: RefCell<Option<(JsValue, js_sys::Function)>> = const { RefCell::new(None) };
}

/// Limits shared by every client that holds it: per-scope token buckets, a retry quota,
/// and the provider's holds and bans.
#[wasm_bindgen(js_name = Budget)]
pub struct SharedBudget {
    id: u32,
    shared: Rc<RefCell<Budget>>,
    share: Option<Rc<str>>,
}

#[wasm_bindgen(js_class = Budget)]
impl SharedBudget {
    /// Validates every option; throws a `TypeError`/`RangeError` naming the field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<SharedBudget, JsValue> {
        let options = loose(&options, "options").map_err(|e| invalid("Budget", &e))?;
        let (share, options) = take_share(options).map_err(|e| invalid("Budget", &e))?;
        let config = BudgetConfig::from_options(&options).map_err(|e| invalid("Budget", &e))?;
        // Where the platform cannot share (no Web Locks or IndexedDB), the budget is this realm's own.
        let share = share.filter(|_| guard::share_available()).map(Rc::from);
        Ok(SharedBudget::with(Budget::new(config), share))
    }

    /// Each scope: tokens, retry quota, holds and bans with their ends (wall-clock ms), queued operations.
    /// The name this budget is shared under across tabs, or `null` where it works alone.
    #[wasm_bindgen(getter)]
    pub fn share(&self) -> Option<String> {
        self.share.as_deref().map(str::to_owned)
    }

    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let scopes =
            self.shared.try_borrow().map_err(|_| super::error::type_error("Budget is busy"))?.snapshot(now, wall);
        to_js(&scopes)
    }

    #[wasm_bindgen(getter, js_name = __retrylineBudget, skip_typescript)]
    pub fn id(&self) -> u32 {
        self.id
    }
}

impl SharedBudget {
    fn with(budget: Budget, share: Option<Rc<str>>) -> SharedBudget {
        let shared = Rc::new(RefCell::new(budget));
        let id = LIVE.with(|live| {
            let mut live = live.borrow_mut();
            let id = live.next_id;
            live.next_id = id.wrapping_add(1);
            live.budgets.insert(id, Entry { budget: Rc::downgrade(&shared), share: share.clone() });
            id
        });
        SharedBudget { id, shared, share }
    }
}

/// `share` apart from the limits: a name, as a key is.
fn take_share(options: Loose) -> Result<(Option<String>, Loose), InvalidOption> {
    let Loose::Map(mut entries) = options else { return Ok((None, options)) };
    let Some(at) = entries.iter().position(|(k, _)| k == "share") else { return Ok((None, Loose::Map(entries))) };
    let (_, value) = entries.remove(at);
    let share = match value {
        Loose::Absent => None,
        given => Some(crate::input::name("share", &given)?),
    };
    Ok((share, Loose::Map(entries)))
}

impl Drop for SharedBudget {
    fn drop(&mut self) {
        LIVE.with(|live| live.borrow_mut().budgets.remove(&self.id));
    }
}

/// The core budget behind a JavaScript `Budget`, or `None` if `value` is not one.
///
/// Recognised by identity, not by a property: `value`'s prototype must be the real
/// `Budget.prototype`, it must carry its own wasm pointer, and the real getter — called on
/// it — must name a live budget. (A forged wasm pointer fools every wasm-bindgen class alike.)
pub fn shared(value: &JsValue) -> Option<Held> {
    if !value.is_object() {
        return None;
    }
    let (prototype, id_getter) = genuine()?;
    let own_prototype = guard::prototype_of(value).ok()?;
    if !js_sys::Object::is(&own_prototype, &prototype) {
        return None;
    }
    guard::own_value(value, "__wbg_ptr")?.as_f64().filter(|ptr| *ptr != 0.0)?;
    let id = guard::call(&id_getter, value, &[]).ok()?.as_f64()?;
    LIVE.with(|live| {
        let live = live.borrow();
        let entry = live.budgets.get(&(id as u32))?;
        Some(Held { budget: entry.budget.upgrade()?, share: entry.share.clone() })
    })
}

/// The glue's `Budget.prototype`, learnt from a budget this module wraps itself.
fn genuine() -> Option<(JsValue, js_sys::Function)> {
    if let Some(found) = GENUINE.with(|g| g.borrow().clone()) {
        return Some(found);
    }
    let probe = JsValue::from(SharedBudget::with(Budget::unlimited(), None));
    let prototype = guard::prototype_of(&probe).ok()?;
    let getter = guard::own_getter(&prototype, "__retrylineBudget")?;
    GENUINE.with(|g| *g.borrow_mut() = Some((prototype.clone(), getter.clone())));
    Some((prototype, getter))
}
