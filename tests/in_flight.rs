//! `maxInFlight`: many call machines on one budget, on a virtual clock. At most the cap is on the
//! wire at every instant; a freed slot wakes the waiters (the `Wake` effect, fed back as news),
//! and the budget lets through the first by priority, then by arrival; one that finds no room by
//! its latest start is refused `budget`, its record's limit `in-flight`.

use retryline::budget::{Budget, BudgetConfig};
use retryline::call::{Call, CallSpec, Ctx, Done, Effect, Event, Head, Purpose, Settings};
use retryline::redact::Secrets;
use retryline::{Draws, Loose, Operation, Policy};

const WALL: u64 = 1_767_225_600_000;

fn map(fields: &[(&str, Loose)]) -> Loose {
    Loose::Map(fields.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect())
}

struct Fleet {
    budget: Budget,
    draws: Draws,
    calls: Vec<Call>,
    /// Per call: the attempt on the wire, if one is.
    flying: Vec<Option<u32>>,
    /// Per call: how it ended.
    done: Vec<Option<Done>>,
    most_on_wire: usize,
    /// The order calls first went on the wire.
    sent: Vec<usize>,
}

impl Fleet {
    fn new(max: f64) -> Fleet {
        let config = BudgetConfig::from_options(&map(&[("maxInFlight", Loose::Number(max))])).expect("options");
        Fleet {
            budget: Budget::new(config),
            draws: Draws::scripted(vec![], 1),
            calls: vec![],
            flying: vec![],
            done: vec![],
            most_on_wire: 0,
            sent: vec![],
        }
    }

    /// A GET with `options` begun at `now`; stepped at once.
    fn call(&mut self, now: u64, options: Loose) -> usize {
        let policy = Policy::from_options(&map(&[("deadlineMs", Loose::Number(5000.0))])).expect("policy");
        let spec = match options {
            Loose::Absent => CallSpec::of(&policy),
            given => CallSpec::read(&given, &policy).expect("call options"),
        };
        let start = spec.start("GET", "https://api.test/v1/ticker", None, &Secrets::default());
        let settings = Settings { owner: "t".into(), ..Settings::default() };
        self.calls.push(Call::new(Operation::begin(start, now, WALL + now), Purpose::Fetch, settings, now, WALL + now));
        self.flying.push(None);
        self.done.push(None);
        let i = self.calls.len() - 1;
        self.feed(i, Event::Go, now);
        i
    }

    fn feed(&mut self, i: usize, event: Event, now: u64) {
        let mut ctx = Ctx { now, wall: WALL + now, draws: &mut self.draws, budget: &mut self.budget };
        self.calls[i].handle(event, &mut ctx);
        let mut woke = false;
        while let Some(effect) = self.calls[i].poll() {
            match effect {
                Effect::Send { attempt, .. } => {
                    self.flying[i] = Some(attempt);
                    if !self.sent.contains(&i) {
                        self.sent.push(i);
                    }
                }
                Effect::Done(done) => {
                    self.flying[i] = None;
                    self.done[i] = Some(done);
                    // As a shell: after `Done` it holds nothing of the call, and polls no more.
                    break;
                }
                Effect::Abort { attempt, .. } if self.flying[i] == Some(attempt) => self.flying[i] = None,
                Effect::Wake => woke = true,
                _ => {}
            }
        }
        self.most_on_wire = self.most_on_wire.max(self.flying.iter().flatten().count());
        if woke {
            // The shell tells every machine of the budget; each looks again.
            for j in 0..self.calls.len() {
                if self.done[j].is_none() {
                    self.feed(j, Event::News, now);
                }
            }
        }
    }

    /// Call `i`'s request answers 200 at `now`.
    fn answer(&mut self, i: usize, now: u64) {
        let attempt = self.flying[i].expect("a request on the wire");
        self.feed(i, Event::Response(attempt, Head { status: 200.0, ..Head::default() }), now);
    }

    /// Every call's timer that is due by `now` fires.
    fn tick(&mut self, now: u64) {
        for i in 0..self.calls.len() {
            if self.calls[i].poll_timeout().is_some_and(|at| at <= now) && self.done[i].is_none() {
                self.feed(i, Event::Timer, now);
            }
        }
    }
}

#[test]
fn at_most_the_cap_is_on_the_wire_and_a_freed_slot_goes_to_the_next_in_line() {
    let mut fleet = Fleet::new(2.0);
    let calls: Vec<usize> = (0..6).map(|_| fleet.call(0, Loose::Absent)).collect();
    assert_eq!(fleet.flying.iter().flatten().count(), 2, "two on the wire, four waiting");
    let snapshot = fleet.budget.snapshot(0, WALL);
    assert_eq!((snapshot[0].in_flight, snapshot[0].waiting_for_room), (Some(2), Some(4)));
    for t in 1..=4 {
        let first = *calls.iter().find(|&&i| fleet.flying[i].is_some()).expect("one on the wire");
        fleet.answer(first, t * 100);
        assert!(matches!(fleet.done[first], Some(Done::Success { .. })));
    }
    assert_eq!(fleet.most_on_wire, 2);
    assert_eq!(fleet.sent, vec![0, 1, 2, 3, 4, 5], "first come, first served");
    assert_eq!(fleet.budget.snapshot(400, WALL + 400)[0].waiting_for_room, Some(0));
}

