//! What a shell feeds a stream's session. Every message ends in one `Deliver` or one `Discard` of its
//! id, in the order fed — also when a step on a budget shared across tabs holds it back (a rotation's
//! first message waits for the share; the message must still be the one that came). What the
//! platform says (a failure, a close's reason) reaches the records redacted, whichever shell fed it.

use retryline::budget::sharing::Share;
use retryline::budget::Budget;
use retryline::call::Ctx;
use retryline::stream::session::{Session, SessionEffect, SessionEvent, SessionSettings};
use retryline::stream::{Stream, StreamSpec};
use retryline::{Draws, Loose};

struct World {
    session: Session,
    budget: Budget,
    draws: Draws,
    now: u64,
    /// Brackets asked for and not yet answered.
    entering: Vec<u32>,
}

impl World {
    fn new(options: Loose) -> World {
        let spec = StreamSpec::read(&options, "wss://stream.test/ws").expect("the stream's options");
        let mut budget = Budget::default();
        budget.share_across_tabs();
        let settings = SessionSettings { observed: true, ..SessionSettings::default() };
        let session = Session::new(Stream::begin(spec), settings);
        World { session, budget, draws: Draws::scripted(Vec::new(), 1), now: 0, entering: Vec::new() }
    }

    /// Feeds `event`; the effects it hands out, the share's steps kept aside.
    fn feed(&mut self, event: SessionEvent) -> Vec<SessionEffect> {
        let ctx = &mut Ctx {
            now: self.now,
            wall: 1_767_225_600_000 + self.now,
            draws: &mut self.draws,
            budget: &mut self.budget,
        };
        self.session.handle(event, ctx);
        let mut effects = Vec::new();
        while let Some(effect) = self.session.poll() {
            match effect {
                SessionEffect::Share(Share::Enter { seq, .. }) => self.entering.push(seq),
                SessionEffect::Share(_) | SessionEffect::Report | SessionEffect::State(_) => {}
                effect => effects.push(effect),
            }
        }
        effects
    }

    /// Feeds `event`, then answers each bracket it asked for at once, until none is asked for.
    fn step(&mut self, event: SessionEvent) -> Vec<SessionEffect> {
        let mut effects = self.feed(event);
        while let Some(seq) = self.entering.pop() {
            effects.extend(self.feed(SessionEvent::Entered(seq, None)));
        }
        effects
    }
}

fn options(fields: &[(&str, f64)]) -> Loose {
    Loose::Map(fields.iter().map(|(k, v)| ((*k).to_owned(), Loose::Number(*v))).collect())
}

#[test]
fn a_rotations_first_message_held_by_the_share_is_delivered_as_itself_and_in_order() {
    let mut w = World::new(options(&[("rotateAfterMs", 500.0), ("minUptimeMs", 100.0)]));
    assert_eq!(w.step(SessionEvent::Start), vec![SessionEffect::Connect(1)]);
    w.step(SessionEvent::Opened(1));
    assert_eq!(w.step(SessionEvent::Message(1, 1)), vec![SessionEffect::Deliver(1)]);

    w.now = 500;
    let rotation = w.step(SessionEvent::Timer);
    assert_eq!(rotation, vec![SessionEffect::Connect(2)], "the next connection opens before the old one closes");
    w.step(SessionEvent::Opened(2));

    // The rotation's first message steps on the shared budget: nothing is delivered until the
    // share is held, and a second message meanwhile waits behind it.
    w.now = 520;
    assert_eq!(w.feed(SessionEvent::Message(2, 2)), vec![]);
    assert_eq!(w.feed(SessionEvent::Message(2, 3)), vec![]);
    let seq = w.entering.pop().expect("a bracket asked for");
    let after = w.feed(SessionEvent::Entered(seq, None));
    let delivered: Vec<_> =
        after.iter().filter(|e| matches!(e, SessionEffect::Deliver(_) | SessionEffect::Discard(_))).collect();
    assert_eq!(delivered, vec![&SessionEffect::Deliver(2), &SessionEffect::Deliver(3)]);
    assert!(after.iter().any(|e| matches!(e, SessionEffect::Close(1, 1000, words) if words == "rotated")), "{after:?}");

    // A message on the socket it replaced goes nowhere, and so does one after the stream stopped.
    assert_eq!(w.step(SessionEvent::Message(1, 4)), vec![SessionEffect::Discard(4)]);
    w.step(SessionEvent::Close);
    assert_eq!(w.step(SessionEvent::Message(2, 5)), vec![SessionEffect::Discard(5)]);
}

#[test]
fn what_the_platform_says_reaches_the_records_redacted() {
    let mut w = World::new(options(&[("minUptimeMs", 100.0)]));
    w.step(SessionEvent::Start);
    w.step(SessionEvent::Failed(1, "connect wss://stream.test/ws?listenKey=s3cr3t failed".into()));
    let records = w.session.take_records();
    let error = records.iter().find_map(|r| r.error.clone()).expect("the failure's record");
    assert!(!error.contains("s3cr3t") && error.contains("listenKey=REDACTED"), "{error}");

    w.now = 10_000;
    let reconnect = w.step(SessionEvent::Timer);
    assert_eq!(reconnect, vec![SessionEffect::Connect(2)]);
    w.step(SessionEvent::Opened(2));
    w.step(SessionEvent::Closed(2, 1011, "see https://x.test/?token=abc".into()));
    let records = w.session.take_records();
    let error = records.iter().rev().find_map(|r| r.error.clone()).expect("the close's record");
    assert!(!error.contains("abc") && error.contains("token=REDACTED"), "{error}");
}
