//! The session fed, as quinn's driver feeds quinn-proto: each event handled at this instant, each
//! effect it hands out carried out — sockets opened and closed, the caller's callbacks begun,
//! writes, the reader told, records reported, the shared budget's locks — and the one timer armed
//! at `poll_timeout`. A callback that sends or closes from inside a feed is fed after it, in order.

use std::rc::Rc;

use super::task::{redacted, Callback, Input};
use super::{Event, Sender, Shared, View};
use crate::call::Ctx;
use crate::reason::Reason;
use crate::stream::session::{Session, SessionEffect, SessionEvent, StreamState};
use crate::web::executor::settle::{read_stopped, Stopped};
use crate::web::executor::shares;
use crate::web::platform::clock;
use crate::web::platform::inbox::Inbox;
use crate::web::platform::socket::{Message, Sockets};
use crate::web::platform::tabs::Locks;

/// What the session holds of the platform while it runs.
pub(super) struct Live {
    session: Session,
    sockets: Sockets,
    pub(super) inbox: Inbox<Input>,
    pub(super) locks: Locks,
    /// The session stopped: nothing is fed or armed any more.
    pub(super) ended: bool,
    /// The platform set no timer once: the stream was closed.
    unbounded: bool,
}

impl Live {
    pub(super) fn new(session: Session, inbox: Inbox<Input>, locks: Locks) -> Live {
        Live { session, sockets: Sockets::default(), inbox, locks, ended: false, unbounded: false }
    }
}

impl Shared {
    /// Feeds `event` (`data`: a message's, delivered if the session says so), then whatever was
    /// queued meanwhile, carrying out each effect; then arms the one timer where the session asks.
    pub(super) fn feed(self: &Rc<Self>, event: SessionEvent, data: Option<Message>) {
        self.queue.borrow_mut().push_back((event, data));
        // A feed under way (a callback of the caller's ran inside it) feeds this after its own.
        let Ok(mut live) = self.live.try_borrow_mut() else { return };
        loop {
            let next = self.queue.borrow_mut().pop_front();
            let Some((event, mut data)) = next else {
                let at = live.session.poll_timeout().filter(|_| !live.ended);
                // A platform whose timers throw cannot bound a wait: the stream is closed, once.
                if live.inbox.alarm_at(at) || std::mem::replace(&mut live.unbounded, true) {
                    break;
                }
                self.later(SessionEvent::Close);
                continue;
            };
            {
                let (now, wall) = (clock::now(), clock::wall_now());
                let (mut draws, mut budget) = (self.exec.draws.borrow_mut(), self.exec.held.budget.borrow_mut());
                live.session.handle(event, &mut Ctx { now, wall, draws: &mut draws, budget: &mut budget });
            }
            while let Some(effect) = live.session.poll() {
                self.perform(&mut live, effect, &mut data);
            }
        }
    }

    /// Queues `event`: the feed under way feeds it next.
    fn later(&self, event: SessionEvent) {
        self.queue.borrow_mut().push_back((event, None));
    }

    fn perform(self: &Rc<Self>, live: &mut Live, effect: SessionEffect, data: &mut Option<Message>) {
        match effect {
            SessionEffect::Share(share) => {
                if let Some((seq, state)) = shares::step(&mut live.locks, share) {
                    self.later(SessionEvent::Entered(seq, state));
                }
            }
            SessionEffect::Connect(link) => self.connect(live, link),
            SessionEffect::Close(link, code, reason) => live.sockets.close(link, code, reason),
            SessionEffect::OnOpen(link) => self.on_open(link),
            SessionEffect::State(state) => {
                let stale_since_wall = (state == StreamState::Stale).then(clock::wall_now);
                self.view.set(View { state, stale_since_wall, ..self.view.get() });
                // The end is told by `Stopped`, or by the events ending.
                match state {
                    StreamState::Stopped => self.told.wake(),
                    state => self.told.post(Event::State(state)),
                }
            }
            SessionEffect::Deliver => {
                self.view.set(View { last_message_wall: Some(clock::wall_now()), ..self.view.get() });
                if let Some(message) = data.take() {
                    self.told.post(Event::Message(message));
                }
            }
            SessionEffect::Write(id, link) => {
                let message = {
                    let mut outgoing = self.outgoing.borrow_mut();
                    let at = outgoing.1.iter().position(|(i, _)| *i == id);
                    at.map(|at| outgoing.1.remove(at).1)
                };
                if let Some(message) = message {
                    live.sockets.send(link, &message);
                }
            }
            SessionEffect::Ping(link) => {
                if let Some(message) = self.given.heartbeat.as_ref().and_then(|(_, ping)| ping()) {
                    let _ = self.send(link, message);
                }
            }
            SessionEffect::Resync(round) => match self.given.resync.as_ref() {
                Some(resync) => self.post.post(Input::Begun(Callback::Resync(round, resync()))),
                None => self.later(SessionEvent::Resynced(round, true)),
            },
            SessionEffect::Report => {
                let records = live.session.take_records();
                if let Some(observer) = self.exec.observer.as_ref() {
                    for record in &records {
                        observer(record);
                    }
                }
            }
            SessionEffect::Stopped(reason) => self.stopped(live, reason),
        }
    }

    /// Opens the socket of connection `link`; what it does is posted to the task.
    fn connect(&self, live: &mut Live, link: u32) {
        let post = self.post.clone();
        let on = Rc::new(move |link, event| post.post(Input::Socket(link, event)));
        if let Err(why) = live.sockets.open(link, &self.given.url, &self.given.protocols, on) {
            self.later(SessionEvent::Failed(link, redacted(&why)));
        }
    }

    /// The subscriptions, then the caller's `on_open`, on connection `link`.
    fn on_open(self: &Rc<Self>, link: u32) {
        for message in &self.given.subscribe {
            let _ = self.send(link, message.clone());
        }
        match self.given.on_open.as_ref() {
            Some(on_open) => {
                let answer = on_open(Sender { link, shared: Rc::downgrade(self) });
                self.post.post(Input::Begun(Callback::OnOpen(link, answer)));
            }
            None => self.later(SessionEvent::OnOpenDone(link, Ok(()))),
        }
    }

    /// The session is over: its sockets closed, its lock let go, its task ended, the reader told why.
    fn stopped(&self, live: &mut Live, reason: Reason) {
        live.ended = true;
        live.sockets.clear();
        live.locks.abandon();
        self.outgoing.borrow_mut().1.clear();
        self.post.wake();
        if reason != Reason::Aborted {
            let stopped =
                read_stopped(&live.session.stop_json()).unwrap_or_else(|| Stopped::bare(reason, None, Vec::new()));
            self.told.post(Event::Stopped(Box::new(stopped)));
        }
    }
}
