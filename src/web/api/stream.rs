//! [`Client::stream`]: a WebSocket that reconnects under a policy and the client's budget, read
//! event by event from a [`Stream`].

use std::future::poll_fn;

use super::client::Client;
use super::error::Error;
use super::stream_callbacks::NotOpen;
use super::stream_options::StreamOptions;
pub use crate::stream::session::StreamState;
use crate::text;
use crate::web::executor::{StreamEvent as Event, Streaming};
use crate::web::platform::errors::{invalid, type_error};
use crate::web::platform::socket::{parse_url, Message};

/// What a [`Stream`] tells, in order.
#[derive(Debug)]
pub enum StreamEvent {
    /// A message on the current connection.
    Message(Message),
    /// The state changed (never to [`StreamState::Stopped`]: the end is `Stopped`, or the events
    /// ending after [`Stream::close`]).
    State(StreamState),
    /// The policy stopped the stream (attempts or the outage's deadline ran out, a ban, a stop
    /// code): why, and the last outage's records. No event follows.
    Stopped(Error),
}

/// A stream made by [`Client::stream`]: its connections opened, watched, paced, rotated and
/// reopened as the core's session decides, under the stream's policy and the client's budget.
/// **Dropping it closes it**: its socket closed, its timer cleared.
///
/// Read it from one task: `while let Some(event) = stream.next().await { … }`. Its events wait
/// for the reader without limit, so a stream nobody reads should be dropped.
pub struct Stream {
    streaming: Streaming,
    url: String,
}

impl Client {
    /// A WebSocket to `url` (`ws:`, `wss:`, or `http(s):` read as `ws(s):`) that reconnects under
    /// `options`: the first attempt leaves when the event loop next runs. `Err` (a `TypeError` or
    /// `RangeError` naming the field) for an invalid URL or option: nothing connects.
    pub fn stream(&self, url: &str, options: StreamOptions) -> Result<Stream, Error> {
        let (protocol, href) = parse_url(url).map_err(|_| {
            Error::Invalid(type_error("stream: url must be an absolute ws:, wss:, http: or https: URL"))
        })?;
        let href = match protocol.as_str() {
            "ws:" | "wss:" => href,
            "http:" | "https:" => text::join(&["ws", href.get(4..).unwrap_or_default()]),
            _ => {
                let message = text::join(&["stream: url must be a ws:, wss:, http: or https: URL, got ", &protocol]);
                return Err(Error::Invalid(type_error(&message)));
            }
        };
        let (spec, given) = options.checked(&href).map_err(|e| Error::Invalid(invalid("stream options", &e)))?;
        // On the client's budget, draws and observer.
        Ok(Stream { streaming: self.executor.stream(spec, given), url: href })
    }
}

impl Stream {
    /// The next event; `None` once the stream is over and every event was read.
    pub async fn next(&self) -> Option<StreamEvent> {
        let event = poll_fn(|cx| self.streaming.poll_event(cx)).await?;
        Some(match event {
            Event::Message(message) => StreamEvent::Message(message),
            Event::State(state) => StreamEvent::State(state),
            Event::Stopped(stopped) => StreamEvent::Stopped(Error::Stopped(stopped)),
        })
    }

    /// Where it is now.
    pub fn state(&self) -> StreamState {
        self.streaming.state()
    }

    /// When the last message came (Unix ms), `None` before the first.
    pub fn last_message_at(&self) -> Option<u64> {
        self.streaming.last_message_at()
    }

    /// How long it has been stale (ms; 0 while it is not).
    pub fn stale_for_ms(&self) -> u64 {
        self.streaming.stale_for_ms()
    }

    /// The URL it connects to (credentials in its query are the caller's to keep out of logs).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends `text` on the open connection, paced to `send_per_second`; `Err` while none is open
    /// (subscribe in [`StreamOptions::on_open`], which runs on every connection).
    pub fn send(&self, text: &str) -> Result<(), NotOpen> {
        self.streaming.send(Message::Text(text.to_owned())).map_err(|state| NotOpen { state })
    }

    /// Sends `bytes` as a binary message on the open connection, paced as [`send`](Self::send).
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<(), NotOpen> {
        self.streaming.send(Message::Binary(bytes.to_vec())).map_err(|state| NotOpen { state })
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
}
