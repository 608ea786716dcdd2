//! Coalescing (`coalesce: true`): concurrent reads of the same request in the same scope share one
//! operation. Whether a call joins a running one is decided here; a joined caller waits for that
//! operation's outcome until its own deadline, and its abort detaches only itself. The operation
//! is aborted when its last caller has left.

use super::{Call, Ctx, Effect, Event, Purpose, Stage};
use crate::failure::{Failure, Note};
use crate::json::to_json;
use crate::reason::Reason;

/// Headers that name one request, not what it asks for: they never keep two reads apart.
const UNSHARED_HEADERS: [&str; 5] = ["traceparent", "tracestate", "baggage", "x-request-id", "x-correlation-id"];

/// [`Event::Leave`] of every caller at once: the platform cannot bound the call's waits (its timers
/// fail), so no one may be left waiting on it.
pub const EVERY_CALLER: u32 = u32::MAX;

/// A caller that joined the operation (the one who began it is caller 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Joiner {
    /// Its number, from 1.
    id: u32,
    /// Its own deadline (monotonic ms).
    deadline_at: u64,
}

/// Who waits on the operation besides the caller who began it.
#[derive(Clone, Debug, Default)]
pub(super) struct Callers {
    /// The request's identity (scope, method, URL, the headers that matter), if it may be joined.
    key: Option<u64>,
    /// The request's identity, whether or not it may be joined: what a kept response is kept by.
    identity: Option<u64>,
    joined: Vec<Joiner>,
    next: u32,
    /// The caller who began it has left (aborted) while others wait.
    first_left: bool,
    /// Its flight's token in a budget shared across realms, once it went on the wire there.
    token: Option<u64>,
}

