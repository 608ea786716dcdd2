//! A budget shared by every client that holds it, and, by name, with the origin's other tabs and
//! workers.

use crate::budget::BudgetConfig;
use crate::web::executor::Held;

/// Limits shared by every client that holds it: per-scope token buckets, a retry quota,
/// and the provider's holds and bans. Give it to [`ClientBuilder::budget`](super::ClientBuilder::budget).
pub struct SharedBudget {
    held: Held,
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
