//! The realm's side of a budget kept by a coordinator (docs/shared-budgets.md): when a budget step
//! must visit the scope's coordinator, what it tells it, how long it waits, and what it takes up
//! of the answer. The visits themselves are the shell's; this decides them, on the caller's clock.

use super::breaker_shared::{PROBE_ASK, PROBE_CLOSED, PROBE_FAILED, PROBE_NONE};
use super::lease::Lease;
use super::{Ask, Budget, Priority};
use crate::sorted_map::SortedMap;

/// How old this realm's news of a scope's holds and bans may be when it sends: a ban answered to
/// another isolate stops this one within this long (plus one round trip to the coordinator).
pub const FRESH_MS: u64 = 50;
/// How long leased tokens stay this realm's before what is left goes back. Tokens are taken when the
/// coordinator's bucket has them and may be sent up to this much later, so over any window `d` the
/// provider sees at most `capacity + rate × (d + LEASE_MS)`: kept short.
pub const LEASE_MS: u64 = 200;
/// The longest a step waits for the coordinator before it goes on with what it knows.
pub const CONTACT_MS: u64 = 250;
/// How far a wall-clock end may move as it is carried between clocks and still be the same end.
const WALL_SLACK_MS: u64 = 5;
/// After the coordinator failed to answer, it is asked again this often, and never waited for.
pub const RETRY_MS: u64 = 500;
/// The processes a fleet's realm assumes until Redis has counted them (`fleetSize` says otherwise):
/// its own bucket, what it spends alone, is this share of the bucket.
pub const ASSUMED_FLEET: u64 = 8;

#[derive(Clone, Copy, Debug, Default)]
struct Contact {
    /// When this realm last heard from the scope's coordinator (monotonic ms; 0: never).
    heard_at: u64,
    /// Set while the coordinator is unreachable: it is not waited for again before this instant.
    retry_at: u64,
    /// The hold and ban ends (wall ms) the coordinator has from this realm, or told it of.
    hold_wall: u64,
    ban_wall: u64,
    /// The breaker's open end (wall ms) the coordinator has from this realm, or told it of.
    breaker_wall: u64,
    /// The coordinator granted this realm the probe slot of its half-open breaker.
    probe_granted: bool,
    /// What the visit on its way tells of the tokens this realm spent alone.
    telling: u64,
}

impl Contact {
    fn unreachable(&self) -> bool {
        self.retry_at != 0
    }
}

/// One visit to a scope's coordinator: what it is told, and how long the step waits for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    /// Tokens to lease (0: news only).
    pub weight: u32,
    /// The priority they are for.
    pub priority: Priority,
    /// The earliest instant (wall ms) they start: a retry's after its wait, so that a lease
    /// (good for [`LEASE_MS`] from its start) is not spent while the retry sleeps.
    pub earliest_wall: u64,
    /// The latest instant (wall ms) they may start.
    pub latest_wall: u64,
    /// Tokens of an expired lease that were never started.
    pub returned: u64,
    /// This realm's hold and ban ends on the scope (wall ms, 0: none).
    pub hold_wall: u64,
    /// See `hold_wall`.
    pub ban_wall: u64,
    /// This realm's breaker's open end (wall ms), if the coordinator does not have it yet (0: none).
    pub breaker_wall: u64,
    /// The probe slot: `PROBE_ASK` for it, `PROBE_CLOSED` (this realm's probe closed the breaker), or none.
    pub probe: u64,
    /// Tokens this realm spent of its own bucket while it could not reach the coordinator: the
    /// coordinator's bucket is charged for them (a fleet does not spend them twice).
    pub spent: u64,
    /// How long the step waits for the answer (ms); 0 with `background`: not at all.
    pub within: u64,
    /// It goes on in the background: the step does not wait for it.
    pub background: bool,
}

/// What this realm knows of each scope's coordinator.
#[derive(Clone, Debug, Default)]
pub struct Contacts {
    scopes: SortedMap<String, Contact>,
    /// Until its first visit ends, how long a step waits (0: [`CONTACT_MS`]): a fleet process's
    /// first visit includes connecting to Redis, and a new process must hear of bans before it sends.
    joining_ms: u64,
}

impl Contacts {
    /// The first visit is waited for up to `ms` (never past the latest start of the attempt it is for),
    /// later ones [`CONTACT_MS`].
    pub fn joining(&mut self, ms: u64) {
        self.joining_ms = ms;
    }

    /// Whether the coordinator of any scope this realm used has stopped answering.
    pub fn unreachable(&self) -> bool {
        self.scopes.values().any(Contact::unreachable)
    }

