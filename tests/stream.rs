//! A stream's connection machine on the virtual clock: outages, uptime, bans, staleness, rotation.
#![cfg(not(target_arch = "wasm32"))]

use retryline::budget::BudgetConfig;
use retryline::stream::{Check, Closed, Stream, StreamSpec, Watch};
use retryline::{Action, Budget, Decision, Draws, Loose, Observed, Outcome, Policy, Reason};
use serde_json::{json, Value};

const WALL: u64 = 1_767_225_600_000;
const SCOPE: &str = "http://x.test";

fn loose(v: Value) -> Loose {
    serde_json::from_value(v).unwrap()
}

fn spec(policy: Value, watch: Watch) -> StreamSpec {
    StreamSpec {
        policy: Policy::for_streams().with_options(&loose(policy)).unwrap(),
        scope: SCOPE.to_owned(),
        weight: 1,
        url: Some("ws://x.test/ws?apiKey=secret".to_owned()),
        watch,
        send_per_second: None,
    }
}

fn unlimited() -> Budget {
    Budget::new(BudgetConfig::unlimited())
}

fn dropped() -> Outcome {
    Outcome { error: Some("closed".to_owned()), ..Outcome::failure(Observed::NetworkError) }
}

fn refused(status: u16, retry_after: &str) -> Outcome {
    Outcome { retry_after: Some(retry_after.to_owned()), ..Outcome::response(status) }
}

/// Runs the stream's sleeps to their ends: the instant and action at which it next connects or stops.
fn until_connect(s: &mut Stream, mut action: Action, budget: &mut Budget) -> (u64, Action) {
    let mut now = 0;
    loop {
        match action {
            Action::Sleep { until } => {
                now = until;
                action = s.on_wake(now, budget);
            }
            other => return (now, other),
        }
    }
}

fn act(closed: Closed) -> Action {
    match closed {
        Closed::Act(action) => action,
        Closed::Adopted => panic!("adopted a rotation"),
    }
}

#[test]
fn the_first_connection_goes_at_once_and_its_uptime_ends_the_outage() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(1));
    let mut s = Stream::begin(spec(json!({}), Watch::default()));
    assert_eq!(s.connect(0, WALL, &mut draws, &mut budget), Action::Send { attempt: 1, timeout_ms: 10_000 });
    s.on_open(40, WALL, &mut draws, &mut budget);
    // Not yet proven: the outage goes on until minUptimeMs (5 s) has passed.
    let w = s.check(1000, WALL, Some(900), &mut draws, &mut budget);
    assert_eq!((w.check, w.next_at), (Check::Fresh, Some(5040)));
    assert!(s.take_records().is_empty(), "an attempt's record comes with its verdict");
    let w = s.check(5040, WALL, Some(5000), &mut draws, &mut budget);
    assert_eq!(w.check, Check::Fresh);
    let records = s.take_records();
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert_eq!((r.decision, r.status, r.reason, r.attempt), (Decision::Sent, Some(101), Some(Reason::Success), 1));
    assert_eq!(r.operation, retryline::OperationKind::Stream);
    assert_eq!(r.url.as_deref(), Some("ws://x.test/ws?apiKey=REDACTED"));
    assert!(s.outage().is_none());
}

#[test]
fn a_drop_after_the_uptime_begins_a_new_outage_with_a_backoff_draw() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![700], 1));
    let mut s = Stream::begin(spec(json!({ "baseDelayMs": 1000 }), Watch { min_uptime_ms: 0, ..Watch::default() }));
    s.connect(0, WALL, &mut draws, &mut budget);
    s.on_open(10, WALL, &mut draws, &mut budget);
    let action = act(s.on_close(60_000, WALL, &dropped(), Some(1006), &mut draws, &mut budget));
    assert_eq!(action, Action::Sleep { until: 60_700 });
    assert_eq!(s.outages(), 2);
    assert_eq!(s.on_wake(60_700, &mut budget), Action::Send { attempt: 1, timeout_ms: 10_000 });
    s.on_open(60_720, WALL, &mut draws, &mut budget);
    // A record comes with its attempt's verdict: here, the uptime (0) proven at once.
    let records = s.take_records();
    let last = records.last().unwrap();
    assert_eq!((last.attempt, last.window_ms, last.sampled_delay_ms), (1, Some(1000), Some(700)));
    assert_eq!((last.start_ms, last.status), (700, Some(101)));
}

