//! The world of a transcript (tests/transcripts/*.json), played natively around the core's call
//! machine: the same scripted network, store, predicate and status query as world.mjs, on a
//! virtual clock whose timers fire in order of (instant, creation) and whose "microtasks" (answers
//! that JavaScript delivers through a resolved promise) run before any timer. It writes the same
//! log lines and collects the same records as the executors do in world.mjs.

use std::collections::{BTreeMap, HashMap, VecDeque};

use retryline::budget::{Budget, BudgetConfig};
use retryline::call::{Call, CallSpec, Ctx, Done, Effect, Event, Head, Purpose, Settings, Stored};
use retryline::classify::Observed;
use retryline::reconcile::Evidence;
use retryline::redact::Secrets;
use retryline::{Draws, Loose, Operation, Policy};
use serde_json::Value;

/// A JSON value as the core reads options.
pub fn loose(value: &Value) -> Loose {
    match value {
        Value::Null => Loose::Absent,
        Value::Bool(b) => Loose::Bool(*b),
        Value::Number(n) => Loose::Number(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Loose::Text(s.clone()),
        Value::Array(items) => Loose::List(items.iter().map(loose).collect()),
        Value::Object(map) => Loose::Map(map.iter().map(|(k, v)| (k.clone(), loose(v))).collect()),
    }
}

#[derive(Clone, Debug)]
enum Happening {
    Go,
    Answer(u32),
    Stored(u32, Stored),
    Answered(u32, Result<bool, String>),
    Queried(u32, Result<Evidence, String>),
    Timer,
    CallerAbort,
    BodyRead,
    /// No response is kept in a transcript's world.
    NoneKept(u32),
}

/// What the world did and what the call reported: the log and the records.
pub struct Played {
    pub log: Vec<String>,
    pub records: Vec<Value>,
}

struct World<'t> {
    t: &'t Value,
    now: u64,
    seq: u64,
    timers: Vec<(u64, u64, Happening)>,
    microtasks: VecDeque<Happening>,
    log: Vec<String>,
    fetches: u32,
    /// Attempt → the fetch that carries it.
    flights: HashMap<u32, u32>,
    /// Fetches still waiting for their answer: the answer's timer, if it has one.
    pending: HashMap<u32, Option<u64>>,
    kept: BTreeMap<String, String>,
    calls: HashMap<&'static str, usize>,
    machine_timer: Option<(u64, u64)>,
    records: Vec<Value>,
    done: Option<String>,
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

    fn script(&mut self, kind: &'static str) -> Value {
        let at = self.calls.entry(kind).or_insert(0);
        let script = self.t.pointer(&format!("/{kind}/{}", *at)).cloned().unwrap_or(Value::Null);
        *at += 1;
        script
    }

    /// An answer as scripted: at once (a microtask), after `after` ms, or never (`hang`).
    fn answer(&mut self, script: &Value, what: Happening) {
        if script.get("hang").is_some_and(|h| h == true) {
            return;
        }
        match script.get("after").and_then(Value::as_u64) {
            Some(after) => {
                self.timer(after, what);
            }
            None => self.microtasks.push_back(what),
        }
    }
}

