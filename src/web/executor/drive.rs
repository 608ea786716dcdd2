//! One machine carried out — a call's or a stream's session — as js/executor/drive.js does and as
//! quinn's driver runs quinn-proto's `Connection`: each event fed to it at this instant, every
//! effect it hands out done (a step on the shared budget here, the rest by its [`Carrier`]), then
//! its one timer armed at `poll_timeout`. An event fed while effects are being done (a callback's
//! send, a close) waits its turn. The machine ends when its carrier says so, or when it is
//! dropped: its timer cleared, its lock let go, the answers it waited for dropped.

use std::cell::{Ref, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use super::Executor;
use crate::budget::sharing::Share;
use crate::call::Ctx;
pub(super) use crate::sequencer::Sequencer as Machine;
use crate::web::platform::alarm::Alarm;
use crate::web::platform::clock;
use crate::web::platform::tabs::Locks;

/// An answer to come from the caller's code (a predicate, a callback, a store call).
pub type Answer<T> = Pin<Box<dyn Future<Output = T>>>;

pub(super) type Event<C> = <<C as Carrier>::Machine as Machine>::Event;
pub(super) type Effect<C> = <<C as Carrier>::Machine as Machine>::Effect;

/// What carries out one kind of machine's effects, and holds what they made: all that differs.
pub(super) trait Carrier: Sized + 'static {
    type Machine: Machine;
    /// What the caller sees of it while it runs, outside the machine's borrow (a stream's state).
    type Face;
    /// What the machine ended with, for its future.
    type Output;
    /// The event it begins with, fed when its task first runs.
    fn first(&mut self) -> Event<Self>;
    /// Does `effect`; `Some` once the machine is over.
    fn perform(run: &mut Run<Self>, effect: Effect<Self>, driven: &Rc<Driven<Self>>) -> Option<Self::Output>;
    /// What came of everything the machine waits on, its own and the driver's, in its order.
    fn gather(run: &mut Run<Self>, face: &Self::Face, cx: &mut Context<'_>, came: &mut Vec<Event<Self>>);
    /// Lets go of what it holds.
    fn end(&mut self);
}

/// A machine driven: held by its future or task (and by a stream's caller).
pub(super) struct Driven<C: Carrier> {
    pub face: C::Face,
    run: RefCell<Run<C>>,
    /// Events fed while a feed was under way: fed after it, in order.
    queue: RefCell<VecDeque<Event<C>>>,
}

/// A machine, its carrier and the driver's own waits: its timer, its locks, the answers to come.
pub(super) struct Run<C: Carrier> {
    pub machine: C::Machine,
    pub carrier: C,
    pub exec: Rc<Executor>,
    pub pending: Vec<Answer<Event<C>>>,
    alarm: Option<Alarm>,
    locks: Locks,
    begun: bool,
    unbounded: bool,
    ended: bool,
    output: Option<C::Output>,
}

impl<C: Carrier> Driven<C> {
    pub fn new(machine: C::Machine, carrier: C, face: C::Face, exec: Rc<Executor>) -> Rc<Driven<C>> {
        let locks = Locks::new(exec.share.clone());
        let (alarm, output, pending) = (None, None, Vec::new());
        let (begun, unbounded, ended) = (false, false, false);
        let run = Run { machine, carrier, exec, pending, alarm, locks, begun, unbounded, ended, output };
        Rc::new(Driven { face, run: RefCell::new(run), queue: RefCell::default() })
    }

    /// The machine, between feeds.
    pub fn machine(&self) -> Ref<'_, C::Machine> {
        Ref::map(self.run.borrow(), |run| &run.machine)
    }

    /// `f` on the machine's run, unless a feed is under way.
    pub fn with_run<R>(&self, f: impl FnOnce(&mut Run<C>) -> R) -> Option<R> {
        self.run.try_borrow_mut().ok().map(|mut run| f(&mut run))
    }

    /// Queues `event`: the feed under way feeds it next.
    pub fn later(&self, event: Event<C>) {
        self.queue.borrow_mut().push_back(event);
    }

    /// Feeds `event` and what was queued meanwhile, carrying out each effect; then arms the timer.
    pub fn feed(self: &Rc<Self>, event: Event<C>) {
        self.queue.borrow_mut().push_back(event);
        // A feed under way (the caller's code ran inside it) feeds this after its own.
        let Ok(mut run) = self.run.try_borrow_mut() else { return };
        while !run.ended {
            let next = self.queue.borrow_mut().pop_front();
            let Some(event) = next else {
                match run.arm() {
                    true => self.later(<C::Machine as Machine>::UNBOUNDED),
                    false => break,
                }
                continue;
            };
            run.handle(event);
            while let Some(effect) = run.machine.poll() {
                if let Some(output) = C::perform(&mut run, effect, self) {
                    run.output = Some(output);
                    run.end();
                    break;
                }
            }
        }
        if run.ended {
            self.queue.borrow_mut().clear();
        }
    }

    /// Runs the machine from its first event until it ends, feeding what came of its waits.
    pub fn poll(self: &Rc<Self>, cx: &mut Context<'_>) -> Poll<C::Output> {
        loop {
            let came = {
                let Ok(mut run) = self.run.try_borrow_mut() else {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                };
                if run.ended {
                    return run.output.take().map_or(Poll::Pending, Poll::Ready);
                }
                let mut came = Vec::new();
                match std::mem::replace(&mut run.begun, true) {
                    true => C::gather(&mut run, &self.face, cx, &mut came),
                    false => came.push(run.carrier.first()),
                }
                came
            };
            if came.is_empty() {
                return Poll::Pending;
            }
            for event in came {
                self.feed(event);
            }
        }
    }
}

