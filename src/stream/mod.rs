//! A stream's connections, outage by outage: a WebSocket reconnect is a retry too.
//!
//! One outage is one [`Operation`] of kind `stream` whose attempts are connection attempts, so it
//! shares everything a call has: the policy's backoff and limits (`maxAttempts` per outage,
//! `deadlineMs` = the longest outage, `attemptTimeoutMs` = the connect timeout), the admission
//! gate, provider waits from a refused upgrade, the scope's tokens, holds and bans, and records.
//!
//! ```text
//! connect ─▶ Send ─▶ (socket) ─▶ on_open ─▶ open, unproven ─▶ check: up minUptimeMs ─▶ proven
//!                               on_close ─▶ Send | Sleep | Stop        (the outage goes on)
//! proven ─▶ on_close ─▶ a new outage: a backoff draw first ─▶ Send | Sleep | Stop
//! ```
//!
//! A connection that drops before `minUptimeMs` did not end the outage: its drop is the failed
//! attempt. The machine reads no clock and holds no socket; `check` tells the shell when a silent
//! connection is stale, when to replace it, and when to rotate it (make-before-break).

mod link;
mod options;
mod restart;
pub mod session;
mod watch;

pub use link::Closed;
pub use options::stream_scope;
pub use watch::{Check, Watching};

use crate::budget::{Budget, Priority};
use crate::classify::OperationKind;
use crate::draw::Draws;
use crate::machine::{Action, Operation, Start};
use crate::policy::Policy;
use crate::reason::Stop;
use crate::record::AttemptRecord;

/// Close codes that stop a stream by default: the server refused what this client sent or is
/// (protocol error, unsupported or invalid data, policy violation); reconnecting repeats it.
pub const STOP_CODES: [u16; 4] = [1002, 1003, 1007, 1008];

/// How a stream watches its open connection. Every duration in ms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watch {
    /// A connection must stay up this long before the outage counts as over (default 5 000).
    pub min_uptime_ms: u64,
    /// No message for this long: the stream is stale (default 10 000; `None`: never).
    pub stale_after_ms: Option<u64>,
    /// No message for this long: the connection is closed and replaced (default 30 000).
    pub reconnect_after_stale_ms: Option<u64>,
    /// A connection this old is replaced make-before-break (default: never).
    pub rotate_after_ms: Option<u64>,
    /// Close codes that stop the stream rather than reconnect it.
    pub stop_codes: Vec<u16>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch {
            min_uptime_ms: 5_000,
            stale_after_ms: Some(10_000),
            reconnect_after_stale_ms: Some(30_000),
            rotate_after_ms: None,
            stop_codes: STOP_CODES.to_vec(),
        }
    }
}

/// Everything fixed when a stream begins.
#[derive(Clone, Debug)]
pub struct StreamSpec {
    /// The reconnect policy (see [`Policy::for_streams`] for its defaults).
    pub policy: Policy,
    /// Where provider limits apply: by default the origin, `ws:` read as `http:` so that a ban
    /// on the exchange's REST calls holds its streams too.
    pub scope: String,
    /// Budget tokens each connection attempt spends.
    pub weight: u32,
    /// Redacted before it is stored anywhere.
    pub url: Option<String>,
    /// How an open connection is watched.
    pub watch: Watch,
    /// The most messages `send` passes a second (`None`: unpaced); the shell queues the rest.
    pub send_per_second: Option<u64>,
}

impl StreamSpec {
    /// What its messages call it: its URL (redacted), or its scope where a provider gives the URL.
    pub fn name(&self) -> &str {
        self.url.as_deref().unwrap_or(&self.scope)
    }
}

/// The stream's connection as the machine knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Link {
    /// No connection: an attempt is being decided, slept for, or the stream stopped.
    Down,
    /// A connection attempt is in flight.
    Connecting,
    /// Open since `opened_at`; `proven` once it stayed up `minUptimeMs`.
    Open { opened_at: u64, proven: bool },
}

/// A connection that replaces an open one: in flight until it opens.
#[derive(Clone, Debug)]
pub(crate) struct Rotation {
    pub(crate) op: Operation,
}