#[test]
fn a_higher_priority_goes_before_reads_that_waited_longer() {
    let mut fleet = Fleet::new(1.0);
    let first = fleet.call(0, Loose::Absent);
    let read = fleet.call(10, Loose::Absent);
    let reconcile = fleet.call(20, map(&[("priority", Loose::Text("reconcile".into()))]));
    fleet.answer(first, 100);
    assert_eq!(fleet.sent, vec![first, reconcile], "the reconciliation's query goes first");
    fleet.answer(reconcile, 200);
    assert_eq!(fleet.sent, vec![first, reconcile, read]);
}

#[test]
fn no_room_by_the_latest_start_is_refused_budget_in_flight() {
    let mut fleet = Fleet::new(1.0);
    let holder = fleet.call(0, Loose::Absent);
    let waiter = fleet.call(0, map(&[("deadlineMs", Loose::Number(3000.0))]));
    let latest = fleet.calls[waiter].poll_timeout().expect("waits until its latest start");
    assert!(latest > 0 && latest <= 3000, "{latest}");
    // Its timer comes late: the cap is still why it was refused.
    fleet.tick(latest + 40);
    assert!(matches!(fleet.done[waiter], Some(Done::Failed)));
    let out: serde_json::Value = serde_json::from_str(&fleet.calls[waiter].outcome_json()).expect("JSON");
    assert_eq!(out["reason"], "budget", "{out}");
    assert!(out["message"].as_str().is_some_and(|m| m.contains("maxInFlight")), "{out}");
    let last = out["records"].as_array().and_then(|r| r.last()).cloned().expect("a refused record");
    assert_eq!((last["decision"].as_str(), last["limit"].as_str()), (Some("refused"), Some("in-flight")));
    assert!(fleet.flying[holder].is_some(), "the holder still flies");
}

#[test]
fn a_request_that_never_answers_frees_its_slot_at_its_timeout() {
    let mut fleet = Fleet::new(1.0);
    let silent = fleet.call(0, Loose::Absent);
    let next = fleet.call(0, Loose::Absent);
    let due = fleet.calls[silent].poll_timeout().expect("its timeout");
    fleet.tick(due);
    assert!(fleet.sent.contains(&next), "the slot came back when the silent request timed out");
    assert_eq!(fleet.most_on_wire, 1);
}

#[test]
fn a_slot_held_by_a_realm_that_went_away_frees_at_its_attempts_end_and_the_waiter_looks_then() {
    let mut fleet = Fleet::new(1.0);
    let gone = fleet.call(0, Loose::Absent);
    let due = fleet.calls[gone].poll_timeout().expect("its timeout");
    // Its tab closed: nothing steps its machine again, nothing says its slot freed.
    fleet.done[gone] = Some(Done::Failed);
    let waiter = fleet.call(10, Loose::Absent);
    assert_eq!(fleet.calls[waiter].poll_timeout(), Some(due), "it looks again when the held request must have ended");
    fleet.tick(due);
    assert!(fleet.sent.contains(&waiter), "it went, long before its latest start");
}

#[test]
fn an_aborted_waiter_leaves_the_queue() {
    let mut fleet = Fleet::new(1.0);
    let holder = fleet.call(0, Loose::Absent);
    let leaving = fleet.call(0, Loose::Absent);
    let staying = fleet.call(0, Loose::Absent);
    fleet.feed(leaving, Event::Abort, 50);
    assert!(matches!(fleet.done[leaving], Some(Done::Failed)));
    fleet.answer(holder, 100);
    assert_eq!(fleet.sent, vec![holder, staying]);
}

#[test]
fn the_cap_and_its_queue_cross_to_another_realm() {
    use retryline::budget::shared::SharedState;
    use retryline::json::{to_json, FromLoose};
    let mut fleet = Fleet::new(1.0);
    fleet.call(0, Loose::Absent);
    fleet.call(0, Loose::Absent);
    let text = to_json(&fleet.budget.export(10, WALL + 10));
    let state = SharedState::from_loose(&serde_json::from_str::<Loose>(&text).expect("JSON")).expect("read back");
    let room = state.scopes[0].room.clone().expect("the room crossed");
    assert_eq!((room.on_wire.len(), room.waiting.len()), (1, 1), "{text}");
    // Another realm's budget takes it up: its own call waits behind both.
    let config = BudgetConfig::from_options(&map(&[("maxInFlight", Loose::Number(1.0))])).expect("options");
    let mut other = Budget::new(config);
    other.import(&state, 500, WALL + 10);
    let snapshot = other.snapshot(500, WALL + 10);
    assert_eq!((snapshot[0].in_flight, snapshot[0].waiting_for_room), (Some(1), Some(1)));
}

#[test]
fn the_rust_builder_sets_the_cap() {
    let config = BudgetConfig::builder().max_in_flight(3).build().expect("a valid budget");
    assert_eq!(config.limits("any").max_in_flight, Some(3));
    assert!(BudgetConfig::builder().max_in_flight(0).build().is_err_and(|e| e.to_string().contains("maxInFlight")));
}
