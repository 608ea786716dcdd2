//! A budget kept for many isolates by a Durable Object (`new Budget({ coordinator })`,
//! js/durable-object.js, docs/shared-budgets.md): this realm spends tokens leased from it in small
//! batches, and hears of the scope's holds and bans at least every [`FRESH_MS`] before it sends.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};

use super::clock;
use super::guard;
use super::race::{Ended, Race};
use crate::budget::lease::Lease;
use crate::budget::{Budget, Priority};
use crate::machine::Operation;
use crate::sorted_map::SortedMap;

/// How old this realm's news of a scope's holds and bans may be when it sends: a ban answered to
/// another isolate stops this one within this long (plus one round trip to the coordinator).
pub const FRESH_MS: u64 = 50;
/// How long leased tokens stay this realm's before what is left goes back. Tokens are taken when the
/// coordinator's bucket has them and may be sent up to this much later, so over any window `d` the
/// provider sees at most `capacity + rate × (d + LEASE_MS)`: kept short.
const LEASE_MS: u64 = 200;
/// The longest a step waits for the coordinator before it goes on with what it knows.
const CONTACT_MS: u64 = 250;
/// How far a wall-clock end may move as it is carried between clocks and still be the same end.
const WALL_SLACK_MS: u64 = 5;
/// After the coordinator failed to answer, it is asked again this often, and never waited for.
const RETRY_MS: u64 = 1000;

/// The coordinator's namespace, and what this realm knows of each scope it kept.
pub struct Coordinator {
    namespace: JsValue,
    /// Coordinators are named `<name>:<scope>`, one Durable Object per scope.
    name: Rc<str>,
    /// The budget's options as JSON: the coordinator builds the same limits.
    limits: String,
    scopes: RefCell<SortedMap<String, Contact>>,
}

#[derive(Clone, Copy, Default)]
struct Contact {
    /// When this realm last heard from the scope's coordinator (monotonic ms; 0: never).
    heard_at: u64,
    /// Set while the coordinator is unreachable: it is not waited for again before this instant.
    retry_at: u64,
    /// The hold and ban ends (wall ms) the coordinator has from this realm, or told it of.
    hold_wall: u64,
    ban_wall: u64,
}

impl Contact {
    fn unreachable(&self) -> bool {
        self.retry_at != 0
    }
}

/// What a step asks of the coordinator for one operation.
struct Need {
    scope: String,
    weight: u32,
    priority: Priority,
    latest_wall: u64,
}

impl Coordinator {
    pub fn new(namespace: JsValue, name: Rc<str>, limits: String) -> Coordinator {
        Coordinator { namespace, name, limits, scopes: RefCell::new(SortedMap::new()) }
    }

    /// Whether the coordinator of any scope this realm used has stopped answering.
    pub fn unreachable(&self) -> bool {
        self.scopes.borrow().values().any(Contact::unreachable)
    }

    /// Before a budget step: a lease with room for the operation's next attempt, and news of the
    /// scope's holds and bans no older than [`FRESH_MS`] — from the coordinator, waited for no longer
    /// than [`CONTACT_MS`] nor past the operation's deadline. A coordinator that did not answer is
    /// asked again in the background, while this realm goes on with its own bucket.
    pub async fn enter(self: &Rc<Self>, budget: &Rc<RefCell<Budget>>, op: &Operation) {
        let now = clock::now();
        let ask = op.ask(now);
        let need = Need {
            scope: ask.scope.to_owned(),
            weight: ask.weight,
            priority: ask.priority,
            latest_wall: clock::wall_now().saturating_add(ask.latest.saturating_sub(now)),
        };
        let contact = self.contact(&need.scope);
        let lease = budget.borrow().lease(&need.scope);
        let room = lease.is_some_and(|l| u64::from(need.weight) <= l.tokens && now < l.until);
        if contact.unreachable() {
            // Down, most likely: this realm's own bucket spends once the lease has no room, and the
            // coordinator is asked again at most every RETRY_MS, in the background (for news only).
            if !room {
                budget.borrow_mut().set_lease(&need.scope, None);
            }
            if now >= contact.retry_at {
                self.scopes.borrow_mut().get_or_insert_with(&need.scope, Contact::default).retry_at = now + RETRY_MS;
                let news = Need { weight: 0, ..need };
                let asked = self.ask(budget, &news, CONTACT_MS);
                let (me, budget, scope) = (Rc::clone(self), Rc::clone(budget), news.scope);
                wasm_bindgen_futures::spawn_local(async move {
                    let answer = asked.await;
                    me.took(&budget, &scope, answer, CONTACT_MS);
                });
            }
            return;
        }
        if room && now < contact.heard_at.saturating_add(FRESH_MS) {
            return;
        }
        // Only news is needed while the lease has room: tokens taken and not sent are slack.
        let need = if room { Need { weight: 0, ..need } } else { need };
        let within = CONTACT_MS.min(op.deadline_at().saturating_sub(now));
        let answer = self.ask(budget, &need, within).await;
        self.took(budget, &need.scope, answer, within);
    }

