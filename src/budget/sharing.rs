//! How a budget is kept beyond this realm, and the bracket every step on it takes.
//!
//! A budget shared across the tabs of an origin lives in storage between steps: each step takes
//! the share's lock, takes up the stored state, and stores what it leaves. A budget leased from a
//! coordinator (a Durable Object, or Redis for a fleet) visits it when its lease has no room or
//! its news is stale, and tells it of the holds and bans a step set. A call or a stream never
//! steps on a shared budget outside its bracket ([`Bracket`]): the machine queues the events that
//! arrive while it waits for the budget, and steps on them once it has it.
//!
//! A build with neither way of sharing (the lean entry's, `tabs` and `leases` off) keeps every
//! budget in its realm: a bracket is then always taken at once, and what waits for a share is unused.
#![cfg_attr(not(any(feature = "tabs", feature = "leases")), allow(dead_code))]
// The stored state, and what a step left to store, are the tabs' alone.
#![cfg_attr(not(feature = "tabs"), allow(unused_variables))]

#[cfg(feature = "leases")]
use super::contact::Contacts;
use super::contact::Visit;
use super::shared::SharedState;
use super::{Ask, Budget, Priority};

/// How far a wall-clock end may move between clocks and still be the same end.
#[cfg(feature = "tabs")]
const WALL_SLACK_MS: u64 = 5;
/// A bracket the shell did not answer in its time (and this much more) goes on without it.
const ENTER_GRACE_MS: u64 = 50;
/// How long a step at (or past) its deadline still waits for the share: a step that cuts a call at
/// its deadline releases what it held (a probe slot, a retry's quota), and that must reach the
/// other realms too; the call settles at most this much late when another realm holds the lock.
const AT_DEADLINE_MS: u64 = 100;

/// How a budget is kept beyond this realm.
#[derive(Clone, Debug, Default)]
pub enum Sharing {
    /// This realm's alone.
    #[default]
    Local,
    /// The origin's tabs, frames and workers: a lock, and the state in storage.
    #[cfg(feature = "tabs")]
    Tabs,
    /// A coordinator per scope, which leases tokens and hears of holds, bans and the breaker.
    #[cfg(feature = "leases")]
    Contacts(Box<Contacts>),
}

impl Budget {
    /// Shares this budget with the origin's other realms: every step then takes the share.
    #[cfg(feature = "tabs")]
    pub fn share_across_tabs(&mut self) {
        self.sharing = Sharing::Tabs;
    }

    /// Leases this budget from coordinators; their first visit is waited for up to `join_ms`.
    /// Until a coordinator counts the fleet, this realm's own bucket is a share of `assumed`
    /// processes (0: [`super::contact::ASSUMED_FLEET`]; 1: the whole bucket, as for isolates,
    /// whose coordinator counts none).
    #[cfg(feature = "leases")]
    pub fn lease_from_coordinators(&mut self, join_ms: u64, assumed: u64) {
        let mut contacts = Contacts::default();
        if join_ms > 0 {
            contacts.joining(join_ms);
        }
        self.sharing = Sharing::Contacts(Box::new(contacts));
        self.share_among(if assumed == 0 { super::contact::ASSUMED_FLEET } else { assumed }, 0);
    }

    /// Whether its steps take a bracket (it is kept beyond this realm).
    pub fn is_shared(&self) -> bool {
        !matches!(self.sharing, Sharing::Local)
    }

    /// Whether the coordinator of any scope has stopped answering.
    pub fn unreachable(&self) -> bool {
        #[cfg(feature = "leases")]
        if let Sharing::Contacts(c) = &self.sharing {
            return c.unreachable();
        }
        false
    }

    /// The coordinator of `scope` answered `[tokens, from, hold, ban, breaker, probe, members]` (wall ms),
    /// or did not (`None`) in the `waited` ms the shell gave it.
    #[cfg(feature = "leases")]
    pub fn visited(&mut self, scope: &str, answer: Option<[u64; 7]>, waited: u64, now: u64, wall: u64) {
        let Sharing::Contacts(mut contacts) = core::mem::take(&mut self.sharing) else { return };
        contacts.answered(self, scope, answer, waited, now, wall);
        self.sharing = Sharing::Contacts(contacts);
    }

    /// Before a step of `ask`: the visit to make, if any.
    #[cfg(feature = "leases")]
    fn visit_before(&mut self, ask: &Ask, now: u64, wall: u64, deadline: u64) -> Option<Visit> {
        let Sharing::Contacts(mut contacts) = core::mem::take(&mut self.sharing) else { return None };
        let visit = contacts.before(self, ask, now, wall, deadline);
        self.sharing = Sharing::Contacts(contacts);
        visit
    }

