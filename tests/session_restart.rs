//! A stream's session begun again (`reconnect()`) and told of its page, where the order of events
//! matters: a stream its policy stopped, reconnected while the page is offline, connects once the
//! page is online; a wake's ping judges only the connection it was sent on; a closed stream stays
//! closed.

use retryline::budget::Budget;
use retryline::call::Ctx;
use retryline::stream::session::{PageSignal, Session, SessionEffect, SessionEvent, SessionSettings, StreamState};
use retryline::stream::{Stream, StreamSpec};
use retryline::{Draws, Loose};

struct World {
    session: Session,
    budget: Budget,
    draws: Draws,
    now: u64,
}

impl World {
    fn new(settings: SessionSettings) -> World {
        let options: Loose = serde_json::from_value(serde_json::json!({ "minUptimeMs": 0 })).unwrap();
        let spec = StreamSpec::read(&options, "wss://stream.test/ws").expect("the stream's options");
        let session = Session::new(Stream::begin(spec), settings);
        World { session, budget: Budget::default(), draws: Draws::scripted(vec![100; 8], 1), now: 0 }
    }

    fn feed(&mut self, event: SessionEvent) -> Vec<SessionEffect> {
        let wall = 1_767_225_600_000 + self.now;
        let ctx = &mut Ctx { now: self.now, wall, draws: &mut self.draws, budget: &mut self.budget };
        self.session.handle(event, ctx);
        std::iter::from_fn(|| self.session.poll()).collect()
    }

    /// The links the effects connect.
    fn connects(effects: &[SessionEffect]) -> Vec<u32> {
        effects.iter().filter_map(|e| if let SessionEffect::Connect(l) = e { Some(*l) } else { None }).collect()
    }
}

#[test]
fn a_stream_its_policy_stopped_reconnected_while_offline_connects_once_online() {
    let mut w = World::new(SessionSettings::default());
    let first = World::connects(&w.feed(SessionEvent::Start));
    w.feed(SessionEvent::Opened(first[0]));
    w.now = 100;
    w.feed(SessionEvent::Closed(first[0], 1008, "policy".into()));
    assert_eq!(w.session.state(), StreamState::Stopped, "a stop code stops it");
    w.feed(SessionEvent::Page(PageSignal::Offline));
    let effects = w.feed(SessionEvent::Reconnect(0, String::new()));
    assert!(World::connects(&effects).is_empty(), "offline: nothing connects");
    assert_eq!(w.session.state(), StreamState::Waiting);
    w.now = 5_000;
    let effects = w.feed(SessionEvent::Page(PageSignal::Online));
    assert_eq!(World::connects(&effects).len(), 1, "online: it connects at once: {effects:?}");
    assert_eq!(w.session.state(), StreamState::Connecting);
}

#[test]
fn a_wakes_ping_judges_only_the_connection_it_was_sent_on() {
    let mut w = World::new(SessionSettings { heartbeat_ms: Some(60_000), ..SessionSettings::default() });
    let first = World::connects(&w.feed(SessionEvent::Start))[0];
    w.feed(SessionEvent::Opened(first));
    w.now = 20_000;
    let effects = w.feed(SessionEvent::Page(PageSignal::Wake));
    assert!(effects.contains(&SessionEffect::Ping(first)), "a quiet connection is pinged: {effects:?}");
    // The server closes it at once; the reconnect opens and stays quiet past the ping's answer time.
    w.now = 20_100;
    w.feed(SessionEvent::Closed(first, 1012, "restart".into()));
    let mut second = Vec::new();
    while second.is_empty() && w.now < 30_000 {
        w.now = w.session.poll_timeout().unwrap_or(w.now + 100).max(w.now);
        second = World::connects(&w.feed(SessionEvent::Timer));
    }
    w.feed(SessionEvent::Opened(second[0]));
    w.now = 26_000;
    let effects = w.feed(SessionEvent::Timer);
    assert!(
        !effects.iter().any(|e| matches!(e, SessionEffect::Close(..))),
        "the new connection is not judged by the old ping: {effects:?}"
    );
    assert_eq!(w.session.state(), StreamState::Open);
}

#[test]
fn a_closed_stream_refuses_a_reconnect_also_after_a_stop_by_its_policy() {
    let mut w = World::new(SessionSettings::default());
    let first = World::connects(&w.feed(SessionEvent::Start));
    w.feed(SessionEvent::Opened(first[0]));
    w.feed(SessionEvent::Closed(first[0], 1008, String::new()));
    let closed = w.feed(SessionEvent::Close);
    assert!(closed.contains(&SessionEffect::Stopped(retryline::Reason::Aborted)), "the close lets it go: {closed:?}");
    let effects = w.feed(SessionEvent::Reconnect(0, String::new()));
    assert!(
        matches!(effects.as_slice(), [SessionEffect::ReconnectRefused(retryline::Reason::Aborted, _)]),
        "{effects:?}"
    );
}