    /// Moves what visit `v` tells of the tokens spent alone out of the budget's count, until it is
    /// answered (told) or not (counted again): another visit in flight does not tell them twice.
    fn telling(&mut self, budget: &mut Budget, scope: &str, v: Visit) -> Visit {
        budget.spent_alone_told(scope, v.spent);
        let contact = self.scopes.get_or_insert_with(scope, Contact::default);
        contact.telling = contact.telling.saturating_add(v.spent);
        v
    }

    fn contact(&self, scope: &str) -> Contact {
        self.scopes.get(scope).copied().unwrap_or_default()
    }

    /// Before a budget step of `ask`: a lease with room for its attempt, and news no older than
    /// [`FRESH_MS`], waited for no longer than [`CONTACT_MS`] nor past the `deadline`. A coordinator
    /// that did not answer is asked again in the background at most every [`RETRY_MS`], while this
    /// realm spends its own bucket once the lease has no room.
    pub fn before(&mut self, budget: &mut Budget, ask: &Ask, now: u64, wall: u64, deadline: u64) -> Option<Visit> {
        let to_wall = |at: u64| wall.saturating_add(at.saturating_sub(now));
        let starts = (to_wall(ask.earliest), to_wall(ask.latest));
        let contact = self.contact(ask.scope);
        // A half-open breaker sends its probe only with the coordinator's grant: one among all realms.
        // A closed one asks too when it visits anyway: the coordinator may be half-open (a realm new
        // to the scope must not probe beside the realm it granted).
        let probe = budget.breaker_probe_due(ask.scope, now) && !contact.probe_granted;
        let ask_too = probe || (budget.breaker_closed(ask.scope, now) && !contact.probe_granted);
        let lease = budget.lease(ask.scope);
        let room = lease.is_some_and(|l| now < l.until && l.start(ask.weight, ask.earliest).is_some());
        if contact.unreachable() {
            if !room {
                budget.set_lease(ask.scope, None);
            }
            if now < contact.retry_at {
                return None;
            }
            self.scopes.get_or_insert_with(ask.scope, Contact::default).retry_at = now.saturating_add(RETRY_MS);
            let v = visit(budget, &contact, ask.scope, 0, ask.priority, starts, (now, wall), CONTACT_MS, true);
            return Some(self.telling(budget, ask.scope, v));
        }
        if room && now < contact.heard_at.saturating_add(FRESH_MS) && !probe {
            return None;
        }
        // The coordinator said when its bucket next has tokens: a read that cannot start by then sends
        // nothing and needs no visit (a flood of them would only contend for the fleet's state).
        let futile = lease.is_some_and(|l| now < l.from && ask.latest < l.from) && ask.priority <= Priority::Read;
        if futile && !room && !probe {
            return None;
        }
        // Only news is needed while the lease has room: tokens taken and not sent are slack.
        let weight = if room { 0 } else { ask.weight };
        // Joining, up to the latest start the attempt has: a realm that never heard of the fleet's
        // bans would rather be refused by its deadline than send without them.
        let within = match self.joining_ms {
            0 => CONTACT_MS.min(deadline.saturating_sub(now)),
            ms => ms.min(ask.latest.saturating_sub(now)).max(CONTACT_MS).min(deadline.saturating_sub(now)),
        };
        let mut v = visit(budget, &contact, ask.scope, weight, ask.priority, starts, (now, wall), within, false);
        if ask_too {
            v.probe = PROBE_ASK;
        }
        Some(self.telling(budget, ask.scope, v))
    }

    /// After a budget step on `scope`: a hold or ban it set reaches the coordinator before the
    /// step's operation goes on (waited for no longer than [`CONTACT_MS`] nor past the deadline:
    /// a visit cut short by the deadline still arrives, it is only not waited for).
    pub fn after(
        &mut self,
        budget: &mut Budget,
        scope: &str,
        priority: Priority,
        now: u64,
        wall: u64,
        deadline: u64,
    ) -> Option<Visit> {
        let contact = self.contact(scope);
        let (hold_wall, ban_wall) = budget.waits_wall(scope, now, wall);
        // Wall ends drift by a ms as they move between clocks: only a later end is news.
        let news = |end: u64, known: u64| end > known.saturating_add(WALL_SLACK_MS);
        let open_wall = budget.breaker_open_wall(scope, now, wall);
        // The probe this realm was granted answered: its outcome ends the coordinator's hold for it.
        let closed = contact.probe_granted && budget.breaker_closed(scope, now);
        let failed = contact.probe_granted && open_wall > 0;
        let breaker_news = news(open_wall, contact.breaker_wall) || closed || failed;
        if contact.unreachable()
            || !(news(hold_wall, contact.hold_wall) || news(ban_wall, contact.ban_wall) || breaker_news)
        {
            return None;
        }
        let within = CONTACT_MS.min(deadline.saturating_sub(now));
        let mut v = visit(budget, &contact, scope, 0, priority, (0, 0), (now, wall), within, false);
        if closed {
            v.probe = PROBE_CLOSED;
        } else if failed {
            (v.probe, v.breaker_wall) = (PROBE_FAILED, open_wall);
        }
        Some(self.telling(budget, scope, v))
    }

