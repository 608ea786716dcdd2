//! A stream's session as a machine: its connections one after another ([`Stream`] decides each
//! outage), the caller's `onOpen` on each, what is stale and when it is replaced or rotated, the
//! sends paced, the heartbeat, resyncs, and every step on a shared budget inside its bracket. The
//! shell opens and closes the sockets it is told to, runs the caller's callbacks, and feeds back
//! what each socket did:
//!
//! ```text
//! handle(Start) ─▶ Connect(link) ─▶ Opened(link) ─▶ OnOpen(link) ─▶ OnOpenDone ─▶ State(open), Resync
//! Message(link, id) ─▶ Deliver(id)           Send(id) ─▶ Write(id) (paced)          Timer ─▶ Ping, checks
//! Closed | Refused | Failed(link) ─▶ Connect | State(waiting) …              Close ─▶ Stopped
//! ```
//!
//! As for a call ([`crate::call`]): feed an event, drain [`Session::poll`], arm one timer at
//! [`Session::poll_timeout`]. `links.rs` holds the sockets' lives, `pace.rs` sending.

mod effects;
mod links;
mod pace;
mod signals;

pub use effects::{PageSignal, SessionEffect, SessionEvent, SessionSettings, StreamState};

use super::Stream;
use crate::budget::sharing::{Answered, Bracket, Share, Step};
use crate::call::Ctx;
use crate::failure::{Failure, Note};
use crate::machine::Action;
use crate::reason::Reason;
use crate::record::AttemptRecord;
use crate::text::join;
use pace::Pace;
use std::borrow::Cow;

/// A socket of the session.
#[derive(Clone, Copy, Debug)]
struct Link {
    id: u32,
    /// Opened beside the current connection, to replace it once it delivers.
    rotating: bool,
    /// Its socket opened (and `onOpen` ran).
    ready: bool,
    opened_at: u64,
    /// Its connect timeout ends then (none once it is up).
    due: Option<u64>,
    /// The connect timeout it was given, for the words of its failure.
    connect_ms: u64,
}

/// One stream, from `client.stream` to its stop.
pub struct Session {
    stream: Stream,
    settings: SessionSettings,
    state: StreamState,
    current: Option<Link>,
    rotation: Option<Link>,
    next_link: u32,
    /// When the current connection last delivered.
    heard_at: Option<u64>,
    watch_at: Option<u64>,
    wake_at: Option<u64>,
    beat_at: Option<u64>,
    pace: Pace,
    round: u32,
    resyncing: bool,
    bracket: Bracket<SessionEvent>,
    shares: Vec<Share>,
    /// Handed out front first (a `Vec`, as a call's: see [`crate::call::Call`]).
    effects: Vec<SessionEffect>,
    /// What a step decided while its news is on its way to the coordinator.
    held: Vec<SessionEffect>,
    unreported: Vec<AttemptRecord>,
    /// How the server last closed a connection that was up: its code and words, for a stop code's message.
    server_closed: Option<String>,
    /// The page said it is offline: no attempt is made until it says online.
    offline: bool,
    /// The outage was given up for the page's offline: its online begins the next at once.
    paused: bool,
    /// When the page was hidden; and, once visible again after a long time, when it had been.
    hidden_at: Option<u64>,
    woke: Option<u64>,
    /// A wake's ping: when it went, when its connection is replaced if nothing was heard since, and
    /// that connection.
    answer: Option<(u64, u64, u32)>,
    /// The caller closed it (after a stop by its policy too): a `reconnect()` is refused.
    closed: bool,
}

impl Session {
    /// A session of `stream`, not connected yet.
    pub fn new(stream: Stream, settings: SessionSettings) -> Session {
        let pace = Pace::new(stream.spec().send_per_second);
        Session {
            stream,
            settings,
            state: StreamState::Connecting,
            current: None,
            rotation: None,
            next_link: 0,
            heard_at: None,
            watch_at: None,
            wake_at: None,
            beat_at: None,
            pace,
            round: 0,
            resyncing: false,
            bracket: Bracket::default(),
            shares: Vec::new(),
            effects: Vec::new(),
            held: Vec::new(),
            server_closed: None,
            unreported: Vec::new(),
            offline: false,
            paused: false,
            hidden_at: None,
            woke: None,
            answer: None,
            closed: false,
        }
    }

