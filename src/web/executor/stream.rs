//! The carrier of a stream's session ([`crate::stream::session::Session`]), as
//! js/executor/stream.js: it opens and closes the sockets it is told to, runs the caller's
//! `on_open`, `resync` and heartbeat, writes what the pace lets through and tells the caller; what
//! each socket and callback did goes back through the driver. [`Streaming`] is the caller's side:
//! its sends, gaps and close; dropping it closes the stream.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll};

use super::drive::{Answer, Carrier, Driven, Run};
use super::Executor;
use crate::reason::Reason;
use crate::stream::session::{PageSignal, Session, SessionEffect, SessionEvent, StreamState};
use crate::web::platform::inbox::{Inbox, Poster};
use crate::web::platform::page::Page;

mod opening;
use crate::web::platform::socket::{Message, SocketEvent, Sockets};
use crate::web::platform::spawn::spawn;

/// Runs on each connection before it counts as up, given that connection to send on.
pub type OnOpen = Rc<dyn Fn(Sender) -> Answer<Result<(), String>>>;
/// Rebuilds the caller's state after each open and on a gap.
pub type Resync = Rc<dyn Fn() -> Answer<Result<(), String>>>;
/// The heartbeat's message (`None`: no ping this time).
pub type Ping = Rc<dyn Fn() -> Option<Message>>;
/// Told each event as it happens.
pub type Listener = Rc<dyn Fn(Event)>;
/// Gives each connection attempt's URL.
pub type UrlFn = Rc<dyn Fn() -> Answer<Result<String, String>>>;
/// Gives each connection attempt's subprotocols.
pub type ProtocolsFn = Rc<dyn Fn() -> Answer<Result<Vec<String>, String>>>;
/// A connection's URL and subprotocols, once the caller's providers gave them.
type Resolved = Result<(String, Vec<String>), String>;

/// What the caller gave a stream beside the machine's spec, already checked.
pub struct Given {
    /// The URL each socket opens (the machine keeps it only redacted).
    pub url: String,
    pub protocols: Vec<String>,
    /// Asked for each attempt's URL instead.
    pub url_provider: Option<UrlFn>,
    /// Asked for each attempt's subprotocols instead.
    pub protocols_provider: Option<ProtocolsFn>,
    /// The page's own signals go to the session (in a browser page).
    pub page_signals: bool,
    /// Sent, paced, on every connection as it opens, before `on_open` runs.
    pub subscribe: Vec<Message>,
    pub on_open: Option<OnOpen>,
    pub resync: Option<Resync>,
    /// Its period (ms) and message.
    pub heartbeat: Option<(u64, Ping)>,
    /// What the caller is told (the API queues it for its reader, or hands it to the caller's listener).
    pub on_event: Option<Listener>,
}

/// What the caller is told, in order.
pub enum Event {
    Message(Message),
    State(StreamState),
    /// Stopped by its policy (not by the caller): why, and the stop as the session wrote it.
    Stopped(Reason, String),
    /// The server closed a connection that was up: its code and reason.
    Closed(u16, String),
    /// A message sent will never be written: why.
    Unsent(Message, &'static str),
}

/// What the caller's handles share with the carrier, outside the session's borrow.
struct Face {
    /// The session said it stopped: nothing more is sent.
    stopped: Cell<bool>,
    /// Messages in and out by id, until the session says where each goes: (last id, kept).
    messages: RefCell<(u32, Vec<(u32, Message)>)>,
    /// To the task: what socket `link` did.
    post: Poster<(u32, SocketEvent)>,
    /// Why the caller's last `reconnect()` was refused, until it reads it.
    refused: RefCell<Option<String>>,
    /// Stopped by its policy, and kept for a reconnect.
    halted: Cell<bool>,
    /// The page's listeners, while the stream runs (a browser page only).
    page: RefCell<Option<Page>>,
}

/// What carries out a session's effects, and what they made.
struct Streamed {
    given: Given,
    sockets: Sockets,
    inbox: Inbox<(u32, SocketEvent)>,
    /// Connections waiting for their URL or subprotocols from the caller's providers.
    resolving: Vec<(u32, Answer<Resolved>)>,
}

/// A stream, from the caller's side; dropping it closes the stream.
pub struct Streaming(Rc<Driven<Streamed>>);

/// One connection of a stream, as `on_open` is given it: what it sends goes on that connection.
#[derive(Clone)]
pub struct Sender {
    link: u32,
    driven: Weak<Driven<Streamed>>,
    /// The connection's socket, as the platform made it.
    socket: Option<web_sys::WebSocket>,
}

impl Executor {
    /// Runs `session` on this client's budget, draws and observer, from the event loop's next turn.
    pub fn stream(self: &Rc<Self>, session: Session, given: Given) -> Streaming {
        let inbox = Inbox::new();
        let face = Face {
            stopped: Cell::new(false),
            messages: RefCell::default(),
            post: inbox.poster(),
            refused: RefCell::default(),
            halted: Cell::new(false),
            page: RefCell::new(None),
        };
        let listens = given.page_signals;
        let streamed = Streamed { given, sockets: Sockets::default(), inbox, resolving: Vec::new() };
        let driven = Driven::new(session, streamed, face, self.clone());
        let heard = Rc::downgrade(&driven);
        let tell = Rc::new(move |signal| {
            if let Some(driven) = heard.upgrade() {
                fed(&driven, SessionEvent::Page(signal));
            }
        });
        let page = if listens { Page::listen(tell) } else { None };
        *driven.face.page.borrow_mut() = page;
        let task = driven.clone();
        spawn(poll_fn(move |cx| task.poll(cx)));
        Streaming(driven)
    }
}

impl Carrier for Streamed {
    type Machine = Session;
    type Face = Face;
    type Output = ();

