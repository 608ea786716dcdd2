//! A call's machine ([`crate::call`]) behind four exports: begin, an event, the next effect, free.
//! Every export takes its numbers from the numbers area (`io::with_args`) and its strings from the
//! input area, their lengths among the numbers; each returns an effect's code, its numbers in the
//! slot and its text in the output. The slot's last number is always when the call's one timer must
//! fire next (-1: none). js/core/machine.js is the only reader, and names every number.
//!
//! | code | effect | numbers | text |
//! |---|---|---|---|
//! | 0 | none | | |
//! | 1 | send | attempt, timeout ms, hedge, read body | |
//! | 2 | abort | attempt, timed out | |
//! | 3 | get | seq | |
//! | 4 | set | seq | the value (JSON) |
//! | 5 | delete | seq | |
//! | 6 | ask | seq | `{ record, error }` |
//! | 7 | query | attempt | |
//! | 8 | report | | the records (JSON array) |
//! | 9 | done | how (0 success, 1 failed, 2 body threw, 3 running, 4 reconciled), attempt or escalated | its JSON |
//! | 10 | read body | | |
//! | 11–13 | a step on the shared budget | see [`super::share`] | |
//! | 14 | wake: a slot of `maxInFlight` freed; tell the budget's other machines (news) | | |
//! | 15 | keep: keep a copy of the response the call resolves with (`staleIfErrorMs`) | | |
//! | 16 | look stale: when was this read's response kept? | seq | |
//! | 17 | release: a caller of a coalesced read leaves before its outcome | caller (0: the first) | its `RetryError`'s JSON |
//! | 18 | await: the same read is on the wire in another tab; listen for its answer | identity (high, low 32 bits) | |
//! | 19 | carry: hand this call's outcome to the tabs awaiting it | identity (high, low), 1 success | |
//! | 20 | retrying: a retry stands, before its sleep or send (observed calls) | | `{ record, after }` |
//!
//! A done's `how` 6 resolves with the response carried from another tab. A done's `how` 5 is a stale answer: its number is the kept response's age (ms), its JSON the
//! failure's (the records end with the `stale` record).

use super::io::{self, len, with_args};
use super::share;
use super::state::{Client, BUDGETS, CLIENTS};
use super::{invalid, ms};
use crate::call::{Call, CallSpec, Ctx, Event, Head, Purpose, Settings, Stored};
use crate::classify::Observed;
use crate::input::{Invalid, InvalidOption, Loose, Problem};
use crate::machine::Operation;
use crate::reconcile::Evidence;
use crate::redact::Secrets;

use super::cell::Local;
use super::slab::Slab;

/// One call, with the client and budget it runs under.
pub struct CallSlot {
    pub call: Call,
    pub client: u32,
    pub budget: u32,
}

pub static CALLS: Local<Slab<CallSlot>> = Local::new(Slab::new());

/// The slot's number that says when the timer must fire.
const TIMER: usize = io::SLOT_NUMBERS - 1;