    /// Its state.
    pub fn state(&self) -> StreamState {
        self.state
    }

    /// The stream's connection decisions.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The next effect to perform.
    pub fn poll(&mut self) -> Option<SessionEffect> {
        crate::sorted_map::remove_at(&mut self.effects, 0)
    }

    /// When the shell's one timer must fire next (monotonic ms).
    pub fn poll_timeout(&self) -> Option<u64> {
        if let Some(until) = self.bracket.waiting_until() {
            return Some(until);
        }
        let dues = [self.current, self.rotation].into_iter().flatten().filter_map(|l| l.due);
        let answer = self.answer.map(|(_, by, _)| by);
        let at = [self.wake_at, self.watch_at, self.beat_at, self.pace.due(), answer].into_iter().flatten();
        at.chain(dues).min()
    }

    /// The records made since the last [`SessionEffect::Report`].
    pub fn take_records(&mut self) -> Vec<AttemptRecord> {
        std::mem::take(&mut self.unreported)
    }

    /// `{ reason, message, records }` of a stopped stream: its last outage's records.
    pub fn stop_json(&self) -> String {
        let reason = self.stream.stopped().map_or(Reason::Aborted, |stop| stop.reason);
        let records = self.stream.outage().map(|op| op.records()).unwrap_or_default();
        let url = self.stream.spec().name();
        // A stop code names the close that ended it: the explanation alone reads as a refusal.
        let closed = self.server_closed.as_deref().filter(|_| reason == Reason::NonRetryable);
        let detail = closed.map(|words| {
            join(&["the server closed the connection with ", words, ", one of stopCodes: reconnecting cannot help"])
        });
        let message =
            Failure { method: "stream", url, reason, records, detail: detail.as_deref(), note: &Note::None }.message();
        crate::json::to_json(&crate::call::Stopped { reason, message, records, key: None, cause: None })
    }

    /// Feeds what happened at `ctx.now`.
    pub fn handle(&mut self, event: SessionEvent, ctx: &mut Ctx) {
        match event {
            SessionEvent::Entered(seq, state) => {
                let scope = self.stream.spec().scope.clone();
                let answer =
                    self.bracket.entered(seq, state.as_ref(), ctx.budget, &scope, ctx.now, ctx.wall, &mut self.shares);
                self.answered_share(answer, ctx);
            }
            SessionEvent::Timer if self.bracket.waiting_until().is_some_and(|until| ctx.now >= until) => {
                let answer = self.bracket.give_up();
                self.answered_share(answer, ctx);
            }
            SessionEvent::Page(signal) if self.state == StreamState::Stopped => self.note_page(signal, ctx.now),
            event if self.state == StreamState::Stopped && !matches!(event, SessionEvent::Reconnect(..)) => {
                self.ignore(event)
            }
            event => self.route(event, ctx),
        }
        if self.bracket.is_leaving() {
            // What the step decided waits until its news reached the coordinator.
            self.held.append(&mut self.effects);
        }
        if !self.shares.is_empty() {
            let mut ahead: Vec<_> = std::mem::take(&mut self.shares).into_iter().map(SessionEffect::Share).collect();
            ahead.append(&mut self.effects);
            self.effects = ahead;
        }
    }

    /// An event stepped on inside a bracket when it may step on the budget, at once otherwise.
    fn route(&mut self, event: SessionEvent, ctx: &mut Ctx) {
        match ctx.budget.is_shared() && self.touches_budget(&event, ctx.now) {
            true => self.bracketed(event, ctx),
            false => self.step(event, ctx),
        }
    }