#[test]
fn a_drop_before_the_uptime_continues_the_outage_with_a_wider_window() {
    let (mut budget, mut draws) = (unlimited(), Draws::scripted(vec![900, 1500], 1));
    let mut s = Stream::begin(spec(json!({}), Watch::default()));
    s.connect(0, WALL, &mut draws, &mut budget);
    s.on_open(10, WALL, &mut draws, &mut budget);
    // Up for 2 s of the 5 s minimum: the drop is the outage's failed first attempt.
    let action = act(s.on_close(2010, WALL, &dropped(), Some(1006), &mut draws, &mut budget));
    assert_eq!(action, Action::Sleep { until: 2910 });
    let (at, action) = until_connect(&mut s, action, &mut budget);
    assert_eq!((at, action), (2910, Action::Send { attempt: 2, timeout_ms: 10_000 }));
    s.on_open(2950, WALL, &mut draws, &mut budget);
    let action = act(s.on_close(3000, WALL, &dropped(), None, &mut draws, &mut budget));
    assert_eq!(action, Action::Sleep { until: 4500 });
    let (_, action) = until_connect(&mut s, action, &mut budget);
    assert_eq!(action, Action::Send { attempt: 3, timeout_ms: 10_000 });
    s.on_close(4600, WALL, &Outcome::failure(Observed::Timeout), None, &mut draws, &mut budget);
    let windows: Vec<_> = s.take_records().iter().map(|r| r.window_ms).collect();
    assert_eq!(windows, [None, Some(1000), Some(2000)], "three attempts of one outage");
    assert_eq!(s.outages(), 1);
}

#[test]
fn it_gives_up_after_max_attempts_and_after_the_longest_outage() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(3));
    let mut s = Stream::begin(spec(json!({ "maxAttempts": 3, "baseDelayMs": 100 }), Watch::default()));
    let mut action = s.connect(0, WALL, &mut draws, &mut budget);
    let mut now = 0;
    while let Action::Send { .. } = action {
        now += 50;
        action = act(s.on_close(now, WALL, &dropped(), None, &mut draws, &mut budget));
        let (at, next) = until_connect(&mut s, action, &mut budget);
        (now, action) = (now.max(at), next);
    }
    assert_eq!(s.stopped().map(|s| s.reason), Some(Reason::Attempts));
    let sent = s.take_records().iter().filter(|r| r.decision == Decision::Sent).count();
    assert_eq!(sent, 3);

    let mut s = Stream::begin(spec(json!({ "deadlineMs": 20_000, "attemptTimeoutMs": 5000 }), Watch::default()));
    let mut action = s.connect(0, WALL, &mut draws, &mut budget);
    let mut now = 0;
    while let Action::Send { timeout_ms, .. } = action {
        now += timeout_ms;
        let timed_out = Outcome::failure(Observed::Timeout);
        action = act(s.on_close(now, WALL, &timed_out, None, &mut draws, &mut budget));
        let (at, next) = until_connect(&mut s, action, &mut budget);
        (now, action) = (now.max(at), next);
    }
    assert_eq!(s.stopped().map(|s| s.reason), Some(Reason::Deadline));
    assert!(now <= 20_000, "stopped within the longest outage, at {now}");
}

#[test]
fn a_ban_in_the_scope_holds_reconnects_until_it_ends_and_stops_them_past_the_deadline() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(5));
    let mut s = Stream::begin(spec(json!({}), Watch { min_uptime_ms: 0, ..Watch::default() }));
    s.connect(0, WALL, &mut draws, &mut budget);
    s.on_open(10, WALL, &mut draws, &mut budget);
    // A 418 on a REST call in the same scope bans it for 60 s.
    budget.ban(SCOPE, 70_000);
    let action = act(s.on_close(10_000, WALL, &dropped(), Some(1012), &mut draws, &mut budget));
    let (at, action) = until_connect(&mut s, action, &mut budget);
    assert!(at >= 70_000 && matches!(action, Action::Send { .. }), "reconnected at {at}: {action:?}");
    s.on_open(at + 10, WALL, &mut draws, &mut budget);
    let records = s.take_records();
    let sent = records.last().unwrap();
    assert!(sent.provider_wait_ms >= 60_000, "{sent:?}");

    // A ban longer than the outage may last stops the stream, with `banned`.
    let mut s = Stream::begin(spec(json!({ "deadlineMs": 30_000 }), Watch { min_uptime_ms: 0, ..Watch::default() }));
    s.connect(100_000, WALL, &mut draws, &mut budget);
    s.on_open(100_010, WALL, &mut draws, &mut budget);
    budget.ban(SCOPE, 400_000);
    let action = act(s.on_close(110_000, WALL, &dropped(), None, &mut draws, &mut budget));
    assert_eq!(action, Action::Stop(retryline::Stop { reason: Reason::Banned, at_ms: 0 }));
}