/// Begins a call of `client` under `budget`. Numbers: now, wall, purpose (0 fetch, 1 reconcile,
/// 2 resolve), flags (1 the request has a body, 2 shouldRetry given, 4 records observed, 8 sent
/// through the platform's own fetch, 16 the shell carries answers across realms), then the
/// lengths of: the URL, the method, the scope (absent: the URL's origin), the options (wire form),
/// the names the caller's `RegExp`s matched (NUL-separated), the key and `resolve`'s state (wire
/// form), the request's headers (names and values, NUL-separated; absent: unreadable). Returns the
/// call, or 0 with the error (number 1: which argument, for reconcile: 0 the key, 1 its options or
/// state). Numbers: 1 if the scope's budget reads a used-weight header (its name is the output);
/// the caller's number if the read joined a running call of the same request (`coalesce`), whose
/// handle it then returns.
#[no_mangle]
pub extern "C" fn rl_call_begin(client: u32, budget: u32) -> u32 {
    let begun =
        with_args(|[now, wall, purpose, flags, url, method, scope, opts, extra, key, state, headers], input| {
            let (url, method, scope) = (input.text(len(url)), input.text(len(method)), input.optional(len(scope)));
            let options = input.wire(len(opts));
            let extra = super::client::names(input.text(len(extra)));
            let (key, state) = (input.wire(len(key)), input.wire(len(state)));
            // Absent: the request's headers could not be read, and it joins nothing.
            let headers = input.optional(len(headers));
            let flags = ms(flags);
            let (now, wall) = (ms(now), ms(wall));
            CLIENTS.with(|clients| {
                let Some(owner) = clients.get(client) else { return Ok(None) };
                let settings = Settings {
                    owner: owner.owner.clone(),
                    read_body: owner.read_body,
                    has_body: flags & 1 != 0,
                    asks: flags & 2 != 0,
                    observed: flags & 4 != 0,
                    secrets: Secrets {
                        names: owner.secrets.clone(),
                        matched: extra.iter().map(|s| (*s).to_owned()).collect(),
                    },
                    stale_ms: owner.stale_if_error_ms,
                    coalesce: owner.coalesce,
                    platform_fetch: flags & 8 != 0,
                    carries: flags & 16 != 0,
                };
                let reconciles = cfg!(feature = "reconcile");
                let call = match purpose as u32 {
                    1 | 2 if !reconciles => Err((
                        InvalidOption::boxed(
                            "key",
                            Problem::NotInThisEntry { what: "reconciliation", import: "RetryClient" },
                        ),
                        0.0,
                    )),
                    1 => reconcile(owner, key, options, settings, now, wall),
                    2 => resolve(owner, key, state, settings, now, wall),
                    _ => fetch(owner, url, method, scope, options.map_err(|e| (e, 1.0)), settings, now, wall).map(
                        |mut call| {
                            if let Some(headers) = headers.filter(|_| call.wants_identity()) {
                                call.offer(crate::call::request_key(call.operation().scope(), method, url, headers));
                            }
                            call
                        },
                    ),
                };
                call.map(Some)
            })
        });
    let call = match begun {
        Ok(Some(call)) => call,
        Ok(None) => return 0,
        Err((error, argument)) => {
            invalid(&error);
            io::number(1, argument);
            return 0;
        }
    };
    let header =
        BUDGETS.with(|b| b.get(budget).map(|b| b.used_weight_header(call.operation().scope()).map(str::to_owned)));
    let Some(header) = header else { return 0 };
    // Only a read that may join looks among the calls running (a scan per coalescing read).
    let joined = call
        .joinable()
        .then(|| {
            CALLS.with(|calls| {
                calls.each_mut().find_map(|(handle, slot)| {
                    let same_client = slot.client == client;
                    let id = if slot.budget == budget { slot.call.join(&call, same_client)? } else { return None };
                    Some((handle, id))
                })
            })
        })
        .flatten();
    io::numbers(&[if header.is_some() { 1.0 } else { 0.0 }, joined.map_or(0.0, |(_, id)| f64::from(id))]);
    if let Some(name) = header {
        io::output(name);
    }
    match joined {
        Some((handle, _)) => handle,
        None => CALLS.with(|calls| calls.insert(CallSlot { call, client, budget })),
    }
}

type Begun = Result<Call, (Invalid, f64)>;

#[allow(clippy::too_many_arguments)]
fn fetch(
    owner: &Client,
    url: &str,
    method: &str,
    scope: Option<&str>,
    options: Result<Loose, (Invalid, f64)>,
    mut settings: Settings,
    now: u64,
    wall: u64,
) -> Begun {
    let spec = match options? {
        Loose::Absent => CallSpec::of(&owner.policy),
        given => CallSpec::read(&given, &owner.policy).map_err(|e| (e, 1.0))?,
    };
    lacking(&spec).map_err(|e| (e, 1.0))?;
    if let Some(read_body) = spec.read_body {
        settings.read_body = read_body;
    }
    if let Some(ms) = spec.stale_if_error_ms {
        settings.stale_ms = ms;
    }
    if let Some(coalesce) = spec.coalesce {
        settings.coalesce = coalesce;
    }
    let start = spec.start(method, url, scope, &settings.secrets);
    Ok(Call::new(Operation::begin(start, now, wall), Purpose::Fetch, settings, now, wall))
}