/// One stream: its current outage (if any), its connection, and the records not yet reported.
#[derive(Clone, Debug)]
pub struct Stream {
    pub(crate) spec: StreamSpec,
    pub(crate) outage: Option<Operation>,
    pub(crate) link: Link,
    pub(crate) rotation: Option<Rotation>,
    /// No rotation is tried before this instant (a refused or failed one waits its turn).
    pub(crate) rotate_not_before: u64,
    /// Records of every outage and rotation, until the shell takes them.
    pub(crate) unreported: Vec<AttemptRecord>,
    /// Of the current outage's records, how many are in `unreported` already.
    pub(crate) collected: usize,
    pub(crate) stopped: Option<Stop>,
    pub(crate) outages: u32,
}

impl Stream {
    /// A stream that has not connected yet.
    pub fn begin(spec: StreamSpec) -> Stream {
        Stream {
            spec,
            outage: None,
            link: Link::Down,
            rotation: None,
            rotate_not_before: 0,
            unreported: Vec::new(),
            collected: 0,
            stopped: None,
            outages: 0,
        }
    }

    /// The first connection attempt: at once, like a call's initial attempt.
    pub fn connect(&mut self, now: u64, wall_now: u64, draws: &mut Draws, budget: &mut Budget) -> Action {
        if let Some(stop) = self.stopped {
            return Action::Stop(stop);
        }
        let mut op = self.outage_op(now, wall_now);
        let action = op.start(now, draws, budget);
        self.enter_outage(op, action)
    }

    /// How the stream ended, once it has.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped
    }

    /// The outage in progress (or the last one, once stopped): its records explain a stop.
    pub fn outage(&self) -> Option<&Operation> {
        self.outage.as_ref()
    }

    /// Outages begun so far (the first connection's included).
    pub fn outages(&self) -> u32 {
        self.outages
    }

    /// Whether a connection is open, and since when (monotonic ms).
    pub fn opened_at(&self) -> Option<u64> {
        match self.link {
            Link::Open { opened_at, .. } => Some(opened_at),
            _ => None,
        }
    }

    /// How long the shell's timer for a planned sleep runs from `now` (a provider's wait gets its slack).
    pub fn timer_ms(&self, now: u64, until: u64) -> u64 {
        self.outage.as_ref().map_or(until.saturating_sub(now), |op| op.timer_ms(now))
    }

    /// The stream's options.
    pub fn spec(&self) -> &StreamSpec {
        &self.spec
    }

    /// Records made since the last call: every connection attempt sent, and every one refused.
    pub fn take_records(&mut self) -> Vec<AttemptRecord> {
        self.collect();
        std::mem::take(&mut self.unreported)
    }

    /// A new outage's operation, beginning at `now` (`wall_now` in Unix ms).
    pub(crate) fn outage_op(&self, now: u64, wall_now: u64) -> Operation {
        let start = Start {
            policy: self.spec.policy.clone(),
            kind: OperationKind::Stream,
            priority: Priority::Read,
            scope: self.spec.scope.clone(),
            weight: self.spec.weight,
            key: None,
            method: None,
            url: self.spec.url.clone(),
        };
        Operation::begin(start, now, wall_now)
    }

    /// Makes `op` the current outage, whose first step was `action`.
    pub(crate) fn enter_outage(&mut self, op: Operation, action: Action) -> Action {
        self.collect();
        self.outage = Some(op);
        self.collected = 0;
        self.outages = self.outages.saturating_add(1);
        self.after(action)
    }

    /// Moves the current outage's new records to the unreported ones.
    pub(crate) fn collect(&mut self) {
        if let Some(op) = &self.outage {
            let records = op.records();
            if let Some(new) = records.get(self.collected..) {
                self.unreported.extend_from_slice(new);
            }
            self.collected = records.len();
        }
    }

    /// Follows the outage's `action`: the link it leaves, and a stop it makes the stream's.
    pub(crate) fn after(&mut self, action: Action) -> Action {
        match action {
            Action::Send { .. } => self.link = Link::Connecting,
            Action::Sleep { .. } => self.link = Link::Down,
            Action::Stop(stop) => {
                self.link = Link::Down;
                self.stopped = Some(stop);
            }
        }
        self.collect();
        action
    }
}