    /// After a step on `scope`: the visit that tells a hold, ban or breaker news it made.
    #[cfg(feature = "leases")]
    fn visit_after(&mut self, scope: &str, priority: Priority, now: u64, wall: u64, deadline: u64) -> Option<Visit> {
        let Sharing::Contacts(mut contacts) = core::mem::take(&mut self.sharing) else { return None };
        let visit = contacts.after(self, scope, priority, now, wall, deadline);
        self.sharing = Sharing::Contacts(contacts);
        visit
    }
}

/// What a machine asks of the shell to step on a shared budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Share {
    /// Take the share (its lock, then its stored state) and answer `Entered(seq, state)`; give up
    /// after `within_ms` (answer with no state).
    Enter {
        /// Names this bracket in the answer.
        seq: u32,
        /// How long the shell may wait for the lock.
        within_ms: u64,
    },
    /// Store `state` (JSON; `None`: nothing to store) and let the share go; with `news`, wake the
    /// share's sleepers in every realm (a hold or ban was published).
    Leave {
        /// The budget's state, to store.
        state: Option<String>,
        /// A hold or ban was published.
        news: bool,
    },
    /// Visit the scope's coordinator; its answer goes to [`Budget::visited`], and, when the
    /// machine `waits` for it (before its step, or before what its step decided goes out), then
    /// `Entered(seq, None)` to the machine.
    Visit {
        /// Names this bracket in the answer.
        seq: u32,
        /// The scope whose coordinator is visited.
        scope: String,
        /// What it is told and asked.
        visit: Visit,
        /// The machine waits for it before its step.
        waits: bool,
    },
}

/// Where a machine stands with its shared budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stand {
    Out,
    Entering {
        seq: u32,
        until: u64,
    },
    In {
        hold: u64,
        ban: u64,
    },
    /// The step is done, and what it set is on its way to the coordinator: what the step decided
    /// waits for that (a process that ends at once must not lose the news of a ban).
    #[cfg_attr(not(feature = "leases"), allow(dead_code))] // only a coordinator's visit leaves so
    Leaving {
        seq: u32,
        until: u64,
    },
}

/// The shell's answer to a bracket's effect.
pub enum Answered<E> {
    /// The share is the machine's: step on these events now, then leave.
    Entered(Vec<E>),
    /// The news reached the coordinator: hand out what the step decided, then these events.
    Left(Vec<E>),
    /// Not the answer waited for.
    Late,
}

/// One machine's brackets around its steps on a shared budget, and the events queued meanwhile.
#[derive(Clone, Debug)]
pub struct Bracket<E> {
    stand: Stand,
    seq: u32,
    queued: Vec<E>,
}

impl<E> Default for Bracket<E> {
    fn default() -> Self {
        Bracket { stand: Stand::Out, seq: 0, queued: Vec::new() }
    }
}

/// The scope a step is on, and what it would ask of the budget.
pub struct Step<'a> {
    /// What the step may ask of the budget (`None`: it only gives back or settles).
    pub ask: Option<Ask<'a>>,
    /// The step's scope.
    pub scope: &'a str,
    /// Its priority, for the coordinator.
    pub priority: Priority,
    /// Its operation's deadline (monotonic ms): no bracket waits past it.
    pub deadline: u64,
}

impl<E> Bracket<E> {
    /// Whether it waits for the shell's answer; when it gives up waiting (monotonic ms).
    pub fn waiting_until(&self) -> Option<u64> {
        match self.stand {
            Stand::Entering { until, .. } | Stand::Leaving { until, .. } => Some(until),
            _ => None,
        }
    }

    /// Whether what the last step decided waits for its news to reach the coordinator.
    pub fn is_leaving(&self) -> bool {
        matches!(self.stand, Stand::Leaving { .. })
    }

    /// Whether a step is under way inside the bracket.
    pub fn is_in(&self) -> bool {
        matches!(self.stand, Stand::In { .. })
    }

