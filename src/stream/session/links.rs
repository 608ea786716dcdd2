//! A session's sockets: each opened with its connect timeout, up once the caller's `onOpen` ran on
//! it, watched while it delivers, replaced when it falls silent, rotated make-before-break, and
//! ended by its close — a failed attempt before it was up, a drop after.

use super::{Link, Session, SessionEffect, StreamState};
use crate::call::Ctx;
use crate::classify::Observed;
use crate::machine::Outcome;
use crate::stream::{Check, Closed, Watching};
use crate::text::{join, number};

impl Session {
    /// Opens a socket: the outage's attempt, or (`rotating`) the next connection beside the open one.
    pub(super) fn connect(&mut self, timeout_ms: u64, rotating: bool, now: u64) {
        if !rotating {
            self.set_state(StreamState::Connecting);
        }
        self.next_link = self.next_link.wrapping_add(1);
        let due = Some(now.saturating_add(timeout_ms));
        let link = Link { id: self.next_link, rotating, ready: false, opened_at: 0, due, connect_ms: timeout_ms };
        match rotating {
            true => self.rotation = Some(link),
            false => self.current = Some(link),
        }
        self.effects.push(SessionEffect::Connect(link.id));
    }

    /// The session's socket `id`, current or rotating.
    fn link_mut(&mut self, id: u32) -> Option<&mut Link> {
        [self.current.as_mut(), self.rotation.as_mut()].into_iter().flatten().find(|l| l.id == id)
    }

    pub(super) fn opened(&mut self, id: u32, ctx: &mut Ctx) {
        let now = ctx.now;
        let Some(link) = self.link_mut(id) else { return };
        link.opened_at = now;
        match self.settings.on_open {
            true => self.effects.push(SessionEffect::OnOpen(id)),
            false => self.up(id, ctx),
        }
    }

    pub(super) fn on_open_done(&mut self, id: u32, done: Result<(), String>, ctx: &mut Ctx) {
        match done {
            Ok(()) => self.up(id, ctx),
            Err(threw) => self.failed(id, Observed::NetworkError, join(&["onOpen failed: ", &threw]), ctx),
        }
    }

    /// Socket `id` is up (opened, `onOpen` done): the outage's attempt succeeded; a rotation's
    /// waits until it delivers.
    fn up(&mut self, id: u32, ctx: &mut Ctx) {
        let Some(link) = self.link_mut(id) else { return };
        link.ready = true;
        if link.rotating {
            return;
        }
        link.due = None;
        link.opened_at = ctx.now;
        self.heard_at = None;
        self.stream.on_open(ctx.now, ctx.wall, ctx.draws, ctx.budget);
        // With a resync, the stream is stale from its open until it answers (never open first).
        self.resync();
        let watching = self.stream.check(ctx.now, ctx.wall, None, ctx.draws, ctx.budget);
        self.watch(watching, ctx);
        self.beat_at = self.settings.heartbeat_ms.map(|every| ctx.now.saturating_add(every));
    }

    /// Message `message` on socket `id`: delivered if that socket is the stream's (a rotation's
    /// first message makes it so), let go of otherwise.
    pub(super) fn message(&mut self, id: u32, message: u32, ctx: &mut Ctx) {
        if self.rotation.is_some_and(|r| r.id == id && r.ready) {
            self.switch_to(ctx);
        } else if !self.current.is_some_and(|c| c.id == id) {
            return self.effects.push(SessionEffect::Discard(message));
        }
        self.heard_at = Some(ctx.now);
        // The next check comes by the time this message's silence would be stale (a check armed
        // while it was stale looked only as far as its replacement).
        if let (Some(at), Some(stale)) = (self.watch_at, self.stream.spec().watch.stale_after_ms) {
            self.watch_at = Some(at.min(ctx.now.saturating_add(stale)));
        }
        if self.state == StreamState::Stale && !self.resyncing {
            self.set_state(StreamState::Open);
        }
        self.effects.push(SessionEffect::Deliver(message));
    }

    /// Make-before-break: the rotation's socket delivered; the old one goes without a reconnect.
    fn switch_to(&mut self, ctx: &mut Ctx) {
        let Some(mut next) = self.rotation.take() else { return };
        (next.rotating, next.due, next.opened_at) = (false, None, ctx.now);
        if let Some(old) = self.current.replace(next) {
            self.effects.push(SessionEffect::Close(old.id, 1000, "rotated".into()));
            self.pace.retarget(old.id, next.id);
        }
        self.stream.on_rotation_open(ctx.now, ctx.wall, ctx.draws, ctx.budget);
        let watching = self.stream.check(ctx.now, ctx.wall, Some(ctx.now), ctx.draws, ctx.budget);
        self.watch(watching, ctx);
    }

