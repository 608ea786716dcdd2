//! Coalescing across tabs: each tab's budget takes the shared state (as the shell's lock and
//! storage hand it over) before its step and stores it after. A read on the wire in one tab is
//! written there; the same read in another tab awaits its answer, carried by the shell, and sends
//! its own only when that read failed or its attempt must have ended (a tab closed mid-request).

use retryline::budget::shared::SharedState;
use retryline::budget::sharing::Share;
use retryline::budget::Budget;
use retryline::call::{request_key, Call, CallSpec, Ctx, Done, Effect, Event, Head, Purpose, Settings};
use retryline::json::FromLoose;
use retryline::redact::Secrets;
use retryline::{Draws, Loose, Operation, Policy};

const WALL: u64 = 1_767_225_600_000;
const URL: &str = "https://api.test/v1/ticker";

/// One tab: its budget, shared by tabs, and its one call.
struct Tab {
    budget: Budget,
    draws: Draws,
    call: Call,
    effects: Vec<Effect>,
}

impl Tab {
    fn new(now: u64) -> Tab {
        let policy = Policy::from_options(&Loose::Map(vec![
            ("deadlineMs".into(), Loose::Number(5000.0)),
            ("attemptTimeoutMs".into(), Loose::Number(400.0)),
            ("maxAttempts".into(), Loose::Number(3.0)),
        ]))
        .expect("policy");
        let start = CallSpec::of(&policy).start("GET", URL, None, &Secrets::default());
        let settings = Settings {
            owner: "t".into(),
            coalesce: true,
            stale_ms: 30_000,
            platform_fetch: true,
            carries: true,
            ..Settings::default()
        };
        let mut call = Call::new(Operation::begin(start, now, WALL + now), Purpose::Fetch, settings, now, WALL + now);
        call.offer(request_key("https://api.test", "GET", URL, ""));
        let mut budget = Budget::default();
        budget.share_across_tabs();
        Tab { budget, draws: Draws::scripted(vec![5], 1), call, effects: vec![] }
    }

    /// Feeds `event`; every bracket is entered at once with what `store` holds, and left into it.
    fn feed(&mut self, event: Event, now: u64, store: &mut String) {
        let mut next = Some(event);
        while let Some(event) = next.take() {
            let mut ctx = Ctx { now, wall: WALL + now, draws: &mut self.draws, budget: &mut self.budget };
            self.call.handle(event, &mut ctx);
            while let Some(effect) = self.call.poll() {
                match effect {
                    Effect::Share(Share::Enter { seq, .. }) => {
                        let state = (!store.is_empty()).then(|| {
                            let loose: Loose = serde_json::from_str(store).expect("JSON");
                            SharedState::from_loose(&loose).expect("a shared state")
                        });
                        next = Some(Event::Entered(seq, state));
                    }
                    Effect::Share(Share::Leave { state: Some(state), .. }) => *store = state,
                    effect => self.effects.push(effect),
                }
            }
        }
    }

    fn sends(&self) -> usize {
        self.effects.iter().filter(|e| matches!(e, Effect::Send { .. })).count()
    }

    fn has(&self, wanted: fn(&Effect) -> bool) -> bool {
        self.effects.iter().any(wanted)
    }
}

#[test]
fn a_read_on_the_wire_in_one_tab_answers_the_same_read_in_another() {
    let mut store = String::new();
    let mut a = Tab::new(0);
    a.feed(Event::Go, 0, &mut store);
    assert_eq!(a.sends(), 1);
    let mut b = Tab::new(10);
    b.feed(Event::Go, 10, &mut store);
    assert_eq!(b.sends(), 0, "the other tab's read is on the wire");
    assert!(b.has(|e| matches!(e, Effect::Await { .. })));
    assert_eq!(b.call.poll_timeout(), Some(400), "it waits until that attempt must have ended");
    a.feed(Event::Response(1, Head { status: 200.0, ..Head::default() }), 50, &mut store);
    assert!(a.has(|e| matches!(e, Effect::Carry { ok: true, .. })), "the answer is carried");
    assert!(a.has(|e| matches!(e, Effect::Done(Done::Success { .. }))));
    b.feed(Event::Carried(true), 55, &mut store);
    assert!(b.has(|e| matches!(e, Effect::Done(Done::Carried))));
    assert!(b.has(|e| matches!(e, Effect::Keep { .. })), "kept in this tab too, for its own stale answers");
    // Landed: a later read in a third tab sends its own.
    let mut c = Tab::new(100);
    c.feed(Event::Go, 100, &mut store);
    assert_eq!(c.sends(), 1);
}

#[test]
fn a_tab_that_closed_mid_request_leaves_the_others_to_send_their_own_when_its_attempt_must_have_ended() {
    let mut store = String::new();
    let mut a = Tab::new(0);
    a.feed(Event::Go, 0, &mut store);
    let mut b = Tab::new(10);
    b.feed(Event::Go, 10, &mut store);
    assert_eq!(b.sends(), 0);
    drop(a); // closed: nothing is carried, nothing lands
    b.feed(Event::Timer, 400, &mut store);
    assert_eq!(b.sends(), 1, "it sent its own once the closed tab's attempt must have ended");
    b.feed(Event::Response(1, Head { status: 200.0, ..Head::default() }), 450, &mut store);
    assert!(b.has(|e| matches!(e, Effect::Done(Done::Success { .. }))));
}

#[test]
fn a_failure_carried_sends_the_waiting_tab_on_its_own_and_a_ban_refuses_it_without_a_request() {
    let mut store = String::new();
    let mut a = Tab::new(0);
    a.feed(Event::Go, 0, &mut store);
    let mut b = Tab::new(10);
    b.feed(Event::Go, 10, &mut store);
    let banned = Head { status: 418.0, retry_after: Some("30".into()), ..Head::default() };
    a.feed(Event::Response(1, banned), 50, &mut store);
    assert!(a.has(|e| matches!(e, Effect::Carry { ok: false, .. })));
    b.feed(Event::Carried(false), 55, &mut store);
    assert_eq!(b.sends(), 0, "the ban is in the shared state: nothing more is sent");
    // It asks for a kept answer first (staleIfErrorMs): none here.
    let seq = b.effects.iter().find_map(|e| match e {
        Effect::LookStale { seq, .. } => Some(*seq),
        _ => None,
    });
    b.feed(Event::StaleKept(seq.expect("it looked for a stale answer"), None), 56, &mut store);
    assert!(b.has(|e| matches!(e, Effect::Done(Done::Failed))));
    let out: serde_json::Value = serde_json::from_str(&b.call.outcome_json()).expect("JSON");
    assert_eq!(out["reason"], "banned");
}

#[test]
fn a_tab_awaiting_another_keeps_its_own_deadline_and_abort() {
    let mut store = String::new();
    let mut a = Tab::new(0);
    a.feed(Event::Go, 0, &mut store);
    let mut b = Tab::new(10);
    b.feed(Event::Go, 10, &mut store);
    b.feed(Event::Abort, 20, &mut store);
    assert!(b.has(|e| matches!(e, Effect::Done(Done::Failed))));
    let out: serde_json::Value = serde_json::from_str(&b.call.outcome_json()).expect("JSON");
    assert_eq!(out["reason"], "aborted");
    assert_eq!(b.sends(), 0);
}
