//! A budget shared by every client that holds it, and, by name, with the origin's other tabs and
//! workers.

use std::cell::RefCell;
use std::rc::Rc;

use crate::budget::{Budget, BudgetConfig};
use crate::web::platform::tabs;

/// Limits shared by every client that holds it: per-scope token buckets, a retry quota,
/// and the provider's holds and bans. Give it to [`ClientBuilder::budget`](super::ClientBuilder::budget).
pub struct SharedBudget {
    held: Held,
}

/// A core budget, and the name it is shared under across tabs.
#[derive(Clone)]
pub(super) struct Held {
    pub budget: Rc<RefCell<Budget>>,
    /// `None`: this realm's alone.
    pub share: Option<Rc<str>>,
}

impl SharedBudget {
    /// A budget from its limits; `share` names it across the origin's tabs and workers (each
    /// budget step then runs under a Web Lock of that name, the state in IndexedDB, as the core
    /// brackets it), as the JavaScript `share` option does. This realm's alone where the platform
    /// cannot share.
    pub fn from_config(config: BudgetConfig, share: Option<&str>) -> SharedBudget {
        SharedBudget { held: Held::new(config, share) }
    }

    /// The core budget behind it, and how it is shared.
    pub(super) fn held(&self) -> Held {
        self.held.clone()
    }
}

impl Held {
    /// A budget from `config`, shared under `share` where the platform can (Web Locks and
    /// IndexedDB); this realm's own otherwise.
    pub fn new(config: BudgetConfig, share: Option<&str>) -> Held {
        let share: Option<Rc<str>> = share.filter(|_| tabs::available()).map(Rc::from);
        let mut budget = Budget::new(config);
        if share.is_some() {
            budget.share_across_tabs();
        }
        Held { budget: Rc::new(RefCell::new(budget)), share }
    }
}