#[test]
fn a_refused_upgrade_sets_the_provider_wait_and_a_second_throttle_does_not_stop_it() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(7));
    let mut s = Stream::begin(spec(json!({}), Watch::default()));
    s.connect(0, WALL, &mut draws, &mut budget);
    let action = act(s.on_close(20, WALL, &refused(429, "3"), None, &mut draws, &mut budget));
    let Action::Sleep { until } = action else { panic!("{action:?}") };
    assert!(until >= 3020, "Retry-After 3 s kept: {until}");
    assert_eq!(budget.hold_remaining(SCOPE, 20), 3000, "the hold covers the scope");
    let (at, action) = until_connect(&mut s, action, &mut budget);
    assert!(matches!(action, Action::Send { attempt: 2, .. }), "{action:?}");
    let action = act(s.on_close(at + 20, WALL, &refused(429, "2"), None, &mut draws, &mut budget));
    assert!(matches!(action, Action::Sleep { .. }), "a stream keeps coming back: {action:?}");
    // A 404 on the upgrade says the stream is not there: it stops.
    let (at, _) = until_connect(&mut s, action, &mut budget);
    let action = act(s.on_close(at + 5, WALL, &Outcome::response(404), None, &mut draws, &mut budget));
    assert!(matches!(action, Action::Stop(stop) if stop.reason == Reason::NonRetryable));
}

#[test]
fn silence_is_stale_then_replaced_and_each_instant_is_announced() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(9));
    let watch = Watch { stale_after_ms: Some(2000), reconnect_after_stale_ms: Some(6000), ..Watch::default() };
    let mut s = Stream::begin(spec(json!({}), watch));
    s.connect(0, WALL, &mut draws, &mut budget);
    s.on_open(100, WALL, &mut draws, &mut budget);
    let w = s.check(1000, WALL, Some(900), &mut draws, &mut budget);
    assert_eq!((w.check, w.next_at), (Check::Fresh, Some(2900)));
    let w = s.check(2900, WALL, Some(900), &mut draws, &mut budget);
    assert_eq!((w.check, w.next_at), (Check::Stale, Some(5100)));
    let w = s.check(5100, WALL, Some(900), &mut draws, &mut budget);
    assert_eq!((w.check, w.next_at), (Check::Stale, Some(6900)));
    assert_eq!(s.check(6900, WALL, Some(900), &mut draws, &mut budget).check, Check::Replace);
    // A message resets it.
    assert_eq!(s.check(6900, WALL, Some(6800), &mut draws, &mut budget).check, Check::Fresh);
}

#[test]
fn rotation_opens_the_next_connection_before_the_old_one_goes() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(11));
    let watch = Watch { min_uptime_ms: 1000, rotate_after_ms: Some(60_000), ..Watch::default() };
    let mut s = Stream::begin(spec(json!({}), watch));
    s.connect(0, WALL, &mut draws, &mut budget);
    s.on_open(0, WALL, &mut draws, &mut budget);
    let w = s.check(1000, WALL, Some(1000), &mut draws, &mut budget);
    assert_eq!(w.next_at, Some(11_000), "the stale instant comes first");
    assert_eq!(s.check(60_000, WALL, Some(59_990), &mut draws, &mut budget).check, Check::Rotate);
    assert_eq!(s.rotate(60_000, WALL, &mut draws, &mut budget), Action::Send { attempt: 1, timeout_ms: 10_000 });
    s.on_rotation_open(60_050, WALL, &mut draws, &mut budget);
    assert_eq!(s.opened_at(), Some(60_050));
    let rotated = s.take_records();
    assert_eq!(rotated.last().map(|r| (r.status, r.reason)), Some((Some(101), Some(Reason::Success))));
    // The next rotation is due a full period after the switch.
    let w = s.check(60_100, WALL, Some(60_090), &mut draws, &mut budget);
    assert_eq!(w.next_at, Some(70_090));

    // The old connection drops while the rotation's is in flight: that one is the reconnect.
    assert_eq!(s.check(120_050, WALL, Some(120_000), &mut draws, &mut budget).check, Check::Rotate);
    s.rotate(120_050, WALL, &mut draws, &mut budget);
    assert_eq!(s.on_close(120_060, WALL, &dropped(), Some(1001), &mut draws, &mut budget), Closed::Adopted);
    s.on_open(120_100, WALL, &mut draws, &mut budget);
    assert_eq!(s.opened_at(), Some(120_100));
}