    fn first(&mut self) -> SessionEvent {
        SessionEvent::Start
    }

    fn perform(run: &mut Run<Self>, effect: SessionEffect, driven: &Rc<Driven<Self>>) -> Option<()> {
        let (me, face) = (&mut run.carrier, &driven.face);
        match effect {
            SessionEffect::Share(share) => {
                if let Some(event) = run.share(share) {
                    driven.later(event);
                }
            }
            SessionEffect::Connect(link) => match me.given.resolve() {
                Some(answer) => me.resolving.push((link, answer)),
                None => {
                    let (url, protocols) = (me.given.url.clone(), me.given.protocols.clone());
                    if let Err(why) = me.open(link, &url, &protocols, face) {
                        driven.later(SessionEvent::Failed(link, why));
                    }
                }
            },
            SessionEffect::Close(link, code, reason) => {
                // A connection still waiting for its URL is never made.
                me.resolving.retain(|(waiting, _)| *waiting != link);
                me.sockets.close(link, code, &reason);
            }
            SessionEffect::OnOpen(link) => {
                let socket = me.sockets.socket(link);
                for message in &me.given.subscribe {
                    let _ = send(driven, link, message.clone());
                }
                let Some(on_open) = &me.given.on_open else {
                    driven.later(SessionEvent::OnOpenDone(link, Ok(())));
                    return None;
                };
                let answer = on_open(Sender { link, driven: Rc::downgrade(driven), socket });
                run.pending.push(Box::pin(async move { SessionEvent::OnOpenDone(link, answer.await) }));
            }
            SessionEffect::State(state) => {
                face.stopped.set(state == StreamState::Stopped);
                me.tell(Event::State(state));
            }
            SessionEffect::Deliver(id) => {
                if let Some(message) = face.take(id) {
                    me.tell(Event::Message(message));
                }
            }
            SessionEffect::Discard(id) => drop(face.take(id)),
            SessionEffect::Write(id, link) => {
                if let Some(message) = face.take(id) {
                    me.sockets.send(link, &message);
                }
            }
            SessionEffect::Ping(link) => {
                if let Some(message) = me.given.heartbeat.as_ref().and_then(|(_, ping)| ping()) {
                    let _ = send(driven, link, message);
                }
            }
            SessionEffect::Resync(round) => match &me.given.resync {
                Some(resync) => {
                    let answer = resync();
                    run.pending.push(Box::pin(async move { SessionEvent::Resynced(round, answer.await.is_ok()) }));
                }
                None => driven.later(SessionEvent::Resynced(round, true)),
            },
            SessionEffect::Report => run.exec.report(&run.machine.take_records()),
            SessionEffect::ServerClosed(code, reason) => me.tell(Event::Closed(code, reason)),
            SessionEffect::Unsent(id, why) => {
                if let Some(message) = face.take(id) {
                    me.tell(Event::Unsent(message, why));
                }
            }
            SessionEffect::ReconnectRefused(_, why) => {
                face.halted.set(face.stopped.get());
                *face.refused.borrow_mut() = Some(why);
            }
            SessionEffect::Stopped(reason) => {
                me.sockets.clear();
                face.messages.borrow_mut().1.clear();
                if reason != Reason::Aborted {
                    // Stopped by its policy: told, and kept for a reconnect (a close ends it).
                    face.halted.set(true);
                    me.tell(Event::Stopped(reason, run.machine.stop_json()));
                    return None;
                }
                // Its task ends: closed, it is over (a policy's stop kept for a reconnect is not).
                face.halted.set(false);
                face.page.borrow_mut().take();
                face.post.wake();
                return Some(());
            }
        }
        None
    }

