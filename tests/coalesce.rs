//! Coalescing: a read of the same request joins the one running (decided in the core), each
//! joined caller leaves alone on its abort or its own earlier deadline, the operation is aborted
//! when its last caller has left, and orders, bodies or other headers never join.

use retryline::budget::Budget;
use retryline::call::{request_key, Call, CallSpec, Ctx, Done, Effect, Event, Head, Purpose, Settings};
use retryline::redact::Secrets;
use retryline::{Draws, Loose, Operation, Policy};
use serde_json::Value;

const WALL: u64 = 1_767_225_600_000;
const URL: &str = "https://api.test/v1/ticker";

fn policy(deadline_ms: f64) -> Policy {
    Policy::from_options(&Loose::Map(vec![
        ("maxAttempts".into(), Loose::Number(3.0)),
        ("deadlineMs".into(), Loose::Number(deadline_ms)),
        ("attemptTimeoutMs".into(), Loose::Number(deadline_ms.min(500.0))),
    ]))
    .expect("policy")
}

/// A call of `method` with `coalesce` begun at `now`, offered under the key of `headers`.
fn call(method: &str, coalesce: bool, headers: &str, deadline_ms: f64, now: u64) -> Call {
    let start = CallSpec::of(&policy(deadline_ms)).start(method, URL, None, &Secrets::default());
    let settings = Settings { owner: "t".into(), coalesce, ..Settings::default() };
    let mut call = Call::new(Operation::begin(start, now, WALL + now), Purpose::Fetch, settings, now, WALL + now);
    call.offer(request_key("https://api.test", method, URL, headers));
    call
}

struct Run {
    call: Call,
    budget: Budget,
    draws: Draws,
    effects: Vec<Effect>,
}

impl Run {
    fn new(call: Call) -> Run {
        Run { call, budget: Budget::default(), draws: Draws::scripted(vec![5], 1), effects: vec![] }
    }

    fn feed(&mut self, event: Event, now: u64) {
        let mut ctx = Ctx { now, wall: WALL + now, draws: &mut self.draws, budget: &mut self.budget };
        self.call.handle(event, &mut ctx);
        while let Some(effect) = self.call.poll() {
            self.effects.push(effect);
        }
    }

    fn sends(&self) -> usize {
        self.effects.iter().filter(|e| matches!(e, Effect::Send { .. })).count()
    }

    fn released(&self) -> Vec<(u32, String)> {
        let reason = |json: &str| {
            let value: Value = serde_json::from_str(json).expect("json");
            value["reason"].as_str().unwrap_or_default().to_owned()
        };
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Release { caller, json } => Some((*caller, reason(json))),
                _ => None,
            })
            .collect()
    }

    fn done(&self) -> Option<Done> {
        self.effects.iter().find_map(|e| match e {
            Effect::Done(done) => Some(*done),
            _ => None,
        })
    }
}

#[test]
fn reads_of_one_request_share_one_operation_and_one_request() {
    let mut run = Run::new(call("GET", true, "accept\0application/json", 5_000.0, 0));
    run.feed(Event::Go, 0);
    let joined: Vec<Option<u32>> =
        (1..=49).map(|i| run.call.join(&call("GET", true, "Accept\0application/json", 5_000.0, i), true)).collect();
    assert!(joined.iter().all(Option::is_some), "{joined:?}");
    assert_eq!(run.call.joined(), 49);
    run.feed(Event::Response(1, Head { status: 200.0, ..Head::default() }), 60);
    assert_eq!(run.sends(), 1);
    assert_eq!(run.done(), Some(Done::Success { attempt: 1 }));
    assert!(run.released().is_empty());
    // Settled: a later read begins its own.
    assert_eq!(run.call.join(&call("GET", true, "accept\0application/json", 5_000.0, 70), true), None);
}

#[test]
fn orders_bodies_other_headers_and_calls_without_the_option_never_join() {
    let mut run = Run::new(call("GET", true, "authorization\0key-a", 5_000.0, 0));
    run.feed(Event::Go, 0);
    assert_eq!(run.call.join(&call("GET", true, "authorization\0key-b", 5_000.0, 1), true), None, "another account");
    assert_eq!(run.call.join(&call("GET", false, "authorization\0key-a", 5_000.0, 1), true), None, "not asked");
    assert_eq!(run.call.join(&call("POST", true, "authorization\0key-a", 5_000.0, 1), true), None, "an order");
    // A trace header names the request, not what it asks: it still joins.
    let traced = call("GET", true, "authorization\0key-a\0traceparent\0v0-ab-cd-01", 5_000.0, 1);
    assert!(run.call.join(&traced, true).is_some());
    let mut order = Run::new(call("POST", true, "", 5_000.0, 0));
    order.feed(Event::Go, 0);
    assert_eq!(order.call.join(&call("POST", true, "", 5_000.0, 1), true), None, "an order takes no one");
}

