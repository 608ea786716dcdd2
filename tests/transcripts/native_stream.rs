//! The world of a stream transcript, played natively around the core's session machine: the
//! scripted connections of world.mjs's WebSocket, the caller's sends, gap and close, its `onOpen`
//! and `resync`, on the same virtual clock (timers by (instant, creation); "microtasks" before
//! timers; events the executor feeds while it performs effects right after them).

use std::collections::{HashMap, VecDeque};

use retryline::budget::Budget;
use retryline::call::Ctx;
use retryline::stream::session::{PageSignal, Session, SessionEffect, SessionEvent, SessionSettings};
use retryline::stream::{Stream, StreamSpec};
use retryline::Draws;
use serde_json::Value;

use super::native::{loose, Played};

#[derive(Clone, Debug)]
enum Happening {
    Feed(SessionEvent),
    /// Socket `n` opens: its messages and close are scheduled from then.
    Opens(u32),
    /// A message on socket `n`.
    Message(u32, String),
    /// Socket `n` closes.
    Closes(u32, u16, String),
    /// Socket `n`'s upgrade is refused with this status and Retry-After.
    Refused(u32, u16, Option<String>),
    Timer,
    CallerSend(String),
    Gap,
    Close,
    /// What the caller or the page does (`stream.events`): reconnect, or a page signal.
    Does(Value),
}

struct World<'t> {
    t: &'t Value,
    now: u64,
    seq: u64,
    timers: Vec<(u64, u64, Happening)>,
    microtasks: VecDeque<Happening>,
    /// Events fed while effects are being done: they come right after.
    fed: VecDeque<SessionEvent>,
    log: Vec<String>,
    connections: u32,
    /// Link → socket number, and socket number → link.
    sockets: HashMap<u32, u32>,
    links: HashMap<u32, u32>,
    /// Sockets still live (not closed by either side), with their pending timers.
    live: HashMap<u32, Vec<u64>>,
    messages: HashMap<u32, String>,
    next_message: u32,
    /// The data of the message being fed.
    state: &'static str,
    machine_timer: Option<(u64, u64)>,
    records: Vec<Value>,
    stopped: Option<String>,
    resyncs: usize,
}

impl World<'_> {
    fn note(&mut self, line: &str) {
        self.log.push(format!("{} {line}", self.now));
    }

    fn timer(&mut self, after: u64, what: Happening) -> u64 {
        self.seq += 1;
        self.timers.push((self.now + after, self.seq, what));
        self.seq
    }

    fn socket_timer(&mut self, n: u32, after: u64, what: Happening) {
        let seq = self.timer(after, what);
        self.live.entry(n).or_default().push(seq);
    }

    /// Socket `n` is done: nothing it scheduled happens any more.
    fn retire(&mut self, n: u32) {
        if let Some(pending) = self.live.remove(&n) {
            self.timers.retain(|(_, seq, _)| !pending.contains(seq));
        }
    }

    fn send(&mut self, link: u32, data: String) {
        self.next_message += 1;
        self.messages.insert(self.next_message, data);
        self.fed.push_back(SessionEvent::Send(self.next_message, link));
    }
}