    fn gather(run: &mut Run<Self>, face: &Face, cx: &mut Context<'_>, came: &mut Vec<SessionEvent>) {
        // The caller's callbacks.
        run.answered(cx, came);
        run.locked(cx, came);
        run.carrier.resolved(face, cx, came);
        match run.carrier.inbox.poll_next(cx) {
            Poll::Ready((link, event)) => came.push(heard(link, event, face)),
            Poll::Pending if run.due(cx) => came.push(SessionEvent::Timer),
            Poll::Pending => {}
        }
    }

    /// Closes its sockets quietly.
    fn end(&mut self) {
        self.sockets.clear();
    }
}

impl Streamed {
    fn tell(&self, event: Event) {
        if let Some(tell) = &self.given.on_event {
            tell(event);
        }
    }
}

impl Streaming {
    /// Sends on the current connection, paced; `Err` once the stream is over.
    pub fn send(&self, message: Message) -> Result<(), StreamState> {
        send(&self.0, 0, message)
    }

    /// The caller missed an update: stale until `resync` is done.
    pub fn gap(&self) {
        fed(&self.0, SessionEvent::Gap);
    }

    /// Closes it for good: at once, unless a budget shared across tabs must be held for the step.
    pub fn close(&self) {
        fed(&self.0, SessionEvent::Close);
    }

    /// Closes it for good with the caller's close code and reason (already checked).
    pub fn close_with(&self, code: u16, reason: &str) {
        fed(&self.0, SessionEvent::CloseWith(code, reason.to_owned()));
    }

    /// Drops the connection and begins a fresh outage at once (code 0: 1000 "reconnect"), after a
    /// stop by its policy too; `Err` with why when refused (after `close`, while the scope is banned).
    pub fn reconnect(&self, code: u16, reason: &str) -> Result<(), String> {
        if self.0.face.stopped.get() && !self.0.face.halted.replace(false) {
            return Err("reconnect refused: close() ended the stream for good (make a new stream)".into());
        }
        *self.0.face.refused.borrow_mut() = None;
        fed(&self.0, SessionEvent::Reconnect(code, reason.to_owned()));
        self.0.face.refused.borrow_mut().take().map_or(Ok(()), Err)
    }

    /// What the page said of itself (offline, online, hidden, visible, a wake).
    pub fn page(&self, signal: PageSignal) {
        fed(&self.0, SessionEvent::Page(signal));
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
        self.driven.upgrade().map_or(Err(StreamState::Stopped), |driven| send(&driven, self.link, message))
    }

    /// The connection's socket (`None` if it was gone before `on_open` was called).
    pub fn socket(&self) -> Option<&web_sys::WebSocket> {
        self.socket.as_ref()
    }
}

/// Gives `message` to the pace for connection `link` (0: the current one).
fn send(driven: &Rc<Driven<Streamed>>, link: u32, message: Message) -> Result<(), StreamState> {
    if driven.face.stopped.get() {
        return Err(StreamState::Stopped);
    }
    let id = driven.face.keep(message);
    fed(driven, SessionEvent::Send(id, link));
    Ok(())
}

/// Feeds what the caller did; its task then looks again at what it waits on (a new timer, a lock).
fn fed(driven: &Rc<Driven<Streamed>>, event: SessionEvent) {
    driven.feed(event);
    driven.face.post.wake();
}

/// What socket `link` did, as the session hears it.
fn heard(link: u32, event: SocketEvent, face: &Face) -> SessionEvent {
    match event {
        SocketEvent::Open => SessionEvent::Opened(link),
        SocketEvent::Message(message) => SessionEvent::Message(link, face.keep(message)),
        SocketEvent::Closed { code, reason } => SessionEvent::Closed(link, code, reason),
        SocketEvent::Refused { status, retry_after, date } => SessionEvent::Refused(link, status, retry_after, date),
    }
}

impl Face {
    /// Keeps `message` under a new id, until the session says where it goes.
    fn keep(&self, message: Message) -> u32 {
        let mut messages = self.messages.borrow_mut();
        let id = messages.0.wrapping_add(1);
        messages.0 = id;
        messages.1.push((id, message));
        id
    }

    /// Message `id`, let go of as it is handed on.
    fn take(&self, id: u32) -> Option<Message> {
        let mut messages = self.messages.borrow_mut();
        let at = messages.1.iter().position(|(i, _)| *i == id)?;
        Some(messages.1.remove(at).1)
    }
}