    /// The shell answered a bracket (or its time ran out): see [`crate::call::Call`]'s.
    fn answered_share(&mut self, answer: Answered<SessionEvent>, ctx: &mut Ctx) {
        match answer {
            Answered::Entered(queued) if !queued.is_empty() => {
                for event in queued {
                    self.step(event, ctx);
                }
                self.leave(ctx);
            }
            Answered::Left(queued) => {
                self.effects.append(&mut self.held);
                for event in queued {
                    self.route(event, ctx);
                }
            }
            Answered::Entered(_) | Answered::Late => {}
        }
    }

    /// Whether `event` may step on the budget (every other one is stepped at once, outside a bracket).
    fn touches_budget(&self, event: &SessionEvent, now: u64) -> bool {
        let ready_rotation = |link: u32| self.rotation.is_some_and(|r| r.id == link && r.ready);
        match event {
            SessionEvent::Message(link, _) => ready_rotation(*link),
            SessionEvent::Opened(_) => !self.settings.on_open,
            SessionEvent::Timer => {
                let due = |at: Option<u64>| at.is_some_and(|at| now >= at);
                let links = [self.current, self.rotation].into_iter().flatten().any(|l| due(l.due));
                due(self.wake_at) || due(self.watch_at) || links
            }
            SessionEvent::Send(..) | SessionEvent::Resynced(..) | SessionEvent::Gap => false,
            _ => true,
        }
    }

    /// The step of the outage under way (or of the next one's first attempt), for the bracket.
    fn subject_step<R>(&self, (now, wall): (u64, u64), f: impl FnOnce(&Step) -> R) -> R {
        let live = self.stream.outage().filter(|op| op.stopped().is_none()).cloned();
        let op = live.unwrap_or_else(|| self.stream.outage_op(now, wall));
        let ask = op.ask(now);
        f(&Step { ask: Some(ask), scope: op.scope(), priority: ask.priority, deadline: op.deadline_at() })
    }

    fn bracketed(&mut self, event: SessionEvent, ctx: &mut Ctx) {
        let mut shares = std::mem::take(&mut self.shares);
        let mut bracket = std::mem::take(&mut self.bracket);
        let taken = self.subject_step((ctx.now, ctx.wall), |step| {
            bracket.take(event, ctx.budget, step, ctx.now, ctx.wall, &mut shares)
        });
        (self.shares, self.bracket) = (shares, bracket);
        if let Some(event) = taken {
            self.step(event, ctx);
            self.leave(ctx);
        }
    }

    fn leave(&mut self, ctx: &mut Ctx) {
        let mut shares = std::mem::take(&mut self.shares);
        let mut bracket = std::mem::take(&mut self.bracket);
        self.subject_step((ctx.now, ctx.wall), |step| {
            let step = Step { ask: None, ..*step };
            bracket.leave(ctx.budget, &step, ctx.now, ctx.wall, &mut shares);
        });
        (self.shares, self.bracket) = (shares, bracket);
    }

    /// One event, inside the bracket when it needs one.
    fn step(&mut self, event: SessionEvent, ctx: &mut Ctx) {
        if self.state == StreamState::Stopped && !matches!(event, SessionEvent::Reconnect(..)) {
            return self.ignore(event);
        }
        match event {
            SessionEvent::Start => {
                let action = self.stream.connect(ctx.now, ctx.wall, ctx.draws, ctx.budget);
                self.act(action, ctx);
            }
            SessionEvent::Opened(link) => self.opened(link, ctx),
            SessionEvent::OnOpenDone(link, done) => self.on_open_done(link, done, ctx),
            SessionEvent::Message(link, id) => self.message(link, id, ctx),
            SessionEvent::Closed(link, code, reason) => self.closed(link, code, &redacted(&reason), ctx),
            SessionEvent::Refused(link, status, retry_after, date) => {
                self.refused(link, status, retry_after, date, ctx)
            }
            SessionEvent::Failed(link, words) => {
                self.failed(link, crate::classify::Observed::NetworkError, redacted(&words), ctx)
            }
            SessionEvent::Timer => self.timer(ctx),
            SessionEvent::Send(id, link) => self.send(id, link, ctx.now),
            SessionEvent::Close => {
                self.closed = true;
                self.stream.close(ctx.now, ctx.budget);
                self.stop(Reason::Aborted);
            }
            SessionEvent::CloseWith(code, words) => {
                self.closed = true;
                self.stream.close(ctx.now, ctx.budget);
                self.stop_closing(Reason::Aborted, code, Cow::Owned(words));
            }
            SessionEvent::Resynced(round, ok) => self.resynced(round, ok),
            SessionEvent::Gap => self.resync(),
            SessionEvent::Reconnect(code, words) => self.reconnect(code, words, ctx),
            SessionEvent::Page(signal) => self.page(signal, ctx),
            SessionEvent::Entered(..) => {}
        }
        self.report();
    }