/// Plays stream transcript `t` natively.
pub fn play_stream(t: &Value) -> Played {
    let client = t.get("client").cloned().unwrap_or(Value::Null);
    let seed = client.get("seed").and_then(Value::as_u64).unwrap_or(1);
    let draws: Vec<u64> = client
        .get("draws")
        .and_then(Value::as_array)
        .map_or(Vec::new(), |d| d.iter().filter_map(Value::as_u64).collect());
    let mut draws = Draws::scripted(draws, seed);
    let mut budget = Budget::default();
    let st = &t["stream"];
    let url = st["url"].as_str().unwrap_or("wss://stream.test/ws");
    let spec = StreamSpec::read(&loose(st.get("options").unwrap_or(&Value::Null)), url).expect("the stream's options");
    let settings = SessionSettings {
        on_open: st.get("onOpen").is_some(),
        resync: st.get("resync").is_some(),
        heartbeat_ms: st.pointer("/heartbeat/everyMs").and_then(Value::as_u64),
        observed: true,
    };
    let mut machine = Session::new(Stream::begin(spec), settings);
    let mut world = World {
        t,
        now: 0,
        seq: 0,
        timers: Vec::new(),
        microtasks: VecDeque::new(),
        fed: VecDeque::new(),
        log: Vec::new(),
        connections: 0,
        sockets: HashMap::new(),
        links: HashMap::new(),
        live: HashMap::new(),
        messages: HashMap::new(),
        next_message: 0,
        state: "connecting",
        machine_timer: None,
        records: Vec::new(),
        stopped: None,
        resyncs: 0,
    };
    for send in st.get("sends").and_then(Value::as_array).cloned().unwrap_or_default() {
        let data = send["data"].as_str().unwrap_or_default().to_owned();
        world.timer(send["at"].as_u64().unwrap_or(0), Happening::CallerSend(data));
    }
    if let Some(at) = st.get("gapAt").and_then(Value::as_u64) {
        world.timer(at, Happening::Gap);
    }
    for does in st.get("events").and_then(Value::as_array).cloned().unwrap_or_default() {
        world.timer(does["at"].as_u64().unwrap_or(0), Happening::Does(does));
    }
    world.timer(st.get("closeAt").and_then(Value::as_u64).unwrap_or(60_000), Happening::Close);
    world.microtasks.push_back(Happening::Feed(SessionEvent::Start));
    let wall_start = 1_767_225_600_000;
    let mut steps = 0;
    while world.stopped.is_none() && steps < 100_000 {
        steps += 1;
        let happening = match world.microtasks.pop_front() {
            Some(h) => h,
            None => {
                let Some(i) =
                    world.timers.iter().enumerate().min_by_key(|(_, (at, seq, _))| (*at, *seq)).map(|(i, _)| i)
                else {
                    break;
                };
                let (at, seq, what) = world.timers.remove(i);
                world.now = world.now.max(at);
                if matches!(what, Happening::Timer) {
                    if world.machine_timer.map(|(_, s)| s) != Some(seq) {
                        continue;
                    }
                    world.machine_timer = None;
                }
                for pending in world.live.values_mut() {
                    pending.retain(|s| *s != seq);
                }
                what
            }
        };
        let event = match happening {
            Happening::Feed(event) => event,
            Happening::Timer => SessionEvent::Timer,
            Happening::Opens(n) => {
                world.note(&format!("#{n} opens"));
                let script = t.pointer(&format!("/connections/{}", n - 1)).cloned().unwrap_or(Value::Null);
                for m in script.get("messages").and_then(Value::as_array).cloned().unwrap_or_default() {
                    let data = m["data"].as_str().unwrap_or_default().to_owned();
                    world.socket_timer(n, m["after"].as_u64().unwrap_or(0), Happening::Message(n, data));
                }
                if let Some(close) = script.get("closeAfter") {
                    let code = close.get("code").and_then(Value::as_u64).unwrap_or(1006) as u16;
                    let reason = close.get("reason").and_then(Value::as_str).unwrap_or_default().to_owned();
                    world.socket_timer(n, close["after"].as_u64().unwrap_or(0), Happening::Closes(n, code, reason));
                }
                SessionEvent::Opened(world.links[&n])
            }
            Happening::Message(n, data) => {
                world.next_message += 1;
                world.messages.insert(world.next_message, data);
                SessionEvent::Message(world.links[&n], world.next_message)
            }
            Happening::Closes(n, code, reason) => {
                world.note(&format!("#{n} closes {code}"));
                world.retire(n);
                SessionEvent::Closed(world.links[&n], code, reason)
            }
            Happening::CallerSend(data) => {
                if world.state == "open" || world.state == "stale" {
                    world.send(0, data);
                } else {
                    world.note("send refused");
                }
                match world.fed.pop_front() {
                    Some(event) => event,
                    None => continue,
                }
            }
            Happening::Refused(n, status, retry_after) => {
                world.note(&format!("#{n} refused {status}"));
                SessionEvent::Refused(world.links[&n], status, retry_after, None)
            }
            Happening::Gap => SessionEvent::Gap,
            Happening::Close => SessionEvent::Close,
            Happening::Does(does) => {
                let what = does["do"].as_str().unwrap_or_default();
                world.note(what);
                match what {
                    "reconnect" => {
                        // A reason without a code is sent with 1000, as WebSocket's close does.
                        let code = does.get("code").and_then(Value::as_u64).unwrap_or(if does.get("reason").is_some() {
                            1000
                        } else {
                            0
                        }) as u16;
                        SessionEvent::Reconnect(code, does["reason"].as_str().unwrap_or_default().to_owned())
                    }
                    "offline" => SessionEvent::Page(PageSignal::Offline),
                    "online" => SessionEvent::Page(PageSignal::Online),
                    "hidden" => SessionEvent::Page(PageSignal::Hidden),
                    "visible" => SessionEvent::Page(PageSignal::Visible),
                    "wake" => SessionEvent::Page(PageSignal::Wake),
                    other => panic!("stream.events: {other} is not played"),
                }
            }
        };
        step(&mut world, &mut machine, event, (&mut draws, &mut budget), wall_start);
    }
    let done = world.stopped.clone().unwrap_or_else(|| "never settled".into());
    world.note(&format!("done {done}"));
    Played { log: world.log, records: world.records }
}