#[test]
fn a_stop_code_stops_rather_than_reconnects_and_says_so() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(13));
    let mut s = Stream::begin(spec(json!({}), Watch { min_uptime_ms: 0, ..Watch::default() }));
    s.connect(0, WALL, &mut draws, &mut budget);
    s.on_open(10, WALL, &mut draws, &mut budget);
    let action = act(s.on_close(500, WALL, &dropped(), Some(1008), &mut draws, &mut budget));
    assert!(matches!(action, Action::Stop(stop) if stop.reason == Reason::NonRetryable), "{action:?}");
    let last = s.take_records().pop().unwrap();
    assert_eq!((last.decision, last.reason), (Decision::Refused, Some(Reason::NonRetryable)));
}

#[test]
fn closing_abandons_the_attempt_in_flight() {
    let (mut budget, mut draws) = (unlimited(), Draws::seeded(15));
    let mut s = Stream::begin(spec(json!({}), Watch::default()));
    s.connect(0, WALL, &mut draws, &mut budget);
    assert_eq!(s.close(30, &mut budget).reason, Reason::Aborted);
    let last = s.take_records().pop().unwrap();
    assert_eq!((last.outcome, last.reason), (Some(Observed::Aborted), Some(Reason::Aborted)));
    assert!(matches!(s.on_wake(40, &mut budget), Action::Stop(_)));
}

#[test]
fn a_hundred_streams_dropped_at_once_reconnect_within_the_scope_bucket() {
    let options = loose(json!({ "capacity": 10, "refillPerSecond": 5, "reserve": 0, "retryQuota": false }));
    let mut budget = Budget::new(BudgetConfig::from_options(&options).unwrap());
    let mut draws = Draws::seeded(17);
    let watch = Watch { min_uptime_ms: 0, ..Watch::default() };
    let mut streams: Vec<Stream> = (0..100).map(|_| Stream::begin(spec(json!({}), watch.clone()))).collect();
    // (instant, stream, its action then); every stream opens when it may, all drop at 100 s.
    let mut pending: Vec<(u64, usize, Action)> = Vec::new();
    for (i, s) in streams.iter_mut().enumerate() {
        pending.push((0, i, s.connect(0, WALL, &mut draws, &mut budget)));
    }
    let mut starts = Vec::new();
    while starts.len() < 200 {
        let due = |(at, _, a): &(u64, usize, Action)| match a {
            Action::Sleep { until } => *until,
            _ => *at,
        };
        pending.sort_by_key(due);
        let (at, i, action) = pending.remove(0);
        match action {
            Action::Sleep { until } => pending.push((until, i, streams[i].on_wake(until, &mut budget))),
            Action::Send { .. } => {
                starts.push(at);
                streams[i].on_open(at, WALL, &mut draws, &mut budget);
                if starts.len() == 100 {
                    assert!(pending.is_empty());
                    for (j, s) in streams.iter_mut().enumerate() {
                        let closed = s.on_close(100_000, WALL, &dropped(), Some(1012), &mut draws, &mut budget);
                        pending.push((100_000, j, act(closed)));
                    }
                }
            }
            Action::Stop(stop) => panic!("stream {i} stopped: {stop:?}"),
        }
    }
    starts.sort_unstable();
    for (k, &t) in starts.iter().enumerate() {
        let within = starts[k..].iter().take_while(|&&u| u < t + 1000).count();
        assert!(within <= 15, "{within} connection attempts in the second from {t}");
    }
}