    /// An event after the stream stopped: a message in it is let go of, a message sent is unsent,
    /// and a close of a stream its policy stopped (kept for a `reconnect()`) lets it go.
    fn ignore(&mut self, event: SessionEvent) {
        match event {
            SessionEvent::Message(_, id) => self.effects.push(SessionEffect::Discard(id)),
            SessionEvent::Send(id, _) => self.effects.push(SessionEffect::Unsent(id, signals::UNSENT_STOPPED)),
            SessionEvent::Close | SessionEvent::CloseWith(..) => {
                self.closed = true;
                self.effects.push(SessionEffect::Stopped(Reason::Aborted));
            }
            _ => {}
        }
    }

    /// Does what the outage decided: connect, wait, or stop.
    fn act(&mut self, action: Action, ctx: &mut Ctx) {
        let Some(action) = self.offline_send(action, ctx) else { return };
        match action {
            Action::Send { timeout_ms, .. } => self.connect(timeout_ms, false, ctx.now),
            Action::Sleep { until } => {
                self.set_state(StreamState::Waiting);
                self.wake_at = Some(ctx.now.saturating_add(self.stream.timer_ms(ctx.now, until)));
            }
            Action::Stop(stop) => self.stop(stop.reason),
        }
    }

    fn timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if self.wake_at.is_some_and(|at| now >= at) {
            self.wake_at = None;
            let action = self.stream.on_wake(now, ctx.budget);
            self.act(action, ctx);
        }
        self.links_due(ctx);
        if self.watch_at.is_some_and(|at| now >= at) {
            self.watch_at = None;
            let watching = self.stream.check(now, ctx.wall, self.heard_at, ctx.draws, ctx.budget);
            self.watch(watching, ctx);
        }
        self.answer_due(ctx);
        self.pace_due(now);
        self.beat(now);
    }

    fn set_state(&mut self, state: StreamState) {
        if self.state == state || self.state == StreamState::Stopped {
            return;
        }
        self.state = state;
        self.effects.push(SessionEffect::State(state));
    }

    /// Ends the stream: every socket closed, every wait dropped.
    fn stop(&mut self, reason: Reason) {
        self.stop_closing(reason, 1000, Cow::Borrowed("closed"));
    }

    /// Stops, closing its sockets with `code` and `words`.
    fn stop_closing(&mut self, reason: Reason, code: u16, words: Cow<'static, str>) {
        for link in [self.current.take(), self.rotation.take()].into_iter().flatten() {
            self.effects.push(SessionEffect::Close(link.id, code, words.clone()));
        }
        (self.wake_at, self.watch_at, self.beat_at, self.answer, self.paused) = (None, None, None, None, false);
        let ids = self.pace.clear();
        self.unsent(ids, signals::UNSENT_STOPPED);
        self.report();
        self.set_state(StreamState::Stopped);
        self.effects.push(SessionEffect::Stopped(reason));
    }

    /// Hands the records made since the last report on.
    fn report(&mut self) {
        let new = self.stream.take_records();
        if new.is_empty() || !self.settings.observed {
            return;
        }
        self.unreported.extend(new);
        self.effects.push(SessionEffect::Report);
    }
}

/// What the platform said (a close's reason, a failure), redacted as records are: it may name a URL.
fn redacted(words: &str) -> String {
    crate::redact::redact_text_with(words, &|_| false)
}