    /// Takes up the coordinator's answer `[tokens, from, hold, ban, breaker, probe, members]` (wall
    /// ms; see [`super::breaker_shared`]; an answer of four leaves the breaker this realm's, and
    /// `members` 0 says nothing of the fleet), or notes that it is down if it did not answer within
    /// the whole [`CONTACT_MS`] (a wait the deadline cut proves nothing). `waited` is how long the
    /// step waited for it. A fleet's count of its processes makes this realm's own bucket its share.
    pub fn answered(
        &mut self,
        budget: &mut Budget,
        scope: &str,
        answer: Option<[u64; 7]>,
        waited: u64,
        now: u64,
        wall: u64,
    ) {
        if let Some(members @ 1..) = answer.map(|a| a[6]) {
            budget.share_among(members, now);
        }
        let contact = self.scopes.get_or_insert_with(scope, Contact::default);
        let telling = std::mem::take(&mut contact.telling);
        let Some([tokens, from, hold, ban, breaker, probe, _]) = answer else {
            // Not heard: what it told is told again by the next visit.
            budget.spent_alone_again(scope, telling);
            if waited < CONTACT_MS.max(self.joining_ms) {
                return;
            }
            self.joining_ms = 0;
            contact.retry_at = now.saturating_add(RETRY_MS);
            // Its bucket's tokens are void once this realm stops hearing of them, and a spent lease
            // would refuse the step it was visited for: its own bucket spends.
            if budget.lease(scope).is_some_and(|l| now >= l.until || l.tokens == 0) {
                budget.set_lease(scope, None);
            }
            return;
        };
        let to_mono = |at: u64| now.saturating_add(at.saturating_sub(wall));
        budget.hold(scope, to_mono(hold));
        budget.ban(scope, to_mono(ban));
        if tokens > 0 || from > 0 {
            let from = to_mono(from);
            let kept = budget.lease(scope).filter(|l| now < l.until).map_or(0, |l| l.tokens);
            let lease = Lease { tokens: kept.saturating_add(tokens), from, until: from.saturating_add(LEASE_MS) };
            budget.set_lease(scope, Some(lease));
        }
        let granted = probe == PROBE_ASK;
        if granted {
            // Granted to a realm whose breaker is closed: its next attempt is the probe, as if half-open.
            budget.breaker_half_open_now(scope);
        }
        let told = contact.breaker_wall;
        match probe {
            // Closed by another realm's probe: an opening of this realm's the coordinator had is over too.
            PROBE_CLOSED
                if !budget.breaker_closed(scope, now)
                    && budget.breaker_open_wall(scope, now, wall) <= told.saturating_add(WALL_SLACK_MS) =>
            {
                budget.breaker_close(scope)
            }
            PROBE_NONE if breaker > wall && !contact.probe_granted => budget.breaker_open_to(scope, to_mono(breaker)),
            _ => {}
        }
        // A grant lasts while the breaker is half-open: its probe goes, then answers.
        let probe_granted = granted || (contact.probe_granted && budget.breaker_half_open(scope, now));
        *contact = Contact {
            heard_at: now,
            retry_at: 0,
            hold_wall: hold,
            ban_wall: ban,
            breaker_wall: breaker,
            probe_granted,
            telling: 0,
        };
        self.joining_ms = 0;
    }
}

/// A visit that tells the coordinator this realm's holds and bans, and what an expired lease left.
#[allow(clippy::too_many_arguments)]
fn visit(
    budget: &mut Budget,
    contact: &Contact,
    scope: &str,
    weight: u32,
    priority: Priority,
    (earliest_wall, latest_wall): (u64, u64),
    (now, wall): (u64, u64),
    within: u64,
    background: bool,
) -> Visit {
    let ended = budget.lease(scope).filter(|l| now >= l.until);
    if ended.is_some() {
        budget.set_lease(scope, None);
    }
    let (hold_wall, ban_wall) = budget.waits_wall(scope, now, wall);
    // Only an opening it does not have: a stale one would open it again after a probe closed it.
    let opened = budget.breaker_open_wall(scope, now, wall);
    let breaker_wall = if opened > contact.breaker_wall.saturating_add(WALL_SLACK_MS) { opened } else { 0 };
    Visit {
        weight,
        priority,
        earliest_wall,
        latest_wall,
        returned: ended.map_or(0, |l| l.tokens),
        hold_wall,
        ban_wall,
        breaker_wall,
        probe: PROBE_NONE,
        spent: budget.spent_alone(scope),
        within,
        background,
    }
}
