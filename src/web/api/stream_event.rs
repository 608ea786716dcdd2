//! [`StreamEvent`]: what a stream tells, read from [`Stream::next`](super::Stream::next) or told as it
//! happens to an [`OnEvent`] listener (as the JavaScript stream's listeners are).

use std::rc::Rc;

use super::error::Error;
use super::settle::stream_stopped;
use crate::stream::session::StreamState;
use crate::web::executor::{self, StreamEvent as Event};
use crate::web::platform::socket::Message;

/// What a [`Stream`](super::Stream) tells, in order. Events may be added: match with a `_` arm.
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A message on the current connection.
    Message(Message),
    /// The state changed (never to [`StreamState::Stopped`]: the end is `Stopped`, or the events
    /// ending after [`Stream::close`](super::Stream::close)).
    State(StreamState),
    /// The policy stopped the stream (attempts or the outage's deadline ran out, a ban, a stop
    /// code): why, and the last outage's records. No event follows, unless
    /// [`Stream::reconnect`](super::Stream::reconnect) begins it again.
    Stopped(Error),
    /// The server closed a connection that was up (the stream reconnects, or a stop code stops it):
    /// its close code and reason; `was_clean` unless the code is 1006 (no closing handshake).
    Closed {
        /// The close code.
        code: u16,
        /// The close reason (redacted as records are).
        reason: String,
        /// Whether the close had a closing handshake.
        was_clean: bool,
    },
    /// A message sent will never be written (its connection closed, or the stream stopped, before
    /// the pace let it go): the message, and why.
    Unsent {
        /// The message, as it was sent.
        message: Message,
        /// Why it never went.
        why: &'static str,
    },
}

/// What the executor tells, as the caller reads it.
pub(super) fn told(event: Event) -> StreamEvent {
    match event {
        Event::Message(message) => StreamEvent::Message(message),
        Event::State(state) => StreamEvent::State(state),
        Event::Stopped(reason, json) => StreamEvent::Stopped(Error::Stopped(Box::new(stream_stopped(reason, &json)))),
        Event::Closed(code, reason) => StreamEvent::Closed { code, reason, was_clean: code != 1006 },
        Event::Unsent(message, why) => StreamEvent::Unsent { message, why },
    }
}

/// Told each [`StreamEvent`] as it happens, as the JavaScript stream's `state`, `message` and
/// `stop` listeners are: inside the stream's step, before what the step does next (a state before
/// the socket it announces is made). The events are then not queued for
/// [`Stream::next`](super::Stream::next), which only tells the end (`None`). It may send, report a
/// gap or close the stream: that is done once the step is over.
///
/// ```ignore
/// let on_event = OnEvent::new(move |event| match event {
///     StreamEvent::State(state) => badge.set(state),
///     StreamEvent::Message(Message::Text(tick)) => book.apply(&tick),
///     StreamEvent::Stopped(error) => banner.set(error.to_string()),
///     StreamEvent::Message(Message::Binary(_)) => {}
/// });
/// ```
#[derive(Clone)]
pub struct OnEvent(pub(super) executor::Listener);

impl OnEvent {
    /// Tells `listen` each event.
    pub fn new(listen: impl Fn(StreamEvent) + 'static) -> OnEvent {
        OnEvent(Rc::new(move |event| listen(told(event))))
    }
}

// What it holds is the caller's.
impl std::fmt::Debug for OnEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnEvent(…)")
    }
}
