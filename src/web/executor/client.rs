//! One client's part of every call it makes: its policy, its budget, its draws, its store, its
//! observer and `shouldRetry`, and who it is in the leases it writes.

use std::cell::{Ref, RefCell};
use std::rc::Rc;

use super::ask::Predicate;
use super::budget::Held;
use crate::budget::{Budget, BudgetConfig};
use crate::draw::Draws;
use crate::policy::Policy;
use crate::record::AttemptRecord;
use crate::text;
use crate::web::platform::store::Store;
use crate::web::platform::values;

/// Called with every record, sent or refused, as it is made.
pub type Observer = Rc<dyn Fn(&AttemptRecord)>;

/// What a client's calls share.
pub struct Executor {
    pub(super) policy: Policy,
    pub(super) held: Held,
    pub(super) draws: Rc<RefCell<Draws>>,
    pub(super) store: Store,
    pub(super) observer: Option<Observer>,
    /// Names this client in the leases it writes.
    pub(super) owner: String,
    /// The default of `read_body` for its calls.
    pub(super) read_body: bool,
    /// The default predicate of its calls.
    pub(super) should_retry: Option<Predicate>,
}

impl Executor {
    /// The executor of calls under `policy`, spending `budget` (default: one of its own, unlimited
    /// but for the retry quota), drawing jitter from `seed` (default: random).
    pub fn new(
        policy: Policy,
        budget: Option<Held>,
        seed: Option<u64>,
        store: Store,
        observer: Option<Observer>,
        read_body: bool,
        should_retry: Option<Predicate>,
    ) -> Executor {
        Executor {
            policy,
            held: budget.unwrap_or_else(|| Held::new(BudgetConfig::default(), None)),
            draws: Rc::new(RefCell::new(Draws::seeded(seed.unwrap_or_else(values::entropy)))),
            store,
            observer,
            owner: text::hex16(values::entropy()),
            read_body,
            should_retry,
        }
    }

    /// The policy of calls that bring none of their own.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The budget its calls spend, as it is now (the worksheet reads a scope's bucket from it).
    pub fn budget(&self) -> Ref<'_, Budget> {
        self.held.budget.borrow()
    }
}
