//! `Budget` for JavaScript: one core budget shared by every client that holds it.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;

use super::clock;
use super::coordinator::Coordinator;
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

/// A live budget and how it is shared.
struct Entry {
    budget: Weak<RefCell<Budget>>,
    share: Option<Share>,
}

/// How a budget is kept beyond this realm (docs/shared-budgets.md).
#[derive(Clone)]
pub enum Share {
    /// With the other tabs and workers of this origin, under this name (Web Locks + IndexedDB).
    Tabs(Rc<str>),
    /// With other isolates, by a Durable Object coordinator per scope.
    Coordinator(Rc<Coordinator>),
}

/// The core budget a client uses, and how it is shared beyond this realm, if it is.
#[derive(Clone)]
pub struct Held {
    pub budget: Rc<RefCell<Budget>>,
    pub share: Option<Share>,
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
    share: Option<Share>,
}

#[wasm_bindgen(js_class = Budget)]
impl SharedBudget {
    /// Validates every option; throws a `TypeError`/`RangeError` naming the field.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<SharedBudget, JsValue> {
        let loosened = loose(&options, "options").map_err(|e| invalid("Budget", &e))?;
        let namespace = coordinator_namespace(&options).map_err(|e| invalid("Budget", &e))?;
        let (name, loosened) = take_share(loosened).map_err(|e| invalid("Budget", &e))?;
        let config = BudgetConfig::from_options(&loosened).map_err(|e| invalid("Budget", &e))?;
        let share = match (namespace, name) {
            (Some(namespace), name) => {
                let name = Rc::from(name.as_deref().unwrap_or("retryline"));
                let limits = guard::coordinator_limits(&options);
                Some(Share::Coordinator(Rc::new(Coordinator::new(namespace, name, limits))))
            }
            // Where the platform cannot share (no Web Locks or IndexedDB), the budget is this realm's own.
            (None, Some(name)) if guard::share_available() => Some(Share::Tabs(Rc::from(name))),
            (None, _) => None,
        };
        Ok(SharedBudget::with(Budget::new(config), share))
    }

    /// The name this budget is shared under across tabs, or `undefined` where it works alone.
    #[wasm_bindgen(getter)]
    pub fn share(&self) -> Option<String> {
        match &self.share {
            Some(Share::Tabs(name)) => Some(name.to_string()),
            _ => None,
        }
    }

    /// How this budget is kept: `"local"` (this realm alone, also where a share was asked for and
    /// the platform cannot), `"tabs"`, `"coordinator"`, or `"unreachable"` (a coordinator that stopped
    /// answering: this realm spends its own bucket until it answers again).
    #[wasm_bindgen(getter)]
    pub fn sharing(&self) -> String {
        self.sharing_name().to_owned()
    }

    /// Each scope: tokens, retry quota, holds and bans with their ends (wall-clock ms), queued operations.
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let mut scopes =
            self.shared.try_borrow().map_err(|_| super::error::type_error("Budget is busy"))?.snapshot(now, wall);
        let sharing = self.sharing_name();
        for scope in &mut scopes {
            scope.sharing = sharing;
        }
        to_js(&scopes)
    }

    /// This budget's id among the live ones: how `RetryClient` tells a real budget from a look-alike.
    #[wasm_bindgen(getter, js_name = __retrylineBudget, skip_typescript)]
    pub fn id(&self) -> u32 {
        self.id
    }
}

impl SharedBudget {
    /// A budget for Rust callers, from its limits; `share` names it across the origin's tabs and
    /// workers as the JavaScript `share` option does (this realm's alone where the platform cannot).
    pub fn from_config(config: BudgetConfig, share: Option<&str>) -> SharedBudget {
        let share = share.filter(|_| guard::share_available()).map(|name| Share::Tabs(Rc::from(name)));
        SharedBudget::with(Budget::new(config), share)
    }

    /// The core budget behind it, and how it is shared.
    pub(super) fn held(&self) -> Held {
        Held { budget: Rc::clone(&self.shared), share: self.share.clone() }
    }

    fn sharing_name(&self) -> &'static str {
        match &self.share {
            None => "local",
            Some(Share::Tabs(_)) => "tabs",
            Some(Share::Coordinator(c)) if c.unreachable() => "unreachable",
            Some(Share::Coordinator(_)) => "coordinator",
        }
    }

    fn with(budget: Budget, share: Option<Share>) -> SharedBudget {
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

/// The `coordinator` option: a Durable Object namespace binding (`idFromName` and `get`).
fn coordinator_namespace(options: &JsValue) -> Result<Option<JsValue>, InvalidOption> {
    if !options.is_object() {
        return Ok(None);
    }
    let namespace = super::value::field(options, "coordinator")?;
    if namespace.is_undefined() || namespace.is_null() {
        return Ok(None);
    }
    for method in ["idFromName", "get"] {
        let found = super::value::field(&namespace, method).map_err(|e| e.within("coordinator"))?;
        if !found.is_function() {
            let problem = crate::input::Problem::WrongType {
                expected: "a Durable Object namespace binding (with idFromName and get)",
                found: super::value::kind(&namespace),
            };
            return Err(InvalidOption::new("coordinator", problem));
        }
    }
    Ok(Some(namespace))
}

/// `share` apart from the limits: a name, as a key is (and `coordinator`, read on its own).
fn take_share(options: Loose) -> Result<(Option<String>, Loose), InvalidOption> {
    let Loose::Map(mut entries) = options else { return Ok((None, options)) };
    entries.retain(|(k, _)| k != "coordinator");
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
