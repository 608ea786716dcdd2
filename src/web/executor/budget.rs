//! A budget as clients hold it: the core's budget and, for a budget shared with the origin's other
//! tabs and workers, its share name — the core then brackets every step on it (`Share::Enter` and
//! `Leave`, carried out with js/platform/tab-locks.js through [`crate::web::platform::tabs`]).

use std::cell::RefCell;
use std::rc::Rc;

use crate::budget::{Budget, BudgetConfig};
use crate::web::platform::tabs;

/// A core budget, and the name it is shared under across tabs.
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
        let share: Option<Rc<str>> = share.filter(|_| tabs::available()).map(Rc::from);
        let mut budget = Budget::new(config);
        if share.is_some() {
            budget.share_across_tabs();
        }
        Held { budget: Rc::new(RefCell::new(budget)), share }
    }
}