impl<C: Carrier> Run<C> {
    fn handle(&mut self, event: Event<C>) {
        let (mut draws, mut budget) = (self.exec.draws.borrow_mut(), self.exec.budget.borrow_mut());
        let ctx = &mut Ctx { now: clock::now(), wall: clock::wall_now(), draws: &mut draws, budget: &mut budget };
        self.machine.handle(event, ctx);
    }

    /// The one timer, where the machine wants it; `true` once if the platform set none.
    fn arm(&mut self) -> bool {
        let at = self.machine.poll_timeout();
        if self.alarm.as_ref().map(Alarm::instant) != at {
            self.alarm = at.map(Alarm::at);
        }
        self.alarm.as_ref().is_some_and(|alarm| !alarm.is_set()) && !std::mem::replace(&mut self.unbounded, true)
    }

    /// A step on the shared budget, with the share's locks; the answer, if it is due now.
    pub fn share(&mut self, share: Share) -> Option<Event<C>> {
        let entered = <C::Machine as Machine>::entered;
        match share {
            // Without a share (or a lock to ask for), at once.
            Share::Enter { seq, within_ms } => (!self.locks.enter(seq, within_ms)).then(|| entered(seq, None)),
            Share::Leave { state, news } => {
                self.locks.leave(state.as_deref(), news);
                None
            }
            // A budget of the Rust API is never leased from a coordinator.
            Share::Visit { seq, waits: true, .. } => Some(entered(seq, None)),
            Share::Visit { .. } => None,
        }
    }

    /// Whether the timer fired (it is then unset).
    pub fn due(&mut self, cx: &mut Context<'_>) -> bool {
        let due = self.alarm.as_mut().is_some_and(|alarm| alarm.poll_due(cx).is_ready());
        if due {
            self.alarm = None;
        }
        due
    }

    /// Each lock of the shared budget held or given up on, queued in `came`.
    pub fn locked(&mut self, cx: &mut Context<'_>, came: &mut Vec<Event<C>>) {
        let entered = <C::Machine as Machine>::entered;
        self.locks.poll(cx, |seq, state| came.push(entered(seq, state)));
    }

    /// Each answer that came, queued in `came`.
    pub fn answered(&mut self, cx: &mut Context<'_>, came: &mut Vec<Event<C>>) {
        self.pending.retain_mut(|answer| match answer.as_mut().poll(cx) {
            Poll::Ready(event) => {
                came.push(event);
                false
            }
            Poll::Pending => true,
        });
    }

    /// Lets go of its timer, the answers it waits for, a lock held or yet to be granted, its carrier's.
    fn end(&mut self) {
        self.ended = true;
        (self.alarm, self.pending) = (None, Vec::new());
        self.locks.abandon();
        self.carrier.end();
    }
}

impl<C: Carrier> Drop for Run<C> {
    fn drop(&mut self) {
        self.end();
    }
}
