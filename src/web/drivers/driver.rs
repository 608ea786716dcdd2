//! The state one client's calls share: its policy, its budget (and how that budget is shared
//! beyond this realm), its draws, its store, and who it is in the leases it writes.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::keyed::Keyed;
use crate::budget::{Budget, BudgetConfig};
use crate::draw::Draws;
use crate::machine::Operation;
use crate::policy::Policy;
use crate::record::AttemptRecord;
use crate::text;
use crate::web::platform::store::Store;
use crate::web::platform::{tabs, values};

/// Called with every record, sent or refused, as it is made.
pub type Observer = Rc<dyn Fn(&AttemptRecord)>;

/// A core budget, and the name it is shared under with the origin's other tabs and workers.
#[derive(Clone)]
pub struct Held {
    pub budget: Rc<RefCell<Budget>>,
    /// `None`: this realm's alone.
    pub share: Option<Rc<str>>,
}

impl Held {
    /// A budget from `config`, shared under `share` where the platform can (Web Locks and
    /// IndexedDB); this realm's own otherwise.
    pub fn new(config: BudgetConfig, share: Option<&str>) -> Held {
        let share = share.filter(|_| tabs::available()).map(Rc::from);
        Held { budget: Rc::new(RefCell::new(Budget::new(config))), share }
    }
}

/// Drives the core's [`Operation`]s of one client with real requests, timers and store calls.
pub struct Driver {
    pub(super) policy: Policy,
    pub(super) budget: Rc<RefCell<Budget>>,
    /// The share name of the budget, if it is kept across tabs: each budget step then takes part.
    pub(super) share: Option<Rc<str>>,
    /// Across tabs: the hold and ban ends of the scope of the step in progress, as it began.
    pub(super) published: Cell<(u64, u64)>,
    pub(super) draws: RefCell<Draws>,
    pub(super) observer: Option<Observer>,
    pub(super) store: Store,
    /// Names this client in the leases it writes.
    pub(super) owner: String,
    /// The default of `read_body` for its calls.
    pub(super) read_body: bool,
}

impl Driver {
    /// A driver of calls under `policy`, spending `budget` (default: one of its own, unlimited
    /// but for the retry quota), drawing jitter from `seed` (default: random).
    pub fn new(
        policy: Policy,
        budget: Option<Held>,
        seed: Option<u64>,
        store: Store,
        observer: Option<Observer>,
        read_body: bool,
    ) -> Driver {
        let Held { budget, share } = budget.unwrap_or_else(|| Held::new(BudgetConfig::default(), None));
        Driver {
            policy,
            budget,
            share,
            published: Cell::new((0, 0)),
            draws: RefCell::new(Draws::seeded(seed.unwrap_or_else(values::entropy))),
            observer,
            store,
            owner: text::hex16(values::entropy()),
            read_body,
        }
    }

    /// The policy of calls that bring none of their own.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The budget its calls spend, as it is now (the worksheet reads a scope's bucket from it).
    pub fn budget(&self) -> std::cell::Ref<'_, Budget> {
        self.budget.borrow()
    }

    pub(super) fn keyed<'a>(&'a self, key: &'a str) -> Keyed<'a> {
        Keyed { store: &self.store, key, owner: &self.owner }
    }

    /// Hands each record made since the last report to the observer.
    pub(super) fn report(&self, op: &Operation, reported: &mut usize) {
        let records = op.records();
        if let Some(observer) = &self.observer {
            for record in records.iter().skip(*reported) {
                observer(record);
            }
        }
        *reported = records.len();
    }
}