/// A call this build cannot run: the entry that can is named.
fn lacking(spec: &CallSpec) -> Result<(), Invalid> {
    let lacks = |field: &str, what: &'static str| {
        Err(InvalidOption::boxed(field, Problem::NotInThisEntry { what, import: "RetryClient" }))
    };
    if spec.key.is_some() && !cfg!(feature = "keyed") {
        return lacks("key", "a keyed call");
    }
    if spec.policy.max_hedges() > 0 && !cfg!(feature = "hedge") {
        return lacks("policy.maxHedges", "hedged reads");
    }
    Ok(())
}

fn reconcile(
    owner: &Client,
    key: Result<Loose, Invalid>,
    options: Result<Loose, Invalid>,
    settings: Settings,
    now: u64,
    wall: u64,
) -> Begun {
    let _ = owner;
    let key = key.and_then(|k| crate::input::read::name("key", &k)).map_err(|e| (e, 0.0))?;
    let options = options.map_err(|e| (e, 1.0))?;
    let mut overrides = Loose::Absent;
    for (field, value) in options.fields("options").map_err(|e| (e, 1.0))? {
        match field.as_str() {
            "policy" => overrides = value.clone(),
            _ => return Err((InvalidOption::boxed(field, Problem::UnknownField), 1.0)),
        }
    }
    let policy = crate::policy::Policy::reconciliation_default().read_over(&overrides).map_err(|e| (e, 1.0))?;
    Ok(Call::settling(&key, Purpose::Reconcile, policy, settings, now, wall))
}

fn resolve(
    owner: &Client,
    key: Result<Loose, Invalid>,
    state: Result<Loose, Invalid>,
    settings: Settings,
    now: u64,
    wall: u64,
) -> Begun {
    let key = key.and_then(|k| crate::input::read::name("key", &k)).map_err(|e| (e, 0.0))?;
    let given = state.map_err(|e| (e, 1.0))?;
    let evidence = match &given {
        Loose::Text(name) => Evidence::from_name(name).filter(|e| e.resolves()),
        _ => None,
    };
    let allowed = "\"filled\", \"partially-filled\", \"open\", \"canceled\", \"rejected\"";
    let evidence = evidence.ok_or_else(|| (InvalidOption::boxed("state", Problem::UnknownName { allowed }), 1.0))?;
    Ok(Call::settling(&key, Purpose::Resolve(evidence), owner.policy.clone(), settings, now, wall))
}

