//! What is asked of a session beyond its sockets' events: the caller's `reconnect()`, and the
//! page's own signals — offline pauses the outage (no attempt spent), online tries at once, and a
//! wake checks the open connection (a ping, or a replacement when nothing can answer).

use std::borrow::Cow;

use super::{PageSignal, Session, SessionEffect, StreamState};
use crate::call::Ctx;
use crate::classify::Observed;
use crate::machine::Action;
use crate::reason::Reason;
use crate::text::{join, number};

/// Why a message queued by the pace was never written.
pub(super) const UNSENT_CLOSED: &str = "its connection closed before the pace let it go";
pub(super) const UNSENT_STOPPED: &str = "the stream stopped before the pace let it go";
const UNSENT_RECONNECT: &str = "reconnect() closed its connection before the pace let it go";
const UNSENT_OFFLINE: &str = "the page went offline before the pace let it go";
/// What a refused record says of an attempt the page's offline held back.
const OFFLINE: &str = "the page is offline: the stream waits for its online";
/// A wake's ping is answered within its heartbeat period, and never given longer than this.
const ANSWER_MS: u64 = 5_000;
/// A page hidden this long has woken (when its stream has no `staleAfterMs`).
const HIDDEN_LONG_MS: u64 = 10_000;

impl Session {
    /// The caller's `reconnect(code, words)` (code 0: 1000 "reconnect").
    pub(super) fn reconnect(&mut self, code: u16, words: String, ctx: &mut Ctx) {
        if let Some(refused) = self.reconnect_refusal(ctx) {
            return self.effects.push(SessionEffect::ReconnectRefused(refused.0, refused.1));
        }
        let words = match code {
            0 => Cow::Borrowed("reconnect"),
            _ => Cow::Owned(words),
        };
        let sent = self.drop_links(code.max(1000), words, UNSENT_RECONNECT);
        if self.state == StreamState::Stopped {
            // Stopped by its policy: it begins again, and says so.
            self.state = StreamState::Connecting;
            self.effects.push(SessionEffect::State(StreamState::Connecting));
            self.stream.unstop();
        }
        if self.offline {
            return self.pause(sent, ctx);
        }
        let action = self.stream.restart(ctx.now, ctx.wall, sent, ctx.draws, ctx.budget);
        self.act(action, ctx);
    }

    /// Why `reconnect()` cannot be done now: after `close()`, and while the scope is banned.
    fn reconnect_refusal(&self, ctx: &Ctx) -> Option<(Reason, String)> {
        let url = self.stream.spec().name();
        if self.closed {
            let why = join(&["stream ", url, ": reconnect refused: close() ended it for good (make a new stream)"]);
            return Some((Reason::Aborted, why));
        }
        let scope = &self.stream.spec().scope;
        let left = ctx.budget.ban_remaining(scope, ctx.now);
        if left == 0 {
            return None;
        }
        let mut why = join(&["stream ", url, ": reconnect refused: its scope ", scope, " is banned for "]);
        why.push_str(&join(&[&number(left), " ms more"]));
        if let Some(held) = ctx.budget.held_by(scope, ctx.now, true) {
            why.push_str(&crate::failure::held_words(" (by ", &held));
        }
        Some((Reason::Banned, why))
    }

    /// Closes the stream's sockets with `code` and `words`; what the pace held is unsent. Whether
    /// an attempt was in flight (its socket made, not up yet).
    fn drop_links(&mut self, code: u16, words: Cow<'static, str>, why: &'static str) -> bool {
        let in_flight = self.current.is_some_and(|l| !l.ready || l.due.is_some());
        for link in [self.current.take(), self.rotation.take()].into_iter().flatten() {
            self.effects.push(SessionEffect::Close(link.id, code, words.clone()));
        }
        let ids = self.pace.clear();
        self.unsent(ids, why);
        (self.wake_at, self.watch_at, self.beat_at, self.answer) = (None, None, None, None);
        (self.heard_at, self.resyncing, self.server_closed) = (None, false, None);
        in_flight
    }