#[test]
fn a_joined_callers_abort_detaches_only_it_and_the_last_to_leave_aborts_the_request() {
    let mut run = Run::new(call("GET", true, "", 5_000.0, 0));
    run.feed(Event::Go, 0);
    let a = run.call.join(&call("GET", true, "", 5_000.0, 1), true).expect("joins");
    let b = run.call.join(&call("GET", true, "", 5_000.0, 2), true).expect("joins");
    run.feed(Event::Leave(a), 10);
    assert_eq!(run.released(), vec![(a, "aborted".to_owned())]);
    assert!(!run.effects.iter().any(|e| matches!(e, Effect::Abort { .. })), "the request goes on");
    // The first caller aborts: it leaves, b still waits.
    run.feed(Event::Abort, 20);
    assert_eq!(run.released(), vec![(a, "aborted".to_owned()), (0, "aborted".to_owned())]);
    assert_eq!(run.done(), None);
    assert_eq!(
        run.call.join(&call("GET", true, "", 5_000.0, 25), true),
        None,
        "no one joins a call its first caller left"
    );
    // The last caller leaves: the request is aborted.
    run.feed(Event::Leave(b), 30);
    assert!(run.effects.iter().any(|e| matches!(e, Effect::Abort { attempt: 1, .. })));
    assert_eq!(run.done(), Some(Done::Failed));
}

#[test]
fn a_joined_caller_with_a_shorter_deadline_gets_its_own_and_its_error_says_deadline() {
    let mut run = Run::new(call("GET", true, "", 5_000.0, 0));
    run.feed(Event::Go, 0);
    let short = run.call.join(&call("GET", true, "", 300.0, 5), true).expect("joins");
    assert_eq!(run.call.poll_timeout(), Some(305), "the one timer serves the joined caller's deadline");
    run.feed(Event::Timer, 305);
    assert_eq!(run.released(), vec![(short, "deadline".to_owned())]);
    assert_eq!(run.sends(), 1);
    assert_eq!(run.done(), None, "the first caller waits on");
    assert_eq!(run.call.poll_timeout(), Some(500), "back to the attempt's timeout");
    run.feed(Event::Response(1, Head { status: 200.0, ..Head::default() }), 400);
    assert_eq!(run.done(), Some(Done::Success { attempt: 1 }));
}

#[test]
fn a_ban_refuses_every_joined_caller_at_once_and_sends_nothing_more() {
    let mut run = Run::new(call("GET", true, "", 5_000.0, 0));
    run.feed(Event::Go, 0);
    for i in 1..=3 {
        run.call.join(&call("GET", true, "", 5_000.0, i), true).expect("joins");
    }
    run.feed(Event::Response(1, Head { status: 418.0, ..Head::default() }), 50);
    assert_eq!(run.sends(), 1);
    assert_eq!(run.done(), Some(Done::Failed), "one outcome, for every caller");
    let json = run.call.outcome_json();
    let value: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(value["reason"], "banned");
}

#[test]
fn when_the_platform_cannot_bound_its_waits_every_caller_leaves_and_the_request_is_aborted() {
    let mut run = Run::new(call("GET", true, "", 5_000.0, 0));
    run.feed(Event::Go, 0);
    let a = run.call.join(&call("GET", true, "", 5_000.0, 1), true).expect("joins");
    run.feed(Event::Leave(retryline::call::EVERY_CALLER), 10);
    assert_eq!(run.released(), vec![(a, "aborted".to_owned())]);
    assert!(run.effects.iter().any(|e| matches!(e, Effect::Abort { attempt: 1, .. })));
    assert_eq!(run.done(), Some(Done::Failed));
}

#[test]
fn another_clients_read_joins_only_when_both_send_through_the_platforms_fetch() {
    let with = |platform_fetch: bool| {
        let start = CallSpec::of(&policy(5_000.0)).start("GET", URL, None, &Secrets::default());
        let settings = Settings { owner: "t".into(), coalesce: true, platform_fetch, ..Settings::default() };
        let mut c = Call::new(Operation::begin(start, 1, WALL + 1), Purpose::Fetch, settings, 1, WALL + 1);
        c.offer(request_key("https://api.test", "GET", URL, ""));
        c
    };
    let mut own = Run::new(with(false));
    own.feed(Event::Go, 0);
    assert_eq!(own.call.join(&with(false), false), None, "a client's own fetch may add a token");
    assert!(own.call.join(&with(false), true).is_some(), "the same client's read joins");
    let mut platform = Run::new(with(true));
    platform.feed(Event::Go, 0);
    assert!(platform.call.join(&with(true), false).is_some(), "both on the platform's fetch");
}

#[test]
fn a_second_abort_of_the_first_caller_who_left_aborts_nothing_and_a_lone_abort_takes_no_one_in() {
    let mut run = Run::new(call("GET", true, "", 5_000.0, 0));
    run.feed(Event::Go, 0);
    run.call.join(&call("GET", true, "", 5_000.0, 1), true).expect("joins");
    run.feed(Event::Abort, 10);
    run.feed(Event::Abort, 20);
    assert!(!run.effects.iter().any(|e| matches!(e, Effect::Abort { .. })), "the joined caller's request goes on");
    assert_eq!(run.done(), None);
    let mut lone = Run::new(call("GET", true, "", 5_000.0, 0));
    lone.feed(Event::Go, 0);
    lone.feed(Event::Abort, 10);
    assert_eq!(lone.call.join(&call("GET", true, "", 5_000.0, 11), true), None);
}