/// Feeds event `event` (codes in js/core/machine.js). Numbers: now, wall, then the event's own:
///
/// | code | event | numbers (lengths of strings, in order) |
/// |---|---|---|
/// | 0 | go | |
/// | 1 | entered | seq, the state's length (wire form; absent: none read) |
/// | 2 | body read | 1 read, 0 threw |
/// | 3 | headed | attempt |
/// | 4 | response | attempt, status, weight used (-1), reset header index (-1), lengths of Retry-After (or hidden), Date, the reset header |
/// | 5 | failed | attempt, observed code, length of the platform's words |
/// | 6 | stored | seq, 1 answered (the value's length, wire form) or 0 failed (the words' length) |
/// | 7 | answered | seq, 1 go on, 0 no, 2 threw (the words' length) |
/// | 8 | query answer | attempt, evidence code (-1: failed, the words' length) |
/// | 9 | timer | |
/// | 10 | abort | |
/// | 11 | news | |
/// | 12 | stale kept | seq, when the kept response was kept (wall ms; -1: none) |
/// | 13 | leave | the joined caller who aborted |
/// | 14 | carried | 1: the read awaited in another realm succeeded (the shell holds its response), 0: it failed |
///
/// Returns the first effect's code (see the module); 0 if the call is gone.
#[no_mangle]
pub extern "C" fn rl_call_event(handle: u32, event: u32) -> u32 {
    let read = with_args(|[now, wall, a, b, c, d, e, f, g], input| {
        let event = match event {
            0 => Event::Go,
            1 => Event::Entered(a as u32, share::entered_state(input, len(b))),
            2 => Event::BodyRead(a == 1.0),
            3 => Event::Headed(a as u32),
            4 => {
                let hidden = len(e) == super::UNREADABLE;
                let retry_after = if hidden { None } else { input.optional(len(e)).map(str::to_owned) };
                let date = input.optional(len(f)).map(str::to_owned);
                let reset = input.optional(len(g)).map(str::to_owned);
                let head = Head {
                    status: b,
                    retry_after,
                    hidden,
                    date,
                    reset: reset.and_then(|v| usize::try_from(d as i64).ok().map(|at| (at, v))),
                    used: (c >= 0.0 && c.is_finite()).then(|| c as u64),
                };
                Event::Response(a as u32, head)
            }
            5 => {
                let observed = super::code(Observed::ALL, b as i32).unwrap_or(Observed::NetworkError);
                Event::Failed(a as u32, observed, input.optional(len(c)).map(str::to_owned))
            }
            6 => {
                let answer = match b == 1.0 {
                    true => input.wire(len(c)).map_or_else(|e| Stored::Unreadable(e.message()), Stored::Value),
                    false => Stored::Failed(input.text(len(c)).to_owned()),
                };
                Event::Stored(a as u32, answer)
            }
            7 => Event::Answered(
                a as u32,
                match b as u32 {
                    1 => Ok(true),
                    0 => Ok(false),
                    _ => Err(input.text(len(c)).to_owned()),
                },
            ),
            8 => Event::QueryAnswer(
                a as u32,
                super::code(Evidence::ALL, b as i32).ok_or_else(|| input.text(len(c)).to_owned()),
            ),
            9 => Event::Timer,
            10 => Event::Abort,
            12 => Event::StaleKept(a as u32, (b >= 0.0 && b.is_finite()).then(|| b as u64)),
            13 => Event::Leave(a as u32),
            14 => Event::Carried(a == 1.0),
            _ => Event::News,
        };
        (ms(now), ms(wall), event)
    });
    let (now, wall, event) = read;
    let stepped = with_call(handle, |call, client, budget| {
        let mut ctx = Ctx { now, wall, draws: &mut client.draws, budget };
        call.handle(event, &mut ctx);
    });
    match stepped {
        Some(()) => rl_call_poll(handle),
        None => GONE,
    }
}

/// The code that says the call, its client or its budget was freed: nothing can step it again.
const GONE: u32 = 255;

/// The call's next effect (see the module); 0 when there is none now.
#[no_mangle]
pub extern "C" fn rl_call_poll(handle: u32) -> u32 {
    let code = CALLS.with(|calls| {
        let slot = calls.get_mut(handle)?;
        let call = &mut slot.call;
        let code = match call.poll() {
            Some(effect) => super::call_out::hand_out(effect, call),
            None => 0,
        };
        io::number(TIMER, call.poll_timeout().map_or(-1.0, |t| t as f64));
        Some(code)
    });
    code.unwrap_or(0)
}

#[no_mangle]
pub extern "C" fn rl_call_free(handle: u32) {
    CALLS.with(|calls| calls.remove(handle));
}

fn with_call<R>(handle: u32, f: impl FnOnce(&mut Call, &mut Client, &mut crate::budget::Budget) -> R) -> Option<R> {
    CALLS.with(|calls| {
        let slot = calls.get_mut(handle)?;
        CLIENTS.with(|clients| {
            let client = clients.get_mut(slot.client)?;
            BUDGETS.with(|budgets| Some(f(&mut slot.call, client, budgets.get_mut(slot.budget)?)))
        })
    })
}