    /// After a budget step: a hold or ban it set reaches the coordinator before the step's
    /// operation goes on (waited for no longer than [`CONTACT_MS`] nor past the deadline: a visit
    /// cut short by the deadline still arrives, it is only not waited for).
    pub async fn leave(self: &Rc<Self>, budget: &Rc<RefCell<Budget>>, op: &Operation) {
        let now = clock::now();
        let ask = op.ask(now);
        let contact = self.contact(ask.scope);
        let (hold_wall, ban_wall) = budget.borrow().waits_wall(ask.scope, now, clock::wall_now());
        // Wall ends drift by a ms as they move between clocks: only a later end is news.
        let news = |end: u64, known: u64| end > known.saturating_add(WALL_SLACK_MS);
        if contact.unreachable() || !(news(hold_wall, contact.hold_wall) || news(ban_wall, contact.ban_wall)) {
            return;
        }
        // Asks for nothing: a weight of 0 leases no token.
        let need = Need { scope: ask.scope.to_owned(), weight: 0, priority: ask.priority, latest_wall: 0 };
        let within = CONTACT_MS.min(op.deadline_at().saturating_sub(now));
        let answer = self.ask(budget, &need, within).await;
        self.took(budget, &need.scope, answer, within);
    }

    fn contact(&self, scope: &str) -> Contact {
        self.scopes.borrow().get(scope).copied().unwrap_or_default()
    }

    /// Asks the scope's coordinator for a lease; it hears this realm's holds and bans and what an
    /// expired lease left, and answers with its own. `None` if it did not answer within `within`.
    fn ask(
        &self,
        budget: &RefCell<Budget>,
        need: &Need,
        within: u64,
    ) -> impl std::future::Future<Output = Option<Vec<f64>>> {
        let (now, wall) = (clock::now(), clock::wall_now());
        let returned = {
            let mut budget = budget.borrow_mut();
            let ended = budget.lease(&need.scope).filter(|l| now >= l.until);
            if ended.is_some() {
                budget.set_lease(&need.scope, None);
            }
            ended.map_or(0, |l| l.tokens)
        };
        let (hold_wall, ban_wall) = budget.borrow().waits_wall(&need.scope, now, wall);
        let args =
            [f64::from(need.weight), need.latest_wall as f64, returned as f64, hold_wall as f64, ban_wall as f64];
        let asked = guard::coordinator_lease(
            &self.namespace,
            &self.name,
            &self.limits,
            &need.scope,
            need.priority.name(),
            &args,
            within,
        );
        async move {
            let Ended::Settled(Ok(answer)) = Race::new().wait_call(asked).await else { return None };
            // An array js/guard.js checked: four numbers, none negative.
            let answer = answer.dyn_into::<js_sys::Array>().ok()?;
            (0..4).map(|i| answer.get(i).as_f64()).collect()
        }
    }

    /// Takes up the coordinator's answer `[tokens, from, hold, ban]` (wall ms), or notes it is down
    /// if it did not answer within the whole [`CONTACT_MS`] (a wait the deadline cut proves nothing).
    fn took(&self, budget: &RefCell<Budget>, scope: &str, answer: Option<Vec<f64>>, waited: u64) {
        let (now, wall) = (clock::now(), clock::wall_now());
        let mut scopes = self.scopes.borrow_mut();
        let contact = scopes.get_or_insert_with(scope, Contact::default);
        let Some(&[tokens, from, hold, ban]) = answer.as_deref() else {
            if waited < CONTACT_MS {
                return;
            }
            contact.retry_at = now.saturating_add(RETRY_MS);
            // Its bucket's tokens are void once this realm stops hearing of them: its own bucket spends.
            let mut budget = budget.borrow_mut();
            if budget.lease(scope).is_some_and(|l| now >= l.until) {
                budget.set_lease(scope, None);
            }
            return;
        };
        let to_mono = |at: f64| now.saturating_add((at as u64).saturating_sub(wall));
        let mut budget = budget.borrow_mut();
        budget.hold(scope, to_mono(hold));
        budget.ban(scope, to_mono(ban));
        if tokens > 0.0 || from > 0.0 {
            let from = to_mono(from);
            let kept = budget.lease(scope).filter(|l| now < l.until).map_or(0, |l| l.tokens);
            let lease =
                Lease { tokens: kept.saturating_add(tokens as u64), from, until: from.saturating_add(LEASE_MS) };
            budget.set_lease(scope, Some(lease));
        }
        *contact = Contact { heard_at: now, retry_at: 0, hold_wall: hold as u64, ban_wall: ban as u64 };
    }
}
