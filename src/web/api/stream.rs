//! [`Client::stream`]: a WebSocket that reconnects under a policy and the client's budget, read
//! event by event from a [`Stream`].

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::rc::Rc;
use std::task::{Context, Poll};

use super::client::Client;
use super::error::Error;
use super::stream_callbacks::NotOpen;
use super::stream_event::{told, StreamEvent};
use super::stream_options::StreamOptions;
pub use crate::stream::session::{PageSignal, StreamState};
use crate::stream::session::{Session, SessionSettings};
use crate::text;
use crate::web::executor::{Listener, StreamEvent as Event, Streaming};
use crate::web::platform::clock;
use crate::web::platform::errors::{invalid, range_error, type_error};
use crate::web::platform::inbox::{Inbox, Poster};
use crate::web::platform::socket::{ws_href, Message};

/// A stream made by [`Client::stream`]: its connections opened, watched, paced, rotated and
/// reopened as the core's session decides, under the stream's policy and the client's budget.
/// **Dropping it closes it**: its socket closed, its timer cleared.
///
/// Read it from one task: `while let Some(event) = stream.next().await { … }`. Its events wait
/// for the reader without limit, so a stream nobody reads should be dropped.
pub struct Stream {
    streaming: Streaming,
    seen: Rc<Seen>,
    url: String,
}

/// What the caller has been told of a stream: where it is, when it last heard, what `next` reads.
struct Seen {
    state: Cell<StreamState>,
    last_message_wall: Cell<Option<u64>>,
    stale_since_wall: Cell<Option<u64>>,
    events: RefCell<Inbox<Event>>,
    told: Poster<Event>,
}

impl Client {
    /// A WebSocket to `url` (`ws:`, `wss:`, or `http(s):` read as `ws(s):`) that reconnects under
    /// `options`: the first attempt leaves when the event loop next runs. `Err` (a `TypeError` or
    /// `RangeError` naming the field) for an invalid URL or option: nothing connects.
    pub fn stream(&self, url: &str, options: StreamOptions) -> Result<Stream, Error> {
        let href = ws_href(url).map_err(|why| Error::Invalid(type_error(&text::join(&["stream: url ", &why]))))?;
        let (spec, mut given) = options.checked(&href).map_err(|e| Error::Invalid(invalid("stream options", &e)))?;
        let settings = SessionSettings {
            on_open: given.on_open.is_some() || !given.subscribe.is_empty(),
            resync: given.resync.is_some(),
            heartbeat_ms: given.heartbeat.as_ref().map(|(every, _)| *every),
            observed: self.executor.observed(),
        };
        let session = Session::new(crate::stream::Stream::begin(spec), settings);
        let events = Inbox::new();
        let (state, told) = (Cell::new(StreamState::Connecting), events.poster());
        let seen = Rc::new(Seen {
            state,
            last_message_wall: Cell::default(),
            stale_since_wall: Cell::default(),
            events: RefCell::new(events),
            told,
        });
        let (listener, tell) = (given.on_event.take(), seen.clone());
        given.on_event = Some(Rc::new(move |event| tell.tell(event, listener.as_ref())));
        // On the client's budget, draws and observer.
        Ok(Stream { streaming: self.executor.stream(session, given), seen, url: href })
    }
}

impl Stream {
    /// The next event; `None` once the stream is over and every event was read.
    /// With [`StreamOptions::on_event`], only the end: `None`.
    pub async fn next(&self) -> Option<StreamEvent> {
        poll_fn(|cx| self.seen.poll_event(cx)).await.map(told)
    }

    /// Where it is now.
    pub fn state(&self) -> StreamState {
        self.seen.state.get()
    }

    /// When the last message came (Unix ms), `None` before the first.
    pub fn last_message_at(&self) -> Option<u64> {
        self.seen.last_message_wall.get()
    }

    /// How long it has been stale (ms; 0 while it is not).
    pub fn stale_for_ms(&self) -> u64 {
        self.seen.stale_since_wall.get().map_or(0, |at| clock::wall_now().saturating_sub(at))
    }