    pub(super) fn closed(&mut self, id: u32, code: u16, reason: &str, ctx: &mut Ctx) {
        let Some(link) = self.link_mut(id).copied() else { return };
        let mut words = join(&["code ", &number(u64::from(code))]);
        if !reason.is_empty() {
            let short: String = reason.chars().take(120).collect();
            words = join(&[&words, " (", &short, ")"]);
        }
        if !link.ready || link.due.is_some() {
            return self.failed(id, Observed::NetworkError, join(&["closed before it opened, ", &words]), ctx);
        }
        let up = number(ctx.now.saturating_sub(link.opened_at));
        self.server_closed = Some(words.clone());
        self.effects.push(SessionEffect::ServerClosed(code, reason.to_owned()));
        let words = join(&["closed after ", &up, " ms up, ", &words]);
        self.dropped(id, Outcome { error: Some(words), ..Outcome::failure(Observed::NetworkError) }, Some(code), ctx);
    }

    pub(super) fn refused(
        &mut self,
        id: u32,
        status: u16,
        retry_after: Option<String>,
        date: Option<String>,
        ctx: &mut Ctx,
    ) {
        let mut outcome = Outcome::response(status);
        outcome.error = Some(join(&["the upgrade was refused with ", &number(u64::from(status))]));
        (outcome.retry_after, outcome.date) = (retry_after, date);
        self.dropped(id, outcome, None, ctx);
    }

    /// The attempt on socket `id` failed before its connection was up.
    pub(super) fn failed(&mut self, id: u32, observed: Observed, words: String, ctx: &mut Ctx) {
        let outcome = Outcome { error: Some(words), ..Outcome::failure(observed) };
        self.dropped(id, outcome, None, ctx);
    }

    /// Socket `id` is done: the outage decides what follows; a rotation's failure leaves the
    /// stream's connection as it is.
    fn dropped(&mut self, id: u32, outcome: Outcome, code: Option<u16>, ctx: &mut Ctx) {
        let ids = self.pace.drop_link(id);
        self.unsent(ids, super::signals::UNSENT_CLOSED);
        if self.rotation.is_some_and(|r| r.id == id) {
            self.rotation = None;
            self.effects.push(SessionEffect::Close(id, 1000, "".into()));
            self.stream.on_rotation_close(ctx.now, ctx.wall, &outcome, ctx.draws, ctx.budget);
            let watching = self.stream.check(ctx.now, ctx.wall, self.heard_at, ctx.draws, ctx.budget);
            return self.watch(watching, ctx);
        }
        if !self.current.is_some_and(|c| c.id == id) {
            return;
        }
        self.current = None;
        self.answer = None;
        self.effects.push(SessionEffect::Close(id, 1000, "".into()));
        (self.watch_at, self.beat_at) = (None, None);
        match self.stream.on_close(ctx.now, ctx.wall, &outcome, code, ctx.draws, ctx.budget) {
            Closed::Act(action) => self.act(action, ctx),
            Closed::Adopted => {
                // The rotation's socket, in flight, is this outage's attempt now.
                let Some(mut next) = self.rotation.take() else { return };
                next.rotating = false;
                self.current = Some(next);
                self.set_state(StreamState::Connecting);
                if next.ready {
                    self.up(next.id, ctx);
                }
            }
        }
    }

    /// Connect timeouts that ran out.
    pub(super) fn links_due(&mut self, ctx: &mut Ctx) {
        for link in [self.current, self.rotation].into_iter().flatten() {
            if link.due.is_some_and(|due| ctx.now >= due) {
                let words = join(&["no connection within ", &number(link.connect_ms), " ms"]);
                self.failed(link.id, Observed::Timeout, words, ctx);
            }
        }
    }

    /// Acts on a check of the open connection, and arms the next.
    pub(super) fn watch(&mut self, watching: Watching, ctx: &mut Ctx) {
        self.watch_at = None;
        match watching.check {
            Check::Replace => {
                let Some(link) = self.current else { return };
                let since = self.heard_at.unwrap_or(link.opened_at);
                let silent = number(ctx.now.saturating_sub(since));
                let words = join(&["no message for ", &silent, " ms: replaced"]);
                return self.failed(link.id, Observed::Timeout, words, ctx);
            }
            Check::Rotate => {
                if let crate::machine::Action::Send { timeout_ms, .. } =
                    self.stream.rotate(ctx.now, ctx.wall, ctx.draws, ctx.budget)
                {
                    self.connect(timeout_ms, true, ctx.now);
                }
            }
            Check::Stale => self.set_state(StreamState::Stale),
            Check::Fresh if !(self.state == StreamState::Stale && (self.resyncing || self.heard_at.is_none())) => {
                self.set_state(StreamState::Open)
            }
            Check::Fresh | Check::Closed => {}
        }
        self.watch_at = watching.next_at;
    }

    /// The caller's resync runs: the stream is stale until it is done.
    pub(super) fn resync(&mut self) {
        if !self.settings.resync {
            return;
        }
        self.round = self.round.wrapping_add(1);
        self.resyncing = true;
        self.set_state(StreamState::Stale);
        self.effects.push(SessionEffect::Resync(self.round));
    }

    pub(super) fn resynced(&mut self, round: u32, ok: bool) {
        if round != self.round {
            return;
        }
        self.resyncing = false;
        // A failed one stays stale: the next open or gap tries again.
        let up = self.current.is_some_and(|c| c.ready && c.due.is_none());
        if ok && up && self.state == StreamState::Stale {
            self.set_state(StreamState::Open);
        }
    }
}
