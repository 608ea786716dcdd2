//! What a stream runs of the caller's, as the JavaScript `client.stream` options do: [`OnOpen`]
//! (given a [`Connection`] to send on), [`Resync`] and [`Heartbeat`]; and [`NotOpen`], a send with
//! no connection to go on. When each runs, and what its answer does, is the core's session to say.

use std::future::Future;
use std::rc::Rc;

use crate::stream::session::StreamState;
use crate::web::executor::{self, Sender};
use crate::web::platform::socket::Message;

/// [`Stream::send`](super::Stream::send) (or [`Connection::send`]) found no open connection:
/// nothing was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotOpen {
    /// The stream's state when it was asked.
    pub state: StreamState,
}

impl std::fmt::Display for NotOpen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stream.send while the stream is not open: send once it is, or subscribe in StreamOptions::on_open, which runs on every connection")
    }
}

impl std::error::Error for NotOpen {}

/// Runs on every connection as it opens (the first, each reconnect, a rotation's), before the
/// stream counts as open: subscriptions lost with a connection are made again here. It may take
/// its time, up to the connect timeout (`policy.attempt_timeout_ms`); `Err(why)`, or no answer by
/// then, is that connection attempt's failure, retried under the policy like a refused one.
///
/// ```ignore
/// let on_open = OnOpen::new(|connection| async move {
///     connection.send(r#"{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":1}"#).map_err(|e| e.to_string())
/// });
/// ```
#[derive(Clone)]
pub struct OnOpen(pub(super) executor::OnOpen);

impl OnOpen {
    /// Runs `open` on each connection.
    pub fn new<F, Fut>(open: F) -> OnOpen
    where
        F: Fn(Connection) -> Fut + 'static,
        Fut: Future<Output = Result<(), String>> + 'static,
    {
        OnOpen(Rc::new(move |sender| Box::pin(open(Connection(sender)))))
    }
}

/// The connection [`OnOpen`] runs on: what it sends goes on this connection, paced with the
/// stream's other sends (`send_per_second`).
#[derive(Clone)]
pub struct Connection(Sender);

impl Connection {
    /// Sends `text` on this connection; `Err` once the stream is over.
    pub fn send(&self, text: &str) -> Result<(), NotOpen> {
        self.0.send(Message::Text(text.to_owned())).map_err(|state| NotOpen { state })
    }

    /// Sends `bytes` as a binary message on this connection, as [`send`](Self::send).
    pub fn send_bytes(&self, bytes: &[u8]) -> Result<(), NotOpen> {
        self.0.send(Message::Binary(bytes.to_vec())).map_err(|state| NotOpen { state })
    }

    /// The connection's WebSocket, as the JavaScript `onOpen` is given it (`socket`): its
    /// `protocol()` is the subprotocol the server chose. `None` if it closed before `on_open` ran.
    /// Send through [`send`](Self::send), which paces.
    pub fn socket(&self) -> Option<&web_sys::WebSocket> {
        self.0.socket()
    }
}

/// Rebuilds what the page shows from a snapshot (a REST call, under the same budget): after every
/// open and on [`Stream::gap`](super::Stream::gap). The stream is
/// [`StreamState::Stale`](super::StreamState::Stale) until it answers `Ok`; after an `Err` it stays
/// stale until the next open or gap.
#[derive(Clone)]
pub struct Resync(pub(super) executor::Resync);

impl Resync {
    /// Runs `resync` each time.
    pub fn new<F, Fut>(resync: F) -> Resync
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = Result<(), String>> + 'static,
    {
        Resync(Rc::new(move || Box::pin(resync())))
    }
}

/// Gives the URL of each connection attempt — a fresh token, a fallback host — as the JavaScript
/// stream's URL function does. An `Err(why)`, or no answer within the connect timeout
/// (`policy.attempt_timeout_ms`), is that attempt's failure; the URL given to
/// [`Client::stream`](super::Client::stream) names the stream (records, scope) and is not connected to.
///
/// ```ignore
/// let url_provider = UrlProvider::new(|| async { Ok(format!("wss://host/ws?token={}", fresh_token().await?)) });
/// ```
#[derive(Clone)]
pub struct UrlProvider(pub(super) executor::UrlFn);

impl UrlProvider {
    /// Asks `url` on each attempt.
    pub fn new<F, Fut>(url: F) -> UrlProvider
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = Result<String, String>> + 'static,
    {
        UrlProvider(Rc::new(move || Box::pin(url())))
    }
}

/// Gives the subprotocols of each connection attempt, as the JavaScript stream's `protocols`
/// function does; an `Err(why)`, or no answer within the connect timeout, is that attempt's failure.
#[derive(Clone)]
pub struct ProtocolsProvider(pub(super) executor::ProtocolsFn);

impl ProtocolsProvider {
    /// Asks `protocols` on each attempt.
    pub fn new<F, Fut>(protocols: F) -> ProtocolsProvider
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = Result<Vec<String>, String>> + 'static,
    {
        ProtocolsProvider(Rc::new(move || Box::pin(protocols())))
    }
}

/// An application-level ping, for a server that closes silent connections (browsers cannot send
/// ping frames): sent, paced, whenever nothing was heard for `every_ms`.
#[derive(Clone)]
pub struct Heartbeat {
    pub(super) every_ms: u64,
    pub(super) message: executor::Ping,
}

impl Heartbeat {
    /// `text` every `every_ms` of silence (at least 1).
    pub fn new(every_ms: u64, text: &str) -> Heartbeat {
        let message = Message::Text(text.to_owned());
        Heartbeat { every_ms, message: Rc::new(move || Some(message.clone())) }
    }

    /// What `make` returns each time (a ping with a fresh id; `None`: none this time).
    pub fn with(every_ms: u64, make: impl Fn() -> Option<Message> + 'static) -> Heartbeat {
        Heartbeat { every_ms, message: Rc::new(make) }
    }
}

macro_rules! opaque_debug {
    ($($name:ident),*) => {$(
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(concat!(stringify!($name), "(…)"))
            }
        }
    )*};
}

// Callbacks show as their names: what they hold is the caller's.
opaque_debug!(OnOpen, Connection, Resync, Heartbeat, UrlProvider, ProtocolsProvider);
