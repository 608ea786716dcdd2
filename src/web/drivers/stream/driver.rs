//! What a stream takes of its client — the budget (and the name it is shared under across tabs),
//! the draws, the observer — and the bracket around each of its budget steps across tabs: the
//! share's lock taken and its stored state taken up before, the state stored and the lock let go
//! after. (A call's machine brackets its own steps; the stream's moves there with its machine.)

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::budget::shared::SharedState;
use crate::budget::Budget;
use crate::draw::Draws;
use crate::json::{to_json, FromLoose};
use crate::machine::Operation;
use crate::record::AttemptRecord;
use crate::web::platform::loose::loose;
use crate::web::platform::settling::Settling;
use crate::web::platform::{clock, tabs, values};

/// Wall-clock ends drift by a millisecond between clocks: only an end later by more is news.
const WALL_SLACK_MS: u64 = 5;

/// Called with every record, sent or refused, as it is made.
pub type Observer = Rc<dyn Fn(&AttemptRecord)>;

/// A stream's part of its client.
pub struct Driver {
    pub budget: Rc<RefCell<Budget>>,
    /// The share name of the budget, if it is kept across tabs: each budget step then takes part.
    pub share: Option<Rc<str>>,
    pub draws: Rc<RefCell<Draws>>,
    pub observer: Option<Observer>,
    /// Across tabs: the hold and ban ends of the scope of the step in progress, as it began.
    published: Cell<(u64, u64)>,
}

impl Driver {
    pub fn new(
        budget: Rc<RefCell<Budget>>,
        share: Option<Rc<str>>,
        draws: Rc<RefCell<Draws>>,
        observer: Option<Observer>,
    ) -> Driver {
        Driver { budget, share, draws, observer, published: Cell::new((0, 0)) }
    }

    /// Takes up the budget's shared state before a budget step of `op`; a budget of this realm
    /// alone needs nothing. Across tabs: holds its lock until [`Driver::leave_budget`], waiting
    /// no later than the deadline — a tab that never lets go (or a hung IndexedDB) must not hold
    /// the stream past it; the step then runs on this realm's view.
    pub(super) async fn enter_budget(&self, op: &Operation) {
        let Some(name) = self.share.as_deref() else { return };
        let left = op.deadline_at().saturating_sub(clock::now());
        if left == 0 {
            return;
        }
        let Ok(entering) = tabs::enter(name, left) else { return };
        let Ok(text) = Settling::of(Ok(entering.into())).await else { return };
        let text = text.as_string().unwrap_or_default();
        let state = values::parse_json(&text).ok().and_then(|v| loose(&v, "state").ok());
        if let Some(state) = state.and_then(|s| SharedState::from_loose(&s).ok()) {
            self.budget.borrow_mut().import(&state, clock::now(), clock::wall_now());
        }
        self.published.set(self.waits(op));
    }

    /// Hands the state on after a budget step of `op`: across tabs, stores it and releases the
    /// lock, telling the share's listeners if the step published a later hold or ban.
    pub(super) fn leave_budget(&self, op: &Operation) {
        let Some(name) = self.share.as_deref() else { return };
        let text = to_json(&self.budget.borrow().export(clock::now(), clock::wall_now()));
        let ((hold, ban), (known_hold, known_ban)) = (self.waits(op), self.published.get());
        let tell = hold > known_hold.saturating_add(WALL_SLACK_MS) || ban > known_ban.saturating_add(WALL_SLACK_MS);
        tabs::leave(name, Some(&text), tell);
    }

    /// The wall-clock ends of the hold and ban on `op`'s scope (0: none).
    fn waits(&self, op: &Operation) -> (u64, u64) {
        let now = clock::now();
        self.budget.borrow().waits_wall(op.ask(now).scope, now, clock::wall_now())
    }
}
