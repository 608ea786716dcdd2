//! A stream's driver: the core's [`Stream`](crate::stream::Stream) machine decides connect, sleep or
//! stop, and when an open connection is stale, replaced or rotated; this opens the sockets, keeps
//! the timers, and tells the machine what each socket did (js/drivers/stream.js, in Rust).
//!
//! ```text
//! mod.rs    Streaming: the caller's side (events, state, send, close); dropping it closes
//! driver.rs what it takes of its client: budget, draws, observer; the tabs' lock around a step
//! failed.rs how a stream that stopped is described
//! run.rs    the task: budget steps (under the tabs' lock when shared), then one event at a time
//! links.rs  the sockets: connect, open, message, close; a rotation's socket taking over
//! watch.rs  the alarm's instants: connect timeouts, the planned sleep, checks, the send pace
//! pace.rs   sendPerSecond: a bucket of sends, the rest queued in order
//! ```
//!
//! Everything the stream holds (machine, sockets, instants) is in one `RefCell` that the task and
//! the caller's handle share, so that dropping the handle closes the sockets and clears the
//! timer at once, not when the task next runs.

mod driver;
mod failed;
mod links;
mod pace;
mod run;
mod watch;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::failure::Note;
use crate::machine::Outcome;
use crate::reason::Reason;
use crate::redact::redact_url;
use crate::stream::{Stream as Machine, StreamSpec};
use crate::web::platform::clock;
use crate::web::platform::inbox::{Inbox, Poster};
use crate::web::platform::socket::{Message, Socket, SocketEvent};
use crate::web::platform::spawn::spawn;
pub use driver::Driver;
pub use failed::Failure;
use pace::Pace;

/// Where a stream is, as its caller sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    /// A connection attempt is in flight.
    Connecting,
    /// A connection is open and delivering (or has not been silent long).
    Open,
    /// Open, but nothing came for `stale_after_ms`.
    Stale,
    /// Down, waiting out a backoff, a provider's wait or the budget before the next attempt.
    Waiting,
    /// Over: closed by the caller, or stopped by the policy (the last event says why).
    Stopped,
}

/// What the caller's handle reads, in order.
pub enum Event {
    Message(Message),
    State(StreamState),
    /// Stopped by the machine (not by the caller): why, and the last outage's records.
    Stopped(Box<Failure>),
}

/// What the socket needs beyond the machine's spec.
pub struct Opening {
    /// The URL each socket opens (the machine keeps it only redacted).
    pub url: String,
    pub protocols: Vec<String>,
    /// Sent on every connection as it opens: subscriptions survive reconnects.
    pub subscribe: Vec<Message>,
}

/// What wakes the task.
enum Input {
    Socket(u32, SocketEvent),
    /// The caller closed the stream (or dropped it): the task ends.
    Closed,
}

/// What the task must take to the machine under the budget's lock.
enum Step {
    Connect,
    Wake,
    /// The current connection closed or its attempt failed, with its close code if it had one.
    Closed(Outcome, Option<u16>),
}

/// One socket and what the driver knows of it.
struct Link {
    id: u32,
    /// `None`: the constructor threw (the failure is on its way to the machine).
    socket: Option<Socket>,
    rotating: bool,
    opened_at: Option<u64>,
    /// Its connect timeout: when it must have opened (`None` once open).
    connect_by: Option<u64>,
    timeout_ms: u64,
}

/// What the caller reads: the events not yet taken, and the state.
struct View {
    events: VecDeque<Event>,
    reader: Option<Waker>,
    state: StreamState,
    last_message_wall: Option<u64>,
    stale_since_wall: Option<u64>,
}

/// Everything the stream holds while it runs.
struct Live {
    machine: Machine,
    driver: Rc<Driver>,
    opening: Opening,
    view: Rc<RefCell<View>>,
    inbox: Inbox<Input>,
    current: Option<Link>,
    rotation: Option<Link>,
    next_link: u32,
    steps: VecDeque<Step>,
    /// The planned sleep's timer end (monotonic ms).
    sleep_at: Option<u64>,
    /// The next check of the open connection.
    watch_at: Option<u64>,
    /// When the current connection's last message came (monotonic ms).
    heard_at: Option<u64>,
    pace: Option<Pace>,
    stopped: bool,
}

struct Shared {
    live: RefCell<Live>,
    view: Rc<RefCell<View>>,
    driver: Rc<Driver>,
    post: Poster<Input>,
    /// Set when the caller closed while the stream was busy: the task closes it.
    closing: Cell<bool>,
}

/// A stream in progress, from the caller's side; dropping it closes the stream.
pub struct Streaming {
    shared: Rc<Shared>,
}