/// Plays transcript `t` (a call) natively.
pub fn play_call(t: &Value) -> Played {
    let client = t.get("client").cloned().unwrap_or(Value::Null);
    let policy =
        Policy::from_options(&loose(client.get("policy").unwrap_or(&Value::Null))).expect("the client's policy");
    let seed = client.get("seed").and_then(Value::as_u64).unwrap_or(1);
    let draws: Vec<u64> = client
        .get("draws")
        .and_then(Value::as_array)
        .map_or(Vec::new(), |d| d.iter().filter_map(Value::as_u64).collect());
    let mut draws = Draws::scripted(draws, seed);
    let config = match t.get("budget") {
        Some(b) => BudgetConfig::from_options(&loose(b)).expect("the budget's options"),
        None => BudgetConfig::default(),
    };
    let mut budget = Budget::new(config);
    let call = t.get("call").cloned().unwrap_or(Value::Null);
    let method = call.get("method").and_then(Value::as_str).unwrap_or("GET");
    let url = call.get("url").and_then(Value::as_str).unwrap_or("https://api.test/");
    let options = loose(call.get("options").unwrap_or(&Value::Null));
    let mut spec = match options {
        Loose::Absent => CallSpec::of(&policy),
        given => CallSpec::read(&given, &policy).map_err(|e| e.to_string()).expect("the call's options"),
    };
    let read_body = spec.read_body.take().unwrap_or(client.get("readBody").is_some_and(|b| b == true));
    let settings = Settings {
        owner: "transcript".into(),
        read_body,
        has_body: call.get("body").is_some(),
        asks: t.get("shouldRetry").is_some(),
        observed: true,
        secrets: Secrets::default(),
        stale_ms: spec.stale_if_error_ms.unwrap_or(0),
        coalesce: false,
        platform_fetch: true,
        carries: false,
    };
    let purpose = match call.get("purpose").and_then(Value::as_str) {
        Some("reconcile") => Purpose::Reconcile,
        _ => Purpose::Fetch,
    };
    let wall_start = 1_767_225_600_000;
    let op = match purpose {
        Purpose::Fetch => Operation::begin(spec.start(method, url, None, &settings.secrets), 0, wall_start),
        _ => {
            let key = call.get("key").and_then(Value::as_str).unwrap_or("k");
            let overrides = loose(call.pointer("/options/policy").unwrap_or(&Value::Null));
            let policy =
                Policy::reconciliation_default().with_options(&overrides).expect("the reconciliation's policy");
            Operation::begin(retryline::reconcile::status_start(key, policy, "reconcile"), 0, wall_start)
        }
    };
    let mut machine = Call::new(op, purpose, settings, 0, wall_start);
    let mut world = World {
        t,
        now: 0,
        seq: 0,
        timers: Vec::new(),
        microtasks: VecDeque::new(),
        log: Vec::new(),
        fetches: 0,
        flights: HashMap::new(),
        pending: HashMap::new(),
        kept: t
            .pointer("/store/initial")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (format!("retryline:{k}"), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
                    .collect()
            })
            .unwrap_or_default(),
        calls: HashMap::new(),
        machine_timer: None,
        records: Vec::new(),
        done: None,
    };
    if let Some(at) = t.get("abortAt").and_then(Value::as_u64) {
        world.timer(at, Happening::CallerAbort);
    }
    world.microtasks.push_back(Happening::Go);
    let mut steps = 0;
    while world.done.is_none() && steps < 100_000 {
        steps += 1;
        let happening = match world.microtasks.pop_front() {
            Some(h) => h,
            None => {
                let Some(at) =
                    world.timers.iter().enumerate().min_by_key(|(_, (at, seq, _))| (*at, *seq)).map(|(i, _)| i)
                else {
                    break;
                };
                let (at, seq, what) = world.timers.remove(at);
                world.now = world.now.max(at);
                if matches!(what, Happening::Timer) {
                    if world.machine_timer.map(|(_, s)| s) != Some(seq) {
                        continue;
                    }
                    world.machine_timer = None;
                }
                what
            }
        };
        let event = match happening {
            Happening::Go => Event::Go,
            Happening::Timer => Event::Timer,
            Happening::CallerAbort => {
                world.note("caller aborts");
                Event::Abort
            }
            Happening::Answer(n) => {
                world.pending.remove(&n);
                let script = world.t.pointer(&format!("/fetch/{}", n - 1)).cloned().unwrap_or(Value::Null);
                let attempt = world.flights.iter().find(|(_, f)| **f == n).map_or(0, |(a, _)| *a);
                match script.get("error").and_then(Value::as_str) {
                    Some(error) => {
                        world.note(&format!("#{n} fails"));
                        Event::Failed(attempt, Observed::NetworkError, Some(format!("TypeError: {error}")))
                    }
                    None => {
                        let status = script.get("status").and_then(Value::as_u64).unwrap_or(200);
                        world.note(&format!("#{n} answers {status}"));
                        Event::Response(attempt, head(&script))
                    }
                }
            }
            Happening::Stored(seq, stored) => Event::Stored(seq, stored),
            Happening::Answered(seq, answer) => Event::Answered(seq, answer),
            Happening::Queried(attempt, answer) => Event::QueryAnswer(attempt, answer),
            Happening::BodyRead => Event::BodyRead(true),
            Happening::NoneKept(seq) => Event::StaleKept(seq, None),
        };
        let mut ctx = Ctx { now: world.now, wall: wall_start + world.now, draws: &mut draws, budget: &mut budget };
        machine.handle(event, &mut ctx);
        perform(&mut world, &mut machine);
    }
    let done = world.done.clone().unwrap_or_else(|| "never settled".into());
    world.note(&format!("done {done}"));
    Played { log: world.log, records: world.records }
}

