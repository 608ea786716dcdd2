//! What a shell drives: a machine of the core — a call ([`crate::call::Call`]) or a stream's session
//! ([`crate::stream::session::Session`]) — fed what happened, polled for what to do, and woken at
//! its one timer, as quinn drives quinn-proto's `Connection`. One executor loop serves both.

use crate::budget::shared::SharedState;
use crate::call::Ctx;

/// A sans-IO machine of the core, as an executor runs it.
pub trait Sequencer {
    /// What the shell feeds back: a response's head, a timer, a store's answer, a socket's message.
    type Event;
    /// What the shell is told to do: send, abort, arm, store, ask, enter or leave the share, report.
    type Effect;
    /// Fed when the platform set no timer: no wait of the machine has a bound, and this ends it.
    const UNBOUNDED: Self::Event;
    /// The shared budget's lock of bracket `seq` is held, with its stored state (`None`: given up on).
    fn entered(seq: u32, state: Option<SharedState>) -> Self::Event;
    /// Takes in what happened, at `ctx`'s instant.
    fn handle(&mut self, event: Self::Event, ctx: &mut Ctx);
    /// The next thing to do, until there is none for now.
    fn poll(&mut self) -> Option<Self::Effect>;
    /// When to be woken with a timer, if anything waits on one.
    fn poll_timeout(&self) -> Option<u64>;
}

impl Sequencer for crate::call::Call {
    type Event = crate::call::Event;
    type Effect = crate::call::Effect;
    /// Every caller of it leaves, those that joined it too (coalescing): it is aborted.
    const UNBOUNDED: Self::Event = crate::call::Event::Leave(crate::call::EVERY_CALLER);

    fn entered(seq: u32, state: Option<SharedState>) -> Self::Event {
        crate::call::Event::Entered(seq, state)
    }
    fn handle(&mut self, event: Self::Event, ctx: &mut Ctx) {
        Self::handle(self, event, ctx);
    }
    fn poll(&mut self) -> Option<Self::Effect> {
        Self::poll(self)
    }
    fn poll_timeout(&self) -> Option<u64> {
        Self::poll_timeout(self)
    }
}

impl Sequencer for crate::stream::session::Session {
    type Event = crate::stream::session::SessionEvent;
    type Effect = crate::stream::session::SessionEffect;
    /// A stream that cannot bound its waits is closed.
    const UNBOUNDED: Self::Event = crate::stream::session::SessionEvent::Close;

    fn entered(seq: u32, state: Option<SharedState>) -> Self::Event {
        crate::stream::session::SessionEvent::Entered(seq, state)
    }
    fn handle(&mut self, event: Self::Event, ctx: &mut Ctx) {
        Self::handle(self, event, ctx);
    }
    fn poll(&mut self) -> Option<Self::Effect> {
        Self::poll(self)
    }
    fn poll_timeout(&self) -> Option<u64> {
        Self::poll_timeout(self)
    }
}