impl Streaming {
    /// Begins the stream and starts its task: the first attempt goes out when the event loop runs it.
    pub fn start(driver: Rc<Driver>, spec: StreamSpec, opening: Opening) -> Streaming {
        let view = Rc::new(RefCell::new(View {
            events: VecDeque::new(),
            reader: None,
            state: StreamState::Connecting,
            last_message_wall: None,
            stale_since_wall: None,
        }));
        let pace = spec.send_per_second.map(|n| Pace::new(n, clock::now()));
        let inbox = Inbox::new();
        let post = inbox.poster();
        let live = Live {
            machine: Machine::begin(spec),
            driver: driver.clone(),
            opening,
            view: view.clone(),
            inbox,
            current: None,
            rotation: None,
            next_link: 1,
            steps: VecDeque::from([Step::Connect]),
            sleep_at: None,
            watch_at: None,
            heard_at: None,
            pace,
            stopped: false,
        };
        let shared = Rc::new(Shared { live: RefCell::new(live), view, driver, post, closing: Cell::new(false) });
        spawn(run::run(shared.clone()));
        Streaming { shared }
    }

    /// The next event, `Ready(None)` once the stream is over and every event was taken.
    pub fn poll_event(&self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let Ok(mut view) = self.shared.view.try_borrow_mut() else {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        match view.events.pop_front() {
            Some(event) => Poll::Ready(Some(event)),
            None if view.state == StreamState::Stopped => Poll::Ready(None),
            None => {
                view.reader = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    pub fn state(&self) -> StreamState {
        self.shared.view.try_borrow().map_or(StreamState::Stopped, |v| v.state)
    }

    /// When the last message came (Unix ms).
    pub fn last_message_at(&self) -> Option<u64> {
        self.shared.view.try_borrow().ok().and_then(|v| v.last_message_wall)
    }

    /// How long it has been stale (ms; 0 while it is not).
    pub fn stale_for_ms(&self) -> u64 {
        let since = self.shared.view.try_borrow().ok().and_then(|v| v.stale_since_wall);
        since.map_or(0, |at| clock::wall_now().saturating_sub(at))
    }

    /// Sends on the open connection (paced); `Err` with the state when none is open.
    pub fn send(&self, message: Message) -> Result<(), StreamState> {
        let state = self.state();
        let Ok(mut live) = self.shared.live.try_borrow_mut() else { return Err(state) };
        let open = live.current.as_ref().filter(|l| l.opened_at.is_some() && l.socket.is_some()).map(|l| l.id);
        match (open, live.stopped) {
            (Some(id), false) => {
                live.send_on(id, message);
                live.arm();
                Ok(())
            }
            _ => Err(state),
        }
    }

    /// Closes the stream for good: its sockets closed, its timer cleared, its task ended.
    pub fn close(&self) {
        match self.shared.live.try_borrow_mut() {
            Ok(mut live) => live.close(),
            // The stream is in a step of its own (an observer of its records closed it): the task closes it.
            Err(_) => self.shared.closing.set(true),
        }
        self.shared.report();
        self.shared.post.post(Input::Closed);
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        self.close();
    }
}

impl Shared {
    /// Hands the records made since the last report to the client's observer, no borrow held.
    fn report(&self) {
        let records = match self.live.try_borrow_mut() {
            Ok(mut live) => live.machine.take_records(),
            Err(_) => return,
        };
        if let Some(observer) = &self.driver.observer {
            for record in &records {
                observer(record);
            }
        }
    }
}

impl Live {
    /// The caller closed the stream: the machine abandons what was in flight, and it ends.
    fn close(&mut self) {
        if self.stopped {
            return;
        }
        // A budget borrowed elsewhere (never seen) only costs the record of the abandoned attempt.
        if let Ok(mut budget) = self.driver.budget.try_borrow_mut() {
            self.machine.close(clock::now(), &mut budget);
        }
        self.finish();
    }

    /// Ends the stream: every socket closed, every instant forgotten, the timer cleared.
    fn finish(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        self.current = None;
        self.rotation = None;
        self.steps.clear();
        (self.sleep_at, self.watch_at) = (None, None);
        if let Some(pace) = self.pace.as_mut() {
            pace.clear();
        }
        self.inbox.alarm_at(None);
        let reason = self.machine.stopped().map_or(Reason::Aborted, |stop| stop.reason);
        if reason != Reason::Aborted {
            let records = self.machine.outage().map(|op| op.records().to_vec()).unwrap_or_default();
            let url = redact_url(self.machine.spec().url.as_deref().unwrap_or_default());
            let failure = Failure {
                reason,
                method: "stream".to_owned(),
                url,
                key: None,
                response: None,
                records,
                detail: None,
                note: Note::None,
            };
            self.push(Event::Stopped(Box::new(failure)));
        }
        self.set_state(StreamState::Stopped);
    }

    /// Shows `state`, once, as an event (the end is told by `Stopped` or by the events ending).
    fn set_state(&mut self, state: StreamState) {
        let waker = {
            let Ok(mut view) = self.view.try_borrow_mut() else { return };
            if view.state == state || view.state == StreamState::Stopped {
                return;
            }
            view.state = state;
            view.stale_since_wall = (state == StreamState::Stale).then(clock::wall_now);
            if state != StreamState::Stopped {
                view.events.push_back(Event::State(state));
            }
            view.reader.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn state(&self) -> StreamState {
        self.view.try_borrow().map_or(StreamState::Stopped, |v| v.state)
    }

    /// Queues an event for the caller and wakes its reader.
    fn push(&mut self, event: Event) {
        let waker = match self.view.try_borrow_mut() {
            Ok(mut view) => {
                view.events.push_back(event);
                view.reader.take()
            }
            Err(_) => None,
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}