    /// The URL it connects to (credentials in its query are the caller's to keep out of logs).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends `text` on the open connection, paced to `send_per_second`; `Err` while none is open
    /// (subscribe in [`StreamOptions::on_open`], which runs on every connection).
    pub fn send(&self, text: &str) -> Result<(), NotOpen> {
        self.send_message(Message::Text(text.to_owned()))
    }

    /// Sends `bytes` as a binary message on the open connection, paced as [`send`](Self::send).
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<(), NotOpen> {
        self.send_message(Message::Binary(bytes.to_vec()))
    }

    /// Sends on the current connection, paced; `Err` while none is open.
    fn send_message(&self, message: Message) -> Result<(), NotOpen> {
        match self.state() {
            StreamState::Open | StreamState::Stale => self.streaming.send(message).map_err(|state| NotOpen { state }),
            state => Err(NotOpen { state }),
        }
    }

    /// Reports a missed update (a sequence number skipped): the stream is
    /// [`StreamState::Stale`] until [`StreamOptions::resync`] answers `Ok`.
    pub fn gap(&self) {
        self.streaming.gap();
    }

    /// Closes it for good, as dropping it does; the events read since end with `None`.
    pub fn close(&self) {
        self.streaming.close();
    }

    /// Closes it for good with a close code (1000 or 3000–4999) and a reason (at most 123 bytes)
    /// the server is sent; `Err` (a `RangeError`) for others, and nothing changes.
    pub fn close_with(&self, code: u16, reason: &str) -> Result<(), Error> {
        checked_close(code, reason)?;
        self.streaming.close_with(code, reason);
        Ok(())
    }

    /// Drops the connection (1000 "reconnect") and begins a fresh outage at once, under the same
    /// policy and budget — after a stop by its policy too (read [`next`](Self::next) again); `Err`
    /// after [`close`](Self::close) and while its scope is banned (the error names the ban), and
    /// nothing changes.
    pub fn reconnect(&self) -> Result<(), Error> {
        self.streaming.reconnect(0, "").map_err(|why| Error::Invalid(type_error(&why)))
    }

    /// As [`reconnect`](Self::reconnect), closing the connection with this code and reason.
    pub fn reconnect_with(&self, code: u16, reason: &str) -> Result<(), Error> {
        checked_close(code, reason)?;
        self.streaming.reconnect(code, reason).map_err(|why| Error::Invalid(type_error(&why)))
    }

    /// Tells the stream what the page said of itself (the JavaScript stream listens for these
    /// itself): offline pauses its outage, online tries at once, a wake checks the connection.
    pub fn page(&self, signal: PageSignal) {
        self.streaming.page(signal);
    }
}

/// A close code and reason as WebSocket's `close` takes them.
fn checked_close(code: u16, reason: &str) -> Result<(), Error> {
    if code != 1000 && !(3000..=4999).contains(&code) {
        let message = text::join(&[
            "stream: a close code must be 1000 or from 3000 to 4999, got ",
            &text::number(u64::from(code)),
        ]);
        return Err(Error::Invalid(range_error(&message)));
    }
    if reason.len() > 123 {
        return Err(Error::Invalid(range_error("stream: a close reason must be at most 123 bytes (UTF-8)")));
    }
    Ok(())
}

impl Seen {
    /// Takes what the executor tells: the caller's `listener` is told it, if there is one, or it
    /// waits for `next`.
    fn tell(&self, event: Event, listener: Option<&Listener>) {
        match &event {
            Event::State(state) => {
                self.state.set(*state);
                self.stale_since_wall.set((*state == StreamState::Stale).then(clock::wall_now));
            }
            Event::Message(_) => self.last_message_wall.set(Some(clock::wall_now())),
            Event::Stopped(..) | Event::Closed(..) | Event::Unsent(..) => {}
        }
        match (event, listener) {
            // The end is told by `Stopped`, or by the events ending.
            (Event::State(StreamState::Stopped), _) => self.told.wake(),
            (event, Some(listener)) => listener(event),
            (event, None) => self.told.post(event),
        }
    }

    /// The next event, `Ready(None)` once the stream is over and every event was taken.
    fn poll_event(&self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let Ok(mut events) = self.events.try_borrow_mut() else {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        match events.poll_next(cx) {
            Poll::Ready(event) => Poll::Ready(Some(event)),
            Poll::Pending if self.state.get() == StreamState::Stopped => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