    /// Before a step on `budget` for `event`: `Some(event)` to step now (the bracket taken, or
    /// none needed), or `None` when it waits for the share (the effect pushed to `out`).
    #[cfg_attr(not(feature = "leases"), allow(unused_variables))] // `wall`: coordinators' only
    pub fn take(
        &mut self,
        event: E,
        budget: &mut Budget,
        step: &Step,
        now: u64,
        wall: u64,
        out: &mut Vec<Share>,
    ) -> Option<E> {
        if let Stand::Entering { .. } | Stand::Leaving { .. } = self.stand {
            self.queued.push(event);
            return None;
        }
        if self.is_in() {
            return Some(event);
        }
        let within = step.deadline.saturating_sub(now).max(AT_DEADLINE_MS);
        match &budget.sharing {
            Sharing::Local => Some(event),
            #[cfg(feature = "tabs")]
            Sharing::Tabs => {
                self.seq = self.seq.wrapping_add(1);
                out.push(Share::Enter { seq: self.seq, within_ms: within });
                self.wait(event, now.saturating_add(within))
            }
            #[cfg(feature = "leases")]
            Sharing::Contacts(_) => {
                let visit = step.ask.as_ref().and_then(|ask| budget.visit_before(ask, now, wall, step.deadline));
                let Some(visit) = visit else { return Some(event) };
                self.seq = self.seq.wrapping_add(1);
                let waits = !visit.background;
                let within = visit.within;
                out.push(Share::Visit { seq: self.seq, scope: step.scope.to_owned(), visit, waits });
                match waits {
                    true => self.wait(event, now.saturating_add(within)),
                    false => Some(event),
                }
            }
        }
    }

    fn wait(&mut self, event: E, until: u64) -> Option<E> {
        self.stand = Stand::Entering { seq: self.seq, until: until.saturating_add(ENTER_GRACE_MS) };
        self.queued.push(event);
        None
    }

    /// The shell answered bracket `seq` (tabs: with the stored state, if it could read one). A
    /// late answer gets its share let go at once (`out`).
    #[allow(clippy::too_many_arguments)]
    pub fn entered(
        &mut self,
        seq: u32,
        state: Option<&SharedState>,
        budget: &mut Budget,
        scope: &str,
        now: u64,
        wall: u64,
        out: &mut Vec<Share>,
    ) -> Answered<E> {
        match self.stand {
            Stand::Entering { seq: waited, .. } if waited == seq => {}
            Stand::Leaving { seq: waited, .. } if waited == seq => {
                self.stand = Stand::Out;
                return Answered::Left(core::mem::take(&mut self.queued));
            }
            // It gave up on this one: a lock granted since is let go without a write.
            _ => {
                #[cfg(feature = "tabs")]
                if matches!(budget.sharing, Sharing::Tabs) {
                    out.push(Share::Leave { state: None, news: false });
                }
                return Answered::Late;
            }
        }
        #[cfg(feature = "tabs")]
        if let (Sharing::Tabs, Some(state)) = (&budget.sharing, state) {
            budget.import(state, now, wall);
        }
        let (hold, ban) = budget.waits_wall(scope, now, wall);
        self.stand = Stand::In { hold, ban };
        Answered::Entered(core::mem::take(&mut self.queued))
    }

    /// The shell never answered in time: the queued events go on without it (`Entered`: to step
    /// without the share; `Left`: what the step decided is handed out first).
    pub fn give_up(&mut self) -> Answered<E> {
        let leaving = self.is_leaving();
        self.stand = Stand::Out;
        let queued = core::mem::take(&mut self.queued);
        if leaving {
            Answered::Left(queued)
        } else {
            Answered::Entered(queued)
        }
    }

    /// After a step (or the steps of a bracket): the share let go, and what it tells the others.
    pub fn leave(&mut self, budget: &mut Budget, step: &Step, now: u64, wall: u64, out: &mut Vec<Share>) {
        let before = match self.stand {
            Stand::In { hold, ban } => Some((hold, ban)),
            _ => None,
        };
        if let Stand::Entering { .. } | Stand::Leaving { .. } = self.stand {
            return;
        }
        self.stand = Stand::Out;
        match &budget.sharing {
            Sharing::Local => {}
            #[cfg(feature = "tabs")]
            Sharing::Tabs => {
                let Some((hold, ban)) = before else { return };
                let (now_hold, now_ban) = budget.waits_wall(step.scope, now, wall);
                let news = now_hold > hold.saturating_add(WALL_SLACK_MS)
                    || now_ban > ban.saturating_add(WALL_SLACK_MS)
                    || budget.freed();
                let state = crate::json::to_json(&budget.export(now, wall));
                out.push(Share::Leave { state: Some(state), news });
            }
            #[cfg(feature = "leases")]
            Sharing::Contacts(_) => {
                if let Some(visit) = budget.visit_after(step.scope, step.priority, now, wall, step.deadline) {
                    self.seq = self.seq.wrapping_add(1);
                    let until = now.saturating_add(visit.within).saturating_add(ENTER_GRACE_MS);
                    self.stand = Stand::Leaving { seq: self.seq, until };
                    out.push(Share::Visit { seq: self.seq, scope: step.scope.to_owned(), visit, waits: true });
                }
            }
        }
    }
}