/// Feeds one event, does the effects, arms the timer, then the events fed meanwhile.
fn step(
    world: &mut World,
    machine: &mut Session,
    event: SessionEvent,
    (draws, budget): (&mut Draws, &mut Budget),
    wall_start: u64,
) {
    let mut next = Some(event);
    while let Some(event) = next.take() {
        let mut ctx = Ctx { now: world.now, wall: wall_start + world.now, draws, budget };
        machine.handle(event, &mut ctx);
        while let Some(effect) = machine.poll() {
            perform(world, machine, effect);
            if world.stopped.is_some() {
                return;
            }
        }
        match (machine.poll_timeout(), world.machine_timer) {
            (Some(at), Some((armed, _))) if at == armed => {}
            (Some(at), _) => {
                let seq = world.timer(at.saturating_sub(world.now), Happening::Timer);
                world.machine_timer = Some((at, seq));
            }
            (None, _) => world.machine_timer = None,
        }
        next = world.fed.pop_front();
    }
}

fn perform(world: &mut World, machine: &mut Session, effect: SessionEffect) {
    let t = world.t;
    match effect {
        SessionEffect::Connect(link) => {
            world.connections += 1;
            let n = world.connections;
            world.sockets.insert(link, n);
            world.links.insert(n, link);
            world.live.insert(n, Vec::new());
            world.note(&format!("connect #{n}"));
            let script =
                t.pointer(&format!("/connections/{}", n - 1)).cloned().unwrap_or(serde_json::json!({ "hang": true }));
            if let Some(refuse) = script.get("refuse") {
                let status = refuse["status"].as_u64().unwrap_or(0) as u16;
                let retry_after = refuse.get("retryAfter").and_then(Value::as_str).map(str::to_owned);
                world.socket_timer(
                    n,
                    refuse.get("after").and_then(Value::as_u64).unwrap_or(0),
                    Happening::Refused(n, status, retry_after),
                );
            } else if let Some(after) = script.get("fail").and_then(Value::as_u64) {
                world.socket_timer(n, after, Happening::Closes(n, 1006, String::new()));
            } else if script.get("hang").is_none() {
                world.socket_timer(
                    n,
                    script.get("openAfter").and_then(Value::as_u64).unwrap_or(0),
                    Happening::Opens(n),
                );
            }
        }
        SessionEffect::Close(link, code, _) => {
            let n = world.sockets[&link];
            if world.live.contains_key(&n) {
                world.note(&format!("close #{n} {code}"));
                world.retire(n);
            }
        }
        SessionEffect::OnOpen(link) => {
            let n = world.sockets[&link];
            world.note(&format!("onOpen #{n}"));
            if let Some(data) = t.pointer("/stream/onOpen/send").and_then(Value::as_str) {
                world.send(link, data.to_owned());
            }
            world.microtasks.push_back(Happening::Feed(SessionEvent::OnOpenDone(link, Ok(()))));
        }
        SessionEffect::State(state) => {
            world.state = state.name();
            world.note(&format!("state {}", state.name()));
        }
        SessionEffect::Deliver(id) => {
            let data = world.messages.remove(&id).unwrap_or_default();
            world.note(&format!("message {data}"));
        }
        SessionEffect::Discard(id) => {
            world.messages.remove(&id);
        }
        SessionEffect::Write(id, link) => {
            let data = world.messages.remove(&id).unwrap_or_default();
            if let Some(n) = world.sockets.get(&link).copied().filter(|n| world.live.contains_key(n)) {
                world.note(&format!("send #{n} {data}"));
            }
        }
        SessionEffect::Ping(link) => {
            let data = t.pointer("/stream/heartbeat/message").and_then(Value::as_str).unwrap_or("ping").to_owned();
            world.send(link, data);
        }
        SessionEffect::Resync(round) => {
            world.note("resync");
            let script = t.pointer(&format!("/stream/resync/{}", world.resyncs)).cloned().unwrap_or(Value::Null);
            world.resyncs += 1;
            let ok = script.get("fail").is_none();
            let what = Happening::Feed(SessionEvent::Resynced(round, ok));
            match script.get("after").and_then(Value::as_u64) {
                Some(after) => {
                    world.timer(after, what);
                }
                None if script.get("hang").is_some() => {}
                None => world.microtasks.push_back(what),
            }
        }
        SessionEffect::Report => {
            let json = retryline::json::to_json(&machine.take_records());
            world.records.extend(serde_json::from_str::<Vec<Value>>(&json).expect("records as JSON"));
        }
        SessionEffect::Stopped(reason) => {
            world.stopped = Some(format!("stopped {}", reason.as_str()));
        }
        SessionEffect::ServerClosed(code, reason) => world.note(&format!("closed {code} {reason}")),
        SessionEffect::Unsent(id, _) => {
            let data = world.messages.remove(&id).unwrap_or_default();
            world.note(&format!("unsent {data}"));
        }
        SessionEffect::ReconnectRefused(..) => world.note("reconnect refused"),
        SessionEffect::Share(_) => {}
    }
}