/// What the world's response says to the core.
fn head(script: &Value) -> Head {
    let header = |name: &str| {
        script
            .get("headers")
            .and_then(Value::as_object)
            .and_then(|h| h.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
            .and_then(|(_, v)| v.as_str().map(str::to_owned))
    };
    let status = script.get("status").and_then(Value::as_u64).unwrap_or(200);
    let failure = !(200..400).contains(&status);
    let resets = retryline::retry_after::RESET_HEADERS;
    let retry_after = header("retry-after").filter(|_| failure);
    let plain =
        retry_after.as_deref().is_some_and(|v| v.trim().chars().all(|c| c.is_ascii_digit()) && !v.trim().is_empty());
    let reset = if failure && !plain {
        resets.iter().enumerate().find_map(|(i, (name, _))| header(name).map(|v| (i, v)))
    } else {
        None
    };
    Head {
        status: status as f64,
        retry_after,
        hidden: false,
        date: header("date").filter(|_| failure),
        reset,
        used: None,
    }
}

/// Does what the machine says until it has nothing more now, then arms its timer.
fn perform(world: &mut World, machine: &mut Call) {
    while let Some(effect) = machine.poll() {
        match effect {
            Effect::Send { attempt, .. } => {
                world.fetches += 1;
                let n = world.fetches;
                world.note(&format!("fetch #{n}"));
                world.flights.insert(attempt, n);
                let script = world
                    .t
                    .pointer(&format!("/fetch/{}", n - 1))
                    .cloned()
                    .unwrap_or(serde_json::json!({ "hang": true }));
                let timer = match script.get("hang").is_some_and(|h| h == true) {
                    true => None,
                    false => Some(
                        world.timer(script.get("after").and_then(Value::as_u64).unwrap_or(0), Happening::Answer(n)),
                    ),
                };
                world.pending.insert(n, timer);
            }
            Effect::Abort { attempt, timed_out } => {
                let Some(n) = world.flights.get(&attempt).copied() else { continue };
                if let Some(timer) = world.pending.remove(&n) {
                    world.timers.retain(|(_, seq, _)| Some(*seq) != timer);
                    world.note(&format!("abort #{n}{}", if timed_out { " timeout" } else { "" }));
                }
            }
            Effect::Get { seq, key } => store(world, "get", seq, &key, None),
            Effect::Set { seq, key, value } => store(world, "set", seq, &key, Some(value)),
            Effect::Delete { seq, key } => store(world, "delete", seq, &key, None),
            Effect::Ask { seq, record, .. } => {
                world.note(&format!("shouldRetry #{}", record.attempt));
                let script = world.script("shouldRetry");
                let answer = match script.get("fail").and_then(Value::as_str) {
                    Some(fail) => Err(format!("Error: {fail}")),
                    None => Ok(script.get("answer").and_then(Value::as_bool).unwrap_or(true)),
                };
                world.answer(&script, Happening::Answered(seq, answer));
            }
            Effect::Query { attempt } => {
                world.note(&format!("query #{attempt}"));
                let script = world.script("query");
                let answer = match script.get("fail").and_then(Value::as_str) {
                    Some(fail) => Err(format!("Error: {fail}")),
                    None => script
                        .get("evidence")
                        .and_then(Value::as_str)
                        .and_then(Evidence::from_name)
                        .ok_or_else(|| "no evidence".to_owned()),
                };
                world.answer(&script, Happening::Queried(attempt, answer));
            }
            Effect::Report { from } => {
                let json = retryline::json::to_json(machine.records().get(from..).unwrap_or_default());
                world.records.extend(serde_json::from_str::<Vec<Value>>(&json).expect("records as JSON"));
            }
            Effect::Done(done) => {
                world.done = Some(match done {
                    Done::Success { attempt } => {
                        let n = world.flights.get(&attempt).copied().unwrap_or(0);
                        let status = world
                            .t
                            .pointer(&format!("/fetch/{}/status", n.saturating_sub(1)))
                            .and_then(Value::as_u64)
                            .unwrap_or(200);
                        format!("resolved {status}")
                    }
                    Done::Failed => {
                        let out: Value = serde_json::from_str(&machine.outcome_json()).expect("the outcome's JSON");
                        format!("rejected {}", out["reason"].as_str().unwrap_or("?"))
                    }
                    Done::Running => "rejected TypeError".into(),
                    Done::Stale { age_ms } => format!("resolved stale {age_ms}"),
                    Done::Carried => "resolved carried".into(),
                    Done::BodyThrew => "rejected the body's error".into(),
                    Done::Reconciled => {
                        let out: Value = serde_json::from_str(&machine.outcome_json()).expect("the result's JSON");
                        format!(
                            "reconciled resolved={} state={}",
                            out["resolved"],
                            out["state"].as_str().unwrap_or("null")
                        )
                    }
                });
                return;
            }
            Effect::ReadBody => world.microtasks.push_back(Happening::BodyRead),
            Effect::LookStale { seq, .. } => world.microtasks.push_back(Happening::NoneKept(seq)),
            // A transcript's call is alone: no caller joins it.
            Effect::Share(_) | Effect::Wake | Effect::Keep { .. } | Effect::Release { .. } | Effect::Carry { .. } => {}
            // A transcript's budget is this realm's: no other realm's read is awaited.
            Effect::Await { .. } => {}
            Effect::Retrying { record, after } => world.note(&format!(
                "retry #{} after {} wait {}",
                record.attempt,
                after.unwrap_or("-"),
                record.planned_wait_ms
            )),
        }
    }
    let wake = machine.poll_timeout();
    match (wake, world.machine_timer) {
        (Some(at), Some((armed, _))) if at == armed => {}
        (Some(at), _) => {
            let after = at.saturating_sub(world.now);
            let seq = world.timer(after, Happening::Timer);
            world.machine_timer = Some((at.max(world.now), seq));
        }
        (None, _) => world.machine_timer = None,
    }
}

/// A store call: the world's store when the transcript has one (logged, as scripted), else the
/// client's memory (silent, at once).
fn store(world: &mut World, op: &'static str, seq: u32, key: &str, value: Option<String>) {
    let stored = format!("retryline:{key}");
    let scripted = world.t.get("store").is_some();
    if scripted {
        world.note(&format!("store.{op} {stored}"));
    }
    let script = if scripted {
        world.script(match op {
            "get" => "store/get",
            "set" => "store/set",
            _ => "store/delete",
        })
    } else {
        Value::Null
    };
    let answer = match script.get("fail").and_then(Value::as_str) {
        Some(fail) => Stored::Failed(format!("store.{op} failed: Error: {fail}")),
        None => match op {
            "get" => match world.kept.get(&stored) {
                Some(text) => Stored::Value(loose(&serde_json::from_str(text).unwrap_or(Value::Null))),
                None => Stored::Value(Loose::Absent),
            },
            "set" => {
                world.kept.insert(stored, value.unwrap_or_default());
                Stored::Value(Loose::Absent)
            }
            _ => {
                world.kept.remove(&stored);
                Stored::Value(Loose::Absent)
            }
        },
    };
    world.answer(&script, Happening::Stored(seq, answer));
}
