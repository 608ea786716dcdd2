//! `staleIfErrorMs`: a read that fails asks for its kept response, and the core decides whether it
//! is served (its age within the option, the failure one a current answer could not be had for),
//! with the record that says so; a read that succeeds is kept. Orders and answers that say
//! repeating cannot help never serve stale.

use retryline::budget::Budget;
use retryline::call::{request_key, Call, CallSpec, Ctx, Done, Effect, Event, Head, Purpose, Settings};
use retryline::redact::Secrets;
use retryline::{Draws, Loose, Operation, Policy};
use serde_json::Value;

const WALL: u64 = 1_767_225_600_000;

struct One {
    call: Call,
    budget: Budget,
    draws: Draws,
    effects: Vec<Effect>,
}

impl One {
    fn new(method: &str, stale_ms: u64) -> One {
        let policy = Policy::from_options(&Loose::Map(vec![
            ("maxAttempts".into(), Loose::Number(2.0)),
            ("baseDelayMs".into(), Loose::Number(10.0)),
        ]))
        .expect("policy");
        let start = CallSpec::of(&policy).start(method, "https://api.test/v1/ticker", None, &Secrets::default());
        let settings = Settings { owner: "t".into(), stale_ms, ..Settings::default() };
        let mut call = Call::new(Operation::begin(start, 0, WALL), Purpose::Fetch, settings, 0, WALL);
        call.offer(request_key("https://api.test", method, "https://api.test/v1/ticker", ""));
        let mut one = One { call, budget: Budget::default(), draws: Draws::scripted(vec![5], 1), effects: vec![] };
        one.feed(Event::Go, 0);
        one
    }

    fn feed(&mut self, event: Event, now: u64) {
        let mut ctx = Ctx { now, wall: WALL + now, draws: &mut self.draws, budget: &mut self.budget };
        self.call.handle(event, &mut ctx);
        while let Some(effect) = self.call.poll() {
            self.effects.push(effect);
        }
    }

    /// Every request answers `status`, each 10 ms after it was sent; timers fire when due.
    fn answer_all(&mut self, status: f64) -> u64 {
        let (mut now, mut answered) = (0, 0);
        for _ in 0..20 {
            if self.call.is_done() || self.looking().is_some() {
                break;
            }
            let sends: Vec<u32> = self
                .effects
                .iter()
                .filter_map(|e| match e {
                    Effect::Send { attempt, .. } => Some(*attempt),
                    _ => None,
                })
                .collect();
            match (sends.get(answered), self.call.poll_timeout()) {
                (Some(&attempt), _) => {
                    answered += 1;
                    now += 10;
                    self.feed(Event::Response(attempt, Head { status, ..Head::default() }), now);
                }
                (None, Some(at)) => {
                    now = now.max(at);
                    self.feed(Event::Timer, now);
                }
                _ => break,
            }
        }
        now
    }

    fn looking(&self) -> Option<u32> {
        self.effects.iter().find_map(|e| match e {
            Effect::LookStale { seq, .. } => Some(*seq),
            _ => None,
        })
    }

    fn done(&self) -> Option<Done> {
        self.effects.iter().find_map(|e| match e {
            Effect::Done(done) => Some(*done),
            _ => None,
        })
    }

    fn outcome(&self) -> Value {
        serde_json::from_str(&self.call.outcome_json()).expect("JSON")
    }
}

/// A GET under `stale_ms` whose every attempt answers 503, its kept response `age` old (`None`: none kept).
fn failed_with_kept(stale_ms: u64, age: Option<u64>) -> One {
    let mut one = One::new("GET", stale_ms);
    let now = one.answer_all(503.0);
    let seq = one.looking().expect("a failed read looks for its kept response");
    one.feed(Event::StaleKept(seq, age.map(|age| WALL + now - age)), now);
    one
}

#[test]
fn a_failed_read_serves_its_kept_response_and_its_records_say_why() {
    let one = failed_with_kept(30_000, Some(2_000));
    assert_eq!(one.done(), Some(Done::Stale { age_ms: 2_000 }));
    let out = one.outcome();
    assert_eq!(out["reason"], "attempts", "{out}");
    let last = out["records"].as_array().and_then(|r| r.last()).cloned().expect("records");
    assert_eq!((last["decision"].as_str(), last["reason"].as_str()), (Some("stale"), Some("attempts")), "{last}");
    assert_eq!(last["staleAgeMs"], 2_000);
    // Only the stale record carries an age.
    assert!(out["records"].as_array().is_some_and(|r| r.iter().rev().skip(1).all(|r| r.get("staleAgeMs").is_none())));
}

#[test]
fn a_kept_response_older_than_the_option_is_not_served() {
    let one = failed_with_kept(1_000, Some(1_001));
    assert_eq!(one.done(), Some(Done::Failed));
    assert!(one.outcome()["records"].as_array().is_some_and(|r| r.iter().all(|r| r["decision"] != "stale")));
}

#[test]
fn nothing_kept_rejects_as_before() {
    let one = failed_with_kept(30_000, None);
    assert_eq!(one.done(), Some(Done::Failed));
    assert_eq!(one.outcome()["reason"], "attempts");
}

#[test]
fn an_answer_that_says_repeating_cannot_help_is_not_covered_up() {
    let mut one = One::new("GET", 30_000);
    one.answer_all(404.0);
    assert_eq!(one.looking(), None);
    assert_eq!(one.done(), Some(Done::Failed));
}

#[test]
fn an_order_never_serves_stale_and_is_never_kept() {
    let mut one = One::new("POST", 30_000);
    one.answer_all(503.0);
    assert_eq!(one.looking(), None);
    assert_eq!(one.done(), Some(Done::Failed));
    let mut ok = One::new("POST", 30_000);
    ok.answer_all(200.0);
    assert!(!ok.effects.iter().any(|e| matches!(e, Effect::Keep { .. })));
}

#[test]
fn a_read_that_succeeds_is_kept_before_it_resolves() {
    let mut one = One::new("GET", 30_000);
    one.answer_all(200.0);
    let keep = one.effects.iter().position(|e| matches!(e, Effect::Keep { .. })).expect("kept");
    let done = one.effects.iter().position(|e| matches!(e, Effect::Done(Done::Success { .. }))).expect("resolved");
    assert!(keep < done);
    let mut off = One::new("GET", 0);
    off.answer_all(200.0);
    assert!(!off.effects.iter().any(|e| matches!(e, Effect::Keep { .. })), "without the option nothing is kept");
}
