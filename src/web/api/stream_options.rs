//! [`StreamOptions`]: what one stream asks beyond the defaults, checked as the JavaScript
//! `client.stream` options are (by the core's own reader) before anything connects.

use super::stream_callbacks::{Heartbeat, OnOpen, ProtocolsProvider, Resync, UrlProvider};
use super::stream_event::OnEvent;
use crate::input::{whole, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};
use crate::policy::Policy;
use crate::stream::StreamSpec;
use crate::web::executor::Given;
use crate::web::platform::socket::Message;

/// What one stream asks; `StreamOptions::default()` asks nothing. Durations in ms.
///
/// # Default
/// [`Policy::for_streams`] (1 s base backoff up to 30 s, 20 attempts an outage, an outage of 5
/// minutes at most), the URL's origin as the scope (`ws:` read as `http:`: a ban on the REST
/// calls holds the stream too), weight 1, proven after 5 s up, stale after 10 s silent, replaced
/// after 30 s silent, never rotated, close codes 1002, 1003, 1007 and 1008 stop it, unpaced, no
/// subscriptions, `on_open`, `resync` or heartbeat; events queued for [`Stream::next`](super::Stream::next).
#[derive(Clone, Debug, Default)]
pub struct StreamOptions {
    /// The reconnect policy: `max_attempts` per outage, `deadline_ms` the longest outage,
    /// `attempt_timeout_ms` the connect timeout (replaces [`Policy::for_streams`]).
    pub policy: Option<Policy>,
    /// The budget scope (default: the URL's origin, as http).
    pub scope: Option<String>,
    /// Tokens each connection attempt spends (default 1).
    pub weight: Option<u32>,
    /// How long a connection must stay up before its outage is over (default 5 000).
    pub min_uptime_ms: Option<u64>,
    /// No message for this long: [`StreamState::Stale`](super::StreamState::Stale) (default 10 000; 0: never).
    pub stale_after_ms: Option<u64>,
    /// No message for this long: the connection is closed and replaced (default 30 000; 0: never).
    pub reconnect_after_stale_ms: Option<u64>,
    /// A connection this old is replaced make-before-break (default and 0: never): the new one
    /// takes over with its first message, which the old one may have delivered too (dedupe by sequence).
    pub rotate_after_ms: Option<u64>,
    /// Close codes (1000–4999) that stop the stream instead of reconnecting it.
    pub stop_codes: Option<Vec<u16>>,
    /// At most this many writes in any second — a sliding window, as a provider counts (Binance: 5
    /// a second), subscriptions, `on_open`'s and pings included; the rest wait in order
    /// (1–1 000 000; default: unpaced).
    pub send_per_second: Option<u64>,
    /// WebSocket subprotocols offered on every connection.
    pub protocols: Vec<String>,
    /// Asked for each connection attempt's URL (see [`UrlProvider`]).
    pub url_provider: Option<UrlProvider>,
    /// Asked for each connection attempt's subprotocols, instead of `protocols` (see [`ProtocolsProvider`]).
    pub protocols_provider: Option<ProtocolsProvider>,
    /// In a browser page, the page's own signals (default `true`): offline pauses the outage, online
    /// tries at once, a wake checks the connection (as JavaScript's `pageSignals`).
    pub page_signals: Option<bool>,
    /// Sent, in order and paced, on every connection as it opens (before `on_open`): a
    /// subscription made here is made again after each reconnect.
    pub subscribe: Vec<String>,
    /// Runs on every connection as it opens, before the stream counts as open (see [`OnOpen`]).
    pub on_open: Option<OnOpen>,
    /// Runs after every open and on [`Stream::gap`](super::Stream::gap); the stream is stale until
    /// it answers `Ok` (see [`Resync`]).
    pub resync: Option<Resync>,
    /// An application-level ping whenever nothing was heard for its period (see [`Heartbeat`]).
    pub heartbeat: Option<Heartbeat>,
    /// Told each event as it happens, instead of [`Stream::next`](super::Stream::next) (see [`OnEvent`]).
    pub on_event: Option<OnEvent>,
}

/// The characters of an HTTP token (RFC 9110 §5.6.2), what a subprotocol must be.
fn is_token(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

impl StreamOptions {
    /// Checked as the JavaScript options are, into the machine's spec and what the executor needs.
    pub(super) fn checked(self, url: &str) -> Result<(StreamSpec, Given), InvalidOption> {
        let mut fields: Vec<(String, Loose)> = Vec::new();
        let mut field = |name: &str, value: Loose| fields.push((name.to_owned(), value));
        let ms = |value: u64| Loose::Number(value as f64);
        if let Some(scope) = self.scope {
            field("scope", Loose::Text(scope));
        }
        if let Some(weight) = self.weight {
            field("weight", ms(u64::from(weight)));
        }
        let durations = [
            ("minUptimeMs", self.min_uptime_ms),
            ("staleAfterMs", self.stale_after_ms),
            ("reconnectAfterStaleMs", self.reconnect_after_stale_ms),
            ("rotateAfterMs", self.rotate_after_ms),
            ("sendPerSecond", self.send_per_second),
        ];
        for (name, value) in durations {
            if let Some(value) = value {
                field(name, ms(value));
            }
        }
        if let Some(codes) = self.stop_codes {
            field("stopCodes", Loose::List(codes.into_iter().map(|c| ms(u64::from(c))).collect()));
        }
        let mut spec = StreamSpec::read(&Loose::Map(fields), url).map_err(|e| *e)?;
        if let Some(policy) = self.policy {
            spec.policy = policy;
        }
        for (i, protocol) in self.protocols.iter().enumerate() {
            if !is_token(protocol) {
                let problem =
                    Problem::WrongType { expected: "a token (letters, digits, !#$%&'*+-.^_`|~)", found: "a string" };
                return Err(InvalidOption::new("", problem).within_item(i).within("protocols"));
            }
        }
        let heartbeat = match self.heartbeat {
            Some(Heartbeat { every_ms, message }) => {
                let every = whole("everyMs", &ms(every_ms), 1, MAX_SAFE_INTEGER).map_err(|e| e.within("heartbeat"))?;
                Some((every, message))
            }
            None => None,
        };
        let given = Given {
            url: url.to_owned(),
            protocols: self.protocols,
            url_provider: self.url_provider.map(|p| p.0),
            protocols_provider: self.protocols_provider.map(|p| p.0),
            page_signals: self.page_signals.unwrap_or(true),
            subscribe: self.subscribe.into_iter().map(Message::Text).collect(),
            on_open: self.on_open.map(|o| o.0),
            resync: self.resync.map(|r| r.0),
            heartbeat,
            on_event: self.on_event.map(|l| l.0),
        };
        Ok((spec, given))
    }
}
