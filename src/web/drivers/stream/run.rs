//! The stream's task: the steps that spend or wait on the budget (connect, wake, a close), each
//! under the tabs' lock when the budget is shared, then one event at a time from the inbox.

use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use super::{Input, Live, Shared, Step};
use crate::machine::{Action, Operation};
use crate::stream::Closed;
use crate::web::platform::clock;
use crate::web::platform::inbox::Got;

/// Runs the stream until it stops or its caller closes it.
pub(super) async fn run(shared: Rc<Shared>) {
    loop {
        while let Some(step) = next_step(&shared) {
            decide(&shared, step).await;
            shared.report();
        }
        if shared.closing.get() {
            if let Ok(mut live) = shared.live.try_borrow_mut() {
                live.close();
            }
            shared.report();
        }
        match shared.live.try_borrow_mut() {
            Ok(live) if live.stopped => return,
            Ok(mut live) => live.arm(),
            Err(_) => {}
        }
        let got = poll_fn(|cx| match shared.live.try_borrow_mut() {
            Ok(mut live) => live.inbox.poll_next(cx),
            Err(_) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
        if let Ok(mut live) = shared.live.try_borrow_mut() {
            match got {
                Got::Posted(Input::Socket(id, event)) => live.on_socket(id, event),
                Got::Posted(Input::Closed) => {}
                Got::Due => live.on_due(),
            }
        }
        shared.report();
    }
}

fn next_step(shared: &Shared) -> Option<Step> {
    let mut live = shared.live.try_borrow_mut().ok()?;
    match live.stopped {
        true => None,
        false => live.steps.pop_front(),
    }
}

/// Takes `step` to the machine, under the share's lock when the budget is kept across tabs.
async fn decide(shared: &Shared, step: Step) {
    let driver = shared.driver.clone();
    // The lock's steps look at an operation: the outage's, or the next one's first attempt.
    let subject = match driver.share.is_some() {
        true => shared.live.try_borrow().ok().map(|live| live.subject()),
        false => None,
    };
    if let Some(op) = &subject {
        driver.enter_budget(op).await;
    }
    if let Ok(mut live) = shared.live.try_borrow_mut() {
        if !live.stopped {
            live.take(step);
        }
    }
    if let Some(op) = &subject {
        driver.leave_budget(op);
    }
}

impl Live {
    /// The operation a shared budget's step is about.
    fn subject(&self) -> Operation {
        let live = self.machine.outage().filter(|op| op.stopped().is_none()).cloned();
        live.unwrap_or_else(|| self.machine.outage_op(clock::now(), clock::wall_now()))
    }

    /// The machine's answer to `step`, acted on.
    fn take(&mut self, step: Step) {
        let (now, wall) = (clock::now(), clock::wall_now());
        let closed = {
            let (mut draws, mut budget) = (self.driver.draws.borrow_mut(), self.driver.budget.borrow_mut());
            match step {
                Step::Connect => Closed::Act(self.machine.connect(now, wall, &mut draws, &mut budget)),
                Step::Wake => Closed::Act(self.machine.on_wake(now, &mut budget)),
                Step::Closed(outcome, code) => {
                    self.machine.on_close(now, wall, &outcome, code, &mut draws, &mut budget)
                }
            }
        };
        match closed {
            Closed::Act(action) => self.act(action),
            Closed::Adopted => self.adopt(),
        }
    }

    /// Does what the machine said.
    fn act(&mut self, action: Action) {
        match action {
            Action::Send { timeout_ms, .. } => self.connect(timeout_ms, false),
            Action::Sleep { .. } => {
                self.set_state(super::StreamState::Waiting);
                let now = clock::now();
                let ms = self.machine.outage().map_or(0, |op| op.timer_ms(now));
                self.sleep_at = Some(now.saturating_add(ms));
            }
            Action::Stop(_) => self.finish(),
        }
    }

    /// The rotation's socket, still in flight, is the outage's attempt now.
    fn adopt(&mut self) {
        match self.rotation.take() {
            Some(mut link) => {
                link.rotating = false;
                let opened = link.opened_at.is_some();
                self.current = Some(link);
                self.set_state(super::StreamState::Connecting);
                // Already open (it had not delivered yet): the machine hears of it now, not never.
                if opened {
                    self.up();
                }
            }
            None => {
                let timeout_ms = self.machine.spec().policy.attempt_timeout_ms();
                self.connect(timeout_ms, false);
            }
        }
    }
}
