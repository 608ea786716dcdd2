//! The steps every operation of a driver takes, calls and reconciliations alike: the budget steps
//! (the core's decisions that spend or wait on the budget, taken under the share's lock when the
//! budget is kept across tabs), and the sleeps between attempts.

use super::driver::Driver;
use crate::budget::shared::SharedState;
use crate::json::{to_json, FromLoose};
use crate::machine::{Action, Operation};
use crate::web::platform::abort::AbortWatch;
use crate::web::platform::clock;
use crate::web::platform::loose::loose;
use crate::web::platform::race::{Ended, Race};
use crate::web::platform::{tabs, timer, values};

/// Wall-clock ends drift by a millisecond between clocks: only an end later by more is news.
const WALL_SLACK_MS: u64 = 5;

impl Driver {
    /// Sleeps the core's planned wait, then lets the operation check its gate again; an abort
    /// stops it. Across tabs, a hold or ban another tab publishes wakes the sleeper early to look.
    pub(super) async fn sleep(&self, op: &mut Operation, abort: &AbortWatch) -> Action {
        let ms = op.timer_ms(clock::now());
        let news = self.share.as_deref().and_then(|name| tabs::news(name).map(|news| (name, news)));
        let slept = match &news {
            Some((_, (promise, _))) => timer::sleep_or(ms, promise, abort).await,
            None => timer::sleep(ms, abort).await,
        };
        if let Some((name, (_, resolve))) = &news {
            tabs::news_done(name, resolve);
        }
        self.enter_budget(op).await;
        let now = clock::now();
        let action = {
            let mut budget = self.budget.borrow_mut();
            if slept {
                op.on_wake(now, &mut budget)
            } else {
                Action::Stop(op.abort(now, &mut budget))
            }
        };
        self.leave_budget(op);
        action
    }

    /// Takes up the budget's shared state before a budget step of `op` (docs/shared-budgets.md); a
    /// budget of this realm alone needs nothing. Across tabs: holds its lock until
    /// [`Driver::leave_budget`], waiting no later than the deadline — a tab that never lets go (or a
    /// hung IndexedDB) must not hold the call past it; the step then runs on this realm's view.
    pub(super) async fn enter_budget(&self, op: &Operation) {
        let Some(name) = self.share.as_deref() else { return };
        let left = op.deadline_at().saturating_sub(clock::now());
        if left == 0 {
            return;
        }
        let Ended::Settled(Ok(text)) = Race::new().wait_call(tabs::enter(name, left)).await else { return };
        let text = text.as_string().unwrap_or_default();
        let state = values::parse_json(&text).ok().and_then(|v| loose(&v, "state").ok());
        if let Some(state) = state.and_then(|s| SharedState::from_loose(&s).ok()) {
            self.budget.borrow_mut().import(&state, clock::now(), clock::wall_now());
        }
        self.published.set(self.waits(op));
    }

    /// Hands the state on after a budget step of `op`: across tabs, stores it and releases the
    /// lock, waking the share's sleepers if the step published a later hold or ban.
    pub(super) fn leave_budget(&self, op: &Operation) {
        let Some(name) = self.share.as_deref() else { return };
        let text = to_json(&self.budget.borrow().export(clock::now(), clock::wall_now()));
        let ((hold, ban), (known_hold, known_ban)) = (self.waits(op), self.published.get());
        let tell = hold > known_hold.saturating_add(WALL_SLACK_MS) || ban > known_ban.saturating_add(WALL_SLACK_MS);
        tabs::leave(name, &text, tell);
    }

    /// The wall-clock ends of the hold and ban on `op`'s scope (0: none).
    fn waits(&self, op: &Operation) -> (u64, u64) {
        let now = clock::now();
        self.budget.borrow().waits_wall(op.ask(now).scope, now, clock::wall_now())
    }
}