    /// What the page said of itself.
    pub(super) fn page(&mut self, signal: PageSignal, ctx: &mut Ctx) {
        self.note_page(signal, ctx.now);
        match signal {
            PageSignal::Offline if !self.is_up() && !self.paused => {
                let sent = self.drop_links(1000, Cow::Borrowed("offline"), UNSENT_OFFLINE);
                self.pause(sent, ctx);
            }
            PageSignal::Online if self.paused => {
                self.paused = false;
                let action = self.stream.connect(ctx.now, ctx.wall, ctx.draws, ctx.budget);
                self.act(action, ctx);
            }
            PageSignal::Visible if self.woke.take().is_some() => self.wake(ctx),
            PageSignal::Wake => self.wake(ctx),
            _ => {}
        }
    }

    /// Keeps what the page said (a stopped stream keeps it too, for a `reconnect()`).
    pub(super) fn note_page(&mut self, signal: PageSignal, now: u64) {
        match signal {
            PageSignal::Offline => self.offline = true,
            PageSignal::Online => self.offline = false,
            PageSignal::Hidden => self.hidden_at = Some(now),
            PageSignal::Visible => {
                let long = self.stream.spec().watch.stale_after_ms.unwrap_or(HIDDEN_LONG_MS);
                self.woke = self.hidden_at.take().filter(|at| now.saturating_sub(*at) >= long);
            }
            PageSignal::Wake => {}
        }
    }

    /// The outage under way is given up while the page is offline (`sent`: its attempt had left).
    fn pause(&mut self, sent: bool, ctx: &mut Ctx) {
        self.wake_at = None;
        self.stream.abandon(ctx.now, sent, Some(OFFLINE), ctx.budget);
        self.paused = true;
        self.set_state(StreamState::Waiting);
    }

    /// Whether the stream's connection is up (opened, `onOpen` done).
    fn is_up(&self) -> bool {
        self.current.is_some_and(|l| l.ready && l.due.is_none())
    }

    /// An attempt the stream decided while the page is offline: held back, nothing spent.
    pub(super) fn offline_send(&mut self, action: Action, ctx: &mut Ctx) -> Option<Action> {
        match (self.offline, action) {
            (true, Action::Send { .. }) => {
                self.pause(false, ctx);
                None
            }
            _ => Some(action),
        }
    }

    /// The page woke: an open connection that was quiet is checked at once.
    fn wake(&mut self, ctx: &mut Ctx) {
        let Some(link) = self.current.filter(|_| self.is_up()) else { return };
        let quiet = self.stream.spec().watch.stale_after_ms.unwrap_or(HIDDEN_LONG_MS);
        let heard = self.heard_at.unwrap_or(link.opened_at);
        if ctx.now.saturating_sub(heard) < quiet {
            return; // it delivered lately: alive
        }
        match self.settings.heartbeat_ms {
            Some(every) => {
                self.effects.push(SessionEffect::Ping(link.id));
                self.answer = Some((ctx.now, ctx.now.saturating_add(every.min(ANSWER_MS)), link.id));
            }
            None => {
                let silent = number(ctx.now.saturating_sub(heard));
                let words = join(&["the page woke, and nothing was heard for ", &silent, " ms: replaced"]);
                self.failed(link.id, Observed::Timeout, words, ctx);
            }
        }
    }

    /// A wake's ping that went unanswered: its connection is replaced.
    pub(super) fn answer_due(&mut self, ctx: &mut Ctx) {
        let Some((pinged, by, pinged_link)) = self.answer.filter(|(_, by, _)| ctx.now >= *by) else { return };
        self.answer = None;
        // Only the connection that was pinged, if it is still the stream's and said nothing since.
        let silent = self.heard_at.map_or(true, |h| h < pinged);
        let Some(link) = self.current.filter(|l| l.id == pinged_link && silent) else { return };
        let waited = number(by.saturating_sub(pinged));
        let words = join(&["no answer within ", &waited, " ms to the ping sent as the page woke: replaced"]);
        self.failed(link.id, Observed::Timeout, words, ctx);
    }
}
