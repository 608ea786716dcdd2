//! A session's vocabulary with its shell: what it shows listeners, what it is given, the effects
//! it hands out and the events it takes back.

use std::borrow::Cow;

use crate::budget::shared::SharedState;
use crate::budget::sharing::Share;
use crate::reason::Reason;

/// What a stream shows its listeners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    /// A connection attempt is under way.
    Connecting,
    /// Connected and delivering.
    Open,
    /// Connected, but silent for `staleAfterMs` (or resyncing).
    Stale,
    /// Between attempts: a backoff, a provider's wait, a ban.
    Waiting,
    /// Over: closed by the caller or stopped by its policy.
    Stopped,
}

impl StreamState {
    /// Its name, as `stream.state` says it.
    pub fn name(self) -> &'static str {
        match self {
            StreamState::Connecting => "connecting",
            StreamState::Open => "open",
            StreamState::Stale => "stale",
            StreamState::Waiting => "waiting",
            StreamState::Stopped => "stopped",
        }
    }
}

/// What a session needs beyond its stream's options, fixed when it begins.
#[derive(Clone, Debug, Default)]
pub struct SessionSettings {
    /// The caller gave `onOpen`: it runs on each connection before the connection counts as up.
    pub on_open: bool,
    /// The caller gave `resync`: it runs after each open, and on a gap; the stream is stale meanwhile.
    pub resync: bool,
    /// A ping is sent when nothing was heard for this long (ms).
    pub heartbeat_ms: Option<u64>,
    /// Someone reads records as they are made.
    pub observed: bool,
}

/// What the shell does next.
#[derive(Clone, Debug, PartialEq)]
pub enum SessionEffect {
    /// A step on the shared budget (see [`Share`]).
    Share(Share),
    /// Open a socket for connection `link`.
    Connect(u32),
    /// Close socket `link` with this code and reason, its listeners gone first (nothing it does
    /// afterwards is told).
    Close(u32, u16, Cow<'static, str>),
    /// Run the caller's `onOpen` on socket `link`; answer `OnOpenDone`.
    OnOpen(u32),
    /// The stream's state changed.
    State(StreamState),
    /// Message `id` (numbered by the shell as it fed it) goes to the stream's listeners.
    Deliver(u32),
    /// Message `id` goes nowhere (its socket is no longer the stream's, or the stream is over):
    /// the shell lets go of it. Every message fed ends in one `Deliver` or one `Discard`.
    Discard(u32),
    /// Write message `id` on socket `link` (if it is still there).
    Write(u32, u32),
    /// Send the caller's heartbeat on socket `link` (as a `Send`).
    Ping(u32),
    /// Run the caller's `resync` (round `n`); answer `Resynced`.
    Resync(u32),
    /// Hand the new records to the observers ([`super::Session::take_records`]).
    Report,
    /// The stream stopped, for this reason ([`super::Session::stop_json`] says more). Stopped by its
    /// policy, it may begin again on a `Reconnect`; `Aborted` (the caller closed it) is final.
    Stopped(Reason),
    /// The server closed a connection that was up: its code and (redacted) reason, for the caller's
    /// `close` event.
    ServerClosed(u16, String),
    /// Message `id`, sent by the caller and queued by the pace, will never be written: why. Every
    /// message sent ends in one `Write` or one `Unsent`.
    Unsent(u32, &'static str),
    /// The caller's `reconnect()` was refused, and changed nothing: its reason (`banned`, or
    /// `aborted` after `close()`) and why, as its error's message.
    ReconnectRefused(Reason, String),
}

/// What the page says of itself (a browser's `offline`, `online`, `visibilitychange`, `pageshow`
/// and `resume`); a runtime without them feeds none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageSignal {
    /// The browser lost its network: no attempt is made until `Online`.
    Offline,
    /// The network is back: a paused stream tries at once.
    Online,
    /// The page was hidden (its timers may be throttled or frozen).
    Hidden,
    /// The page is visible again: after a long hidden time, a wake.
    Visible,
    /// The page came back from the back/forward cache or from being frozen.
    Wake,
}

/// What happened, fed to [`super::Session::handle`].
#[derive(Clone, Debug, PartialEq)]
pub enum SessionEvent {
    /// The stream begins.
    Start,
    /// The shell holds the shared budget of bracket `seq` (tabs: its stored state, if read).
    Entered(u32, Option<SharedState>),
    /// Socket `link` opened.
    Opened(u32),
    /// The caller's `onOpen` on socket `link` finished, or threw (what).
    OnOpenDone(u32, Result<(), String>),
    /// Message `id` arrived on socket `link`: the shell keeps it until told to deliver or discard it
    /// (a step on a shared budget may come first).
    Message(u32, u32),
    /// Socket `link` closed: its code and reason.
    Closed(u32, u16, String),
    /// Socket `link`'s upgrade was refused with this status, `Retry-After` and `Date`.
    Refused(u32, u16, Option<String>, Option<String>),
    /// Socket `link` could not be made: what the platform said.
    Failed(u32, String),
    /// The shell's timer fired.
    Timer,
    /// The caller (or `onOpen`'s facade, or a ping) sends message `id` on socket `link`.
    Send(u32, u32),
    /// The caller closes the stream.
    Close,
    /// The caller closes the stream with its own close code and reason (checked by the shell as
    /// WebSocket's `close` checks them: 1000 or 3000–4999, at most 123 bytes).
    CloseWith(u16, String),
    /// The caller's `resync` of round `n` finished (`true`) or failed.
    Resynced(u32, bool),
    /// The caller reports a gap: the stream is stale until it is resynced.
    Gap,
    /// The caller's `reconnect(code, reason)`: the connection (if any) closed with them (code 0:
    /// 1000 "reconnect"), and a fresh outage begun at once, even after a stop by the policy; refused
    /// after `close()` and while the scope is banned.
    Reconnect(u16, String),
    /// What the page said of itself.
    Page(PageSignal),
}
