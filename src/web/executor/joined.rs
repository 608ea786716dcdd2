//! Coalesced reads in the Rust API (`coalesce`), as js/executor/coalesced.js: the core decides at
//! the start whether a call joins the same read running for this client, and when a joined caller
//! leaves (its abort, its own earlier deadline); this holds each joined caller's slot, fills it
//! with its own copy of the outcome, and lets a joined caller drive the read when the caller who
//! began it has gone.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use web_sys::AbortSignal;

use super::call::Calling;
use super::drive::Driven;
pub use super::join_slot::{JoinOutcome, JoinSlot};
use super::Executor;
use crate::call::{Call, Event};
use crate::web::platform::abort::{AbortWatch, Listening};

/// The running coalescing calls of a client, by which a new read finds one to join.
#[derive(Default)]
pub struct Joinable(RefCell<Vec<Weak<Driven<Calling>>>>);

impl Joinable {
    pub(super) fn add(&self, driven: &Rc<Driven<Calling>>) {
        let mut all = self.0.borrow_mut();
        all.retain(|d| d.strong_count() > 0);
        all.push(Rc::downgrade(driven));
    }
}

/// A call joined to the same read running: it waits for its outcome, its own abort and deadline aside.
pub struct Joined {
    leader: Rc<Driven<Calling>>,
    id: u32,
    slot: Rc<JoinSlot>,
    _signals: AbortWatch,
    listening: Option<Listening>,
}

/// `call` (not begun) joins a read of `exec` running the same request, if the core lets it.
pub fn join(exec: &Rc<Executor>, call: &Call, signals: Vec<AbortSignal>) -> Option<Joined> {
    let running: Vec<Rc<Driven<Calling>>> = exec.joinable.0.borrow().iter().filter_map(Weak::upgrade).collect();
    let slot = Rc::new(JoinSlot::default());
    for leader in running {
        let joined = leader.with_run(|run| {
            let id = run.machine.join(call, true)?;
            run.carrier.joiners.push((id, slot.clone()));
            Some(id)
        });
        if let Some(Some(id)) = joined {
            let watch = AbortWatch::new(signals);
            let listening = watch.listen();
            return Some(Joined { leader, id, slot, _signals: watch, listening });
        }
    }
    None
}

impl Future for Joined {
    type Output = JoinOutcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<JoinOutcome> {
        let me = &mut *self;
        if me.listening.as_mut().is_some_and(|l| l.poll_aborted(cx).is_ready()) {
            me.listening = None;
            me.leader.feed(Event::Leave(me.id));
        }
        me.slot.listen(cx.waker());
        // The caller who began it has gone: a joined caller drives the read (its output is no one's).
        if !me.slot.is_filled() && me.leader.with_run(|run| run.carrier.driverless).unwrap_or(false) {
            let _ = me.leader.poll(cx);
        }
        let Some(outcome) = me.slot.take() else { return Poll::Pending };
        // Its task ends: the read's timers and answers may have woken only it, so another drives on.
        me.leader.with_run(|run| run.carrier.wake_joiners());
        Poll::Ready(outcome)
    }
}

impl Drop for Joined {
    fn drop(&mut self) {
        // Cancelled before its outcome: it leaves, and another joined caller may have to drive.
        if !self.slot.is_filled() {
            self.leader.feed(Event::Leave(self.id));
            self.leader.with_run(|run| run.carrier.wake_joiners());
        }
    }
}
