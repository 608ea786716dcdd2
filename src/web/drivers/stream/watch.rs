//! The stream's instants, behind its one alarm: the connect timeouts of its sockets, the planned
//! sleep, the next check of the open connection (uptime proven, stale, replaced, rotated), and
//! the send pace's next turn.

use super::{Live, Step, StreamState};
use crate::classify::Observed;
use crate::machine::Action;
use crate::stream::{Check, Watching};
use crate::text;
use crate::web::platform::clock;

impl Live {
    /// Sets the alarm for the earliest instant the stream waits for.
    pub(super) fn arm(&mut self) {
        let connects = [&self.current, &self.rotation].map(|l| l.as_ref().and_then(|l| l.connect_by));
        let pace = self.pace.as_ref().and_then(|p| p.next_at());
        let at = [self.sleep_at, self.watch_at, pace].into_iter().chain(connects).flatten().min();
        self.inbox.alarm_at(at);
    }

    /// The alarm fired: whatever came due is done.
    pub(super) fn on_due(&mut self) {
        let now = clock::now();
        let due = |at: Option<u64>| at.is_some_and(|at| at <= now);
        let late = [&self.current, &self.rotation]
            .map(|l| l.as_ref().filter(|l| due(l.connect_by)).map(|l| (l.id, l.timeout_ms)));
        for (id, ms) in late.into_iter().flatten() {
            let error = text::join(&["no connection within ", &text::number(ms), " ms"]);
            self.dropped(id, Observed::Timeout, &error, None);
        }
        if due(self.sleep_at) {
            self.sleep_at = None;
            self.steps.push_back(Step::Wake);
        }
        if due(self.watch_at) {
            self.watch_at = None;
            let (wall, heard) = (clock::wall_now(), self.heard_at);
            let watching = {
                let (mut draws, mut budget) = (self.driver.draws.borrow_mut(), self.driver.budget.borrow_mut());
                self.machine.check(now, wall, heard, &mut draws, &mut budget)
            };
            self.watch(watching);
        }
        self.drain_pace();
    }

    /// Acts on a check's verdict, and keeps its next instant.
    pub(super) fn watch(&mut self, watching: Watching) {
        self.watch_at = None;
        let state = self.state();
        match watching.check {
            Check::Replace => {
                if let Some(id) = self.current.as_ref().map(|l| l.id) {
                    let now = clock::now();
                    let since = self.heard_at.or(self.current.as_ref().and_then(|l| l.opened_at)).unwrap_or(now);
                    let silent = text::number(now.saturating_sub(since));
                    let error = text::join(&["no message for ", &silent, " ms: replaced"]);
                    // Its close is reported as a timeout: the next step reconnects.
                    return self.dropped(id, Observed::Timeout, &error, None);
                }
            }
            Check::Rotate => self.rotate(),
            Check::Stale => self.set_state(StreamState::Stale),
            // Stale stays stale until a message comes.
            Check::Fresh if state != StreamState::Stale || self.heard_at.is_some() => self.set_state(StreamState::Open),
            Check::Fresh | Check::Closed => {}
        }
        self.watch_at = watching.next_at;
    }

    /// Opens the next connection beside the old one, if the gate and the budget let it go now.
    fn rotate(&mut self) {
        let (now, wall) = (clock::now(), clock::wall_now());
        let action = {
            let (mut draws, mut budget) = (self.driver.draws.borrow_mut(), self.driver.budget.borrow_mut());
            self.machine.rotate(now, wall, &mut draws, &mut budget)
        };
        if let Action::Send { timeout_ms, .. } = action {
            self.connect(timeout_ms, true);
        }
    }

    /// Writes the paced sends whose turn has come.
    pub(super) fn drain_pace(&mut self) {
        let Some(pace) = self.pace.as_mut() else { return };
        for (id, message) in pace.ready(clock::now()) {
            self.write(id, &message);
        }
    }
}
