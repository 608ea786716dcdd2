//! A budget leased from a coordinator (isolates, `new Budget({ coordinator })`): the core decides
//! when a budget step visits the scope's Durable Object and what it takes up of the answer
//! ([`crate::budget::contact`]); js/platform/coordinator.js makes the visits.

use super::cell::Local;
use super::io::{self, with_input};
use super::ms;
use super::state::{BUDGETS, OPS};
use crate::budget::contact::{Contacts, Visit};
use crate::budget::Priority;
use crate::sorted_map::SortedMap;

/// What each budget's realm knows of its coordinators, by budget handle.
static CONTACTS: Local<SortedMap<u32, Contacts>> = Local::new(SortedMap::new());

/// A budget that is gone forgets its coordinators.
pub fn forget(budget: u32) {
    CONTACTS.with(|c| c.remove(&budget));
}

/// Hands a visit out: 0 none, 1 wait for it, 2 in the background; numbers: weight, priority code,
/// earliest and latest start, tokens returned, hold end, ban end (wall ms), how long to wait (ms),
/// the breaker's open end (wall ms, 0: nothing new) and the probe (see `budget::breaker_shared`).
fn hand_out(visit: Option<Visit>) -> u32 {
    let Some(v) = visit else { return 0 };
    let priority = Priority::ALL.iter().position(|&p| p == v.priority).unwrap_or(0) as f64;
    io::numbers(&[
        f64::from(v.weight),
        priority,
        v.earliest_wall as f64,
        v.latest_wall as f64,
        v.returned as f64,
        v.hold_wall as f64,
        v.ban_wall as f64,
        v.within as f64,
        v.breaker_wall as f64,
        v.probe as f64,
    ]);
    if v.background {
        2
    } else {
        1
    }
}

/// Runs `f` on an operation's budget and its contacts.
fn with_contacts<R>(
    op: u32,
    f: impl FnOnce(&mut Contacts, &mut crate::budget::Budget, &crate::machine::Operation) -> R,
) -> Option<R> {
    OPS.with(|ops| {
        let slot = ops.get(op)?;
        BUDGETS.with(|budgets| {
            let budget = budgets.get_mut(slot.budget)?;
            CONTACTS.with(|contacts| {
                Some(f(contacts.get_or_insert_with(&slot.budget, Contacts::default), budget, &slot.op))
            })
        })
    })
}

/// Before a budget step of the operation: the visit to make, if any (see [`hand_out`]).
#[no_mangle]
pub extern "C" fn rl_contact_before(op: u32, now: f64, wall: f64) -> u32 {
    let (now, wall) = (ms(now), ms(wall));
    let visit =
        with_contacts(op, |contacts, budget, op| contacts.before(budget, &op.ask(now), now, wall, op.deadline_at()));
    hand_out(visit.flatten())
}

/// After a budget step of the operation: the visit that tells a hold or ban it set, if any.
#[no_mangle]
pub extern "C" fn rl_contact_after(op: u32, now: f64, wall: f64) -> u32 {
    let (now, wall) = (ms(now), ms(wall));
    let visit = with_contacts(op, |contacts, budget, op| {
        let ask = op.ask(now);
        contacts.after(budget, ask.scope, ask.priority, now, wall, op.deadline_at())
    });
    hand_out(visit.flatten())
}

/// The coordinator of `scope` (input) answered `[tokens, from, hold, ban, breaker, probe]`
/// (`answered` 1), or did not within `waited` ms (0).
#[no_mangle]
pub extern "C" fn rl_contact_answered(
    handle: u32,
    scope: u32,
    answered: u32,
    tokens: f64,
    from: f64,
    hold: f64,
    ban: f64,
    breaker: f64,
    probe: f64,
    waited: f64,
    now: f64,
    wall: f64,
) {
    with_input(|input| {
        let scope = input.text(scope);
        let answer = (answered == 1).then(|| [ms(tokens), ms(from), ms(hold), ms(ban), ms(breaker), ms(probe)]);
        BUDGETS.with(|budgets| {
            let Some(budget) = budgets.get_mut(handle) else { return };
            CONTACTS.with(|contacts| {
                let contacts = contacts.get_or_insert_with(&handle, Contacts::default);
                contacts.answered(budget, scope, answer, ms(waited), ms(now), ms(wall));
            });
        });
    });
}

/// The budget's first visit is waited for up to `ms` (a fleet process connecting to Redis).
#[no_mangle]
pub extern "C" fn rl_contact_join(handle: u32, join_ms: f64) {
    CONTACTS.with(|contacts| contacts.get_or_insert_with(&handle, Contacts::default).joining(ms(join_ms)));
}

/// 1 if the coordinator of any scope of the budget has stopped answering.
#[no_mangle]
pub extern "C" fn rl_contact_unreachable(handle: u32) -> u32 {
    CONTACTS.with(|c| c.get(&handle).map_or(0, |contacts| u32::from(contacts.unreachable())))
}
