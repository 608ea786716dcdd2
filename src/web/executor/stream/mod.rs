//! The executor of a stream's session ([`crate::stream::session::Session`]): it opens and closes
//! the sockets it is told to, runs the caller's `on_open`, `resync` and heartbeat, writes what the
//! pace lets through, tells the reader, and feeds back what each socket and callback did, with one
//! timer armed where the session asks — as js/executor/stream.js does. It decides nothing.
//!
//! ```text
//! mod.rs    Streaming: the caller's side (events read, send, gap, close; dropping it closes)
//! feed.rs   the session fed, and each effect it hands out carried out
//! task.rs   the stream's task: what its sockets, timer, locks and the caller's callbacks came to
//! ```

mod feed;
mod task;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use super::client::Executor;
use super::settle::Stopped;
use crate::stream::session::{Session, SessionEvent, SessionSettings, StreamState};
use crate::stream::{Stream, StreamSpec};
use crate::web::platform::inbox::{Got, Inbox, Poster};
use crate::web::platform::socket::Message;
use crate::web::platform::tabs::Locks;
use crate::web::platform::{clock, spawn::spawn};
use feed::Live;
use task::{Input, Task};

/// What a caller's callback came to: done, or why not.
pub type Answer = Pin<Box<dyn Future<Output = Result<(), String>>>>;
/// Runs on each connection before it counts as up, given that connection to send on.
pub type OnOpen = Rc<dyn Fn(Sender) -> Answer>;
/// Rebuilds the caller's state after each open and on a gap.
pub type Resync = Rc<dyn Fn() -> Answer>;
/// The heartbeat's message (`None`: no ping this time).
pub type Ping = Rc<dyn Fn() -> Option<Message>>;

/// What the caller gave a stream beside the machine's spec, already checked.
pub struct Given {
    /// The URL each socket opens (the machine keeps it only redacted).
    pub url: String,
    pub protocols: Vec<String>,
    /// Sent, paced, on every connection as it opens, before `on_open` runs.
    pub subscribe: Vec<Message>,
    pub on_open: Option<OnOpen>,
    pub resync: Option<Resync>,
    /// Its period (ms) and message.
    pub heartbeat: Option<(u64, Ping)>,
}

/// What the reader takes, in order.
pub enum Event {
    Message(Message),
    State(StreamState),
    /// Stopped by its policy (not by the caller): why, and the last outage's records.
    Stopped(Box<Stopped>),
}

/// What the reader sees now.
#[derive(Clone, Copy)]
struct View {
    state: StreamState,
    last_message_wall: Option<u64>,
    stale_since_wall: Option<u64>,
}

/// A stream while it runs, held by the caller's handle and by its task.
struct Shared {
    exec: Rc<Executor>,
    given: Given,
    live: RefCell<Live>,
    /// Events fed while a feed was under way (a callback's send, a ping, a close): fed after it.
    queue: RefCell<VecDeque<(SessionEvent, Option<Message>)>>,
    /// Messages given to the pace, by id, until it writes them: (last id, queued).
    outgoing: RefCell<(u32, Vec<(u32, Message)>)>,
    view: Cell<View>,
    /// To the reader.
    told: Poster<Event>,
    /// To the task.
    post: Poster<Input>,
}

/// A stream, from the caller's side; dropping it closes the stream.
pub struct Streaming {
    shared: Rc<Shared>,
    events: RefCell<Inbox<Event>>,
}

/// One connection of a stream, as `on_open` is given it: what it sends goes on that connection.
#[derive(Clone)]
pub struct Sender {
    link: u32,
    shared: Weak<Shared>,
}

impl Executor {
    /// Begins a stream of `spec` on this client's budget, draws and observer; its task connects
    /// when the event loop next runs it.
    pub fn stream(self: &Rc<Self>, spec: StreamSpec, given: Given) -> Streaming {
        let settings = SessionSettings {
            on_open: given.on_open.is_some() || !given.subscribe.is_empty(),
            resync: given.resync.is_some(),
            heartbeat_ms: given.heartbeat.as_ref().map(|(every, _)| *every),
            observed: self.observer.is_some(),
        };
        let (inbox, events) = (Inbox::new(), Inbox::new());
        let (post, told) = (inbox.poster(), events.poster());
        let session = Session::new(Stream::begin(spec), settings);
        let view = View { state: StreamState::Connecting, last_message_wall: None, stale_since_wall: None };
        let shared = Rc::new(Shared {
            exec: self.clone(),
            given,
            live: RefCell::new(Live::new(session, inbox, Locks::new(self.held.share.clone()))),
            queue: RefCell::default(),
            outgoing: RefCell::default(),
            view: Cell::new(view),
            told,
            post,
        });
        spawn(Task::new(shared.clone()));
        Streaming { shared, events: RefCell::new(events) }
    }
}

impl Streaming {
    /// The next event, `Ready(None)` once the stream is over and every event was taken.
    pub fn poll_event(&self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let Ok(mut events) = self.events.try_borrow_mut() else {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        match events.poll_next(cx) {
            Poll::Ready(Got::Posted(event)) => Poll::Ready(Some(event)),
            _ if self.state() == StreamState::Stopped => Poll::Ready(None),
            _ => Poll::Pending,
        }
    }

    pub fn state(&self) -> StreamState {
        self.shared.view.get().state
    }

    /// When the last message came (Unix ms).
    pub fn last_message_at(&self) -> Option<u64> {
        self.shared.view.get().last_message_wall
    }

    /// How long it has been stale (ms; 0 while it is not).
    pub fn stale_for_ms(&self) -> u64 {
        self.shared.view.get().stale_since_wall.map_or(0, |at| clock::wall_now().saturating_sub(at))
    }

    /// Sends on the current connection, paced; `Err` with the state while none is open.
    pub fn send(&self, message: Message) -> Result<(), StreamState> {
        match self.state() {
            StreamState::Open | StreamState::Stale => self.shared.send(0, message),
            state => Err(state),
        }
    }

    /// The caller missed an update: stale until `resync` is done.
    pub fn gap(&self) {
        self.shared.feed_outside(SessionEvent::Gap);
    }

    /// Closes the stream for good: its sockets closed and its timer cleared, at once unless a
    /// budget shared across tabs must be held for the step.
    pub fn close(&self) {
        self.shared.feed_outside(SessionEvent::Close);
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        self.close();
    }
}

impl Sender {
    /// Sends on this connection, paced with the stream's other sends; `Err` once the stream is over.
    pub fn send(&self, message: Message) -> Result<(), StreamState> {
        self.shared.upgrade().map_or(Err(StreamState::Stopped), |shared| shared.send(self.link, message))
    }
}

impl Shared {
    /// Gives `message` to the pace for connection `link` (0: the current one).
    fn send(self: &Rc<Self>, link: u32, message: Message) -> Result<(), StreamState> {
        if self.view.get().state == StreamState::Stopped {
            return Err(StreamState::Stopped);
        }
        let id = {
            let mut outgoing = self.outgoing.borrow_mut();
            outgoing.0 = outgoing.0.wrapping_add(1);
            let id = outgoing.0;
            outgoing.1.push((id, message));
            id
        };
        self.feed_outside(SessionEvent::Send(id, link));
        Ok(())
    }

    /// Feeds what the caller did; the task then looks again at what it waits on (a new timer, a
    /// lock asked for), to be woken by it.
    fn feed_outside(self: &Rc<Self>, event: SessionEvent) {
        self.feed(event, None);
        self.post.wake();
    }
}