/// A request's identity for coalescing: FNV-1a over the scope, the method, the URL and the
/// request's headers (`headers`: NUL-separated names and values), names without case, sorted.
/// Hashed, so that no header value (an API key) is held.
pub fn request_key(scope: &str, method: &str, url: &str, headers: &str) -> u64 {
    let mut pairs: Vec<(String, &str)> = Vec::new();
    let items = fields(headers);
    for pair in items.chunks(2) {
        let (Some(name), value) = (pair.first(), pair.get(1).copied().unwrap_or_default()) else { continue };
        let name = name.to_ascii_lowercase();
        if !UNSHARED_HEADERS.contains(&name.as_str()) {
            pairs.push((name, value));
        }
    }
    pairs.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |text: &str| {
        for byte in text.bytes().chain([0xff]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(scope);
    eat(&method.to_ascii_uppercase());
    eat(url);
    for (name, value) in &pairs {
        eat(name);
        eat(value);
    }
    hash
}

/// `text`'s NUL-separated fields, empty ones kept (a header's value may be empty).
fn fields(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (field, after) = crate::text::split_once_byte(rest, 0).unwrap_or((rest, ""));
        out.push(field);
        rest = after;
    }
    out
}

impl Call {
    /// Whether it needs its request's identity: it coalesces or keeps its responses (else the
    /// shell's headers are not even hashed).
    pub fn wants_identity(&self) -> bool {
        self.settings.coalesce || self.settings.stale_ms > 0
    }

    /// The request's identity is `key` ([`request_key`]): a kept response is kept by it, and later
    /// reads of it may join this call if it is a coalescing read of GET or HEAD, without a body or
    /// a key. A call never offered (its headers unreadable) keeps, serves and joins nothing.
    pub fn offer(&mut self, key: u64) {
        self.callers.identity = Some(key);
        let method = self.op.method().unwrap_or_default();
        let read = matches!(self.op.kind(), crate::classify::OperationKind::Read)
            && (method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD"));
        if self.settings.coalesce && read && !self.settings.has_body && self.op.key().is_none() {
            self.callers.key = Some(key);
        }
    }

    /// The caller of `other` (not begun) joins this call: its number, if it may. Orders, a call
    /// whose first caller left, or one whose outcome is being settled take no one; another
    /// client's read (`same_client` false) joins only if both send through the platform's own
    /// `fetch` (a client's own `fetch` may add what the identity does not see: a token).
    pub fn join(&mut self, other: &Call, same_client: bool) -> Option<u32> {
        let key = other.callers.key?;
        if self.callers.key != Some(key) || !matches!(self.purpose(), Purpose::Fetch) {
            return None;
        }
        if !(same_client || (self.settings.platform_fetch && other.settings.platform_fetch)) {
            return None;
        }
        if self.settings.read_body != other.settings.read_body || self.settings.secrets != other.settings.secrets {
            return None;
        }
        if matches!(self.stage, Stage::Done | Stage::Stale { .. } | Stage::Finishing { .. }) || self.callers.first_left
        {
            return None;
        }
        self.callers.next = self.callers.next.saturating_add(1);
        let id = self.callers.next;
        self.callers.joined.push(Joiner { id, deadline_at: other.op.deadline_at() });
        Some(id)
    }

    /// Whether later reads may join it (a coalescing read, offered its identity).
    pub fn joinable(&self) -> bool {
        self.callers.key.is_some()
    }

    /// The request's identity, if it was offered.
    pub(super) fn identity(&self) -> Option<u64> {
        self.callers.identity
    }

    /// How many callers joined and still wait.
    pub fn joined(&self) -> usize {
        self.callers.joined.len()
    }

    /// The earliest joined caller's deadline before the operation's own, for the one timer.
    pub(super) fn joiner_due(&self) -> Option<u64> {
        let deadline = self.op.deadline_at();
        self.callers.joined.iter().map(|j| j.deadline_at).filter(|at| *at < deadline).min()
    }

    /// A caller leaves: `0` the first (its abort), else a joined one. `false`: it was the last,
    /// and the operation is aborted as the abort of a lone caller would.
    pub(super) fn detach(&mut self, caller: u32) -> bool {
        if caller == 0 {
            if self.callers.joined.is_empty() || self.callers.first_left {
                return false;
            }
            self.callers.first_left = true;
        } else {
            let before = self.callers.joined.len();
            self.callers.joined.retain(|j| j.id != caller);
            if self.callers.joined.len() == before {
                return true;
            }
        }
        self.release(caller, Reason::Aborted);
        !(self.callers.first_left && self.callers.joined.is_empty())
    }

    /// Joined callers whose deadline came are released with `deadline`; `true` if any was.
    pub(super) fn release_due(&mut self, now: u64) -> bool {
        let due: Vec<u32> = self.callers.joined.iter().filter(|j| j.deadline_at <= now).map(|j| j.id).collect();
        self.callers.joined.retain(|j| j.deadline_at > now);
        for id in &due {
            self.release(*id, Reason::Deadline);
        }
        !due.is_empty()
    }

    /// Every caller has gone: nothing waits for the operation.
    pub(super) fn deserted(&self) -> bool {
        self.callers.first_left && self.callers.joined.is_empty()
    }

    fn release(&mut self, caller: u32, reason: Reason) {
        let method = self.op.method().unwrap_or("GET");
        let url = self.op.url().unwrap_or_default();
        let records = self.op.records();
        let note = match reason {
            Reason::Deadline => Note::Pending(crate::record::Pending::Response, crate::failure::Cut::Deadline),
            _ => Note::Pending(crate::record::Pending::Response, crate::failure::Cut::Aborted),
        };
        let message = Failure { method, url, reason, records, detail: None, note: &note }.message();
        let json = to_json(&super::Stopped { reason, message, records, key: None, cause: None });
        self.effects.push(Effect::Release { caller, json });
    }

    /// A caller's abort or a joined caller's deadline, before the step it may lead to.
    /// The same read is on the wire in another realm of the shared budget: the call waits for its
    /// answer, carried here, until that attempt must have ended (then it looks again). `true`: it waits.
    pub(super) fn awaits_carried(&mut self, ctx: &mut Ctx) -> bool {
        let Some(key) = self.callers.key.filter(|_| self.carries(ctx)) else { return false };
        let token = self.callers.token.unwrap_or(0);
        let Some(due) = ctx.budget.flight_of(self.op.scope(), key, token, ctx.now) else { return false };
        self.stage = Stage::Awaiting { until: due.min(self.op.deadline_at()) };
        self.effects.push(Effect::Await { key });
        true
    }

    /// A request of the call goes on the wire until `due`: in a shared budget, its flight is
    /// written there for the same read in other realms.
    pub(super) fn board_flight(&mut self, due: u64, ctx: &mut Ctx) {
        let Some(key) = self.callers.key.filter(|_| self.carries(ctx)) else { return };
        let token = match self.callers.token {
            Some(token) => token,
            None => *self.callers.token.insert(ctx.budget.flight_token()),
        };
        ctx.budget.board_flight(self.op.scope(), key, token, due);
    }

    /// Whether its read coalesces across the realms of its budget: shared by tabs, a shell that
    /// carries answers, and the platform's own `fetch` (what another tab sends is what it sends).
    fn carries(&self, ctx: &Ctx) -> bool {
        self.settings.carries && self.settings.platform_fetch && ctx.budget.carries()
    }

    /// The operation stopped: its flight lands, and its outcome is carried to those awaiting it.
    pub(super) fn land_flight(&mut self, ctx: &mut Ctx) {
        let (Some(key), Some(token)) = (self.callers.key, self.callers.token) else { return };
        ctx.budget.land_flight(self.op.scope(), token);
        let ok = self.op.stopped().is_some_and(|s| s.reason == Reason::Success);
        self.effects.push(Effect::Carry { key, ok });
    }

    /// Another realm's answer to the read this call awaits came (`ok`: a success, which the shell
    /// holds), or that read failed: the call settles with it, or sends its own.
    pub(super) fn carried(&mut self, ok: bool, ctx: &mut Ctx) {
        if !matches!(self.stage, Stage::Awaiting { .. }) {
            return;
        }
        if ok {
            self.stage = Stage::Done;
            // Kept as its own: this tab's later failed reads may serve it, marked stale.
            if let Some(key) = self.keeps() {
                self.effects.push(Effect::Keep { key });
            }
            self.effects.push(Effect::Done(super::Done::Carried));
            return;
        }
        self.stage = Stage::Begun;
        self.go(ctx);
    }

    /// `None`: nothing more to step (a caller detached, or a timer only a joined caller's).
    pub(super) fn caller_event(&mut self, event: Event, now: u64) -> Option<Event> {
        match event {
            // The first caller already left: its later abort (another of its signals) is nothing more.
            Event::Abort if self.callers.first_left => None,
            Event::Abort if self.detach(0) => None,
            // A lone caller's abort, maybe queued behind the shared budget's lock: no one joins it now.
            Event::Abort => {
                self.callers.first_left = true;
                Some(Event::Abort)
            }
            Event::Leave(EVERY_CALLER) => {
                for joiner in std::mem::take(&mut self.callers.joined) {
                    self.release(joiner.id, Reason::Aborted);
                }
                Some(Event::Abort)
            }
            Event::Leave(caller) if self.detach(caller) => None,
            Event::Leave(_) => Some(Event::Abort),
            Event::Timer if self.release_due(now) => match self.deserted() {
                true => Some(Event::Abort),
                false => self.stage_timeout().filter(|at| *at <= now).map(|_| Event::Timer),
            },
            event => Some(event),
        }
    }
}
