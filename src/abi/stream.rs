//! A stream's session ([`crate::stream::session`]) behind four exports: begin, an event, the next
//! effect, free. As for calls ([`super::call`]): numbers in the numbers area, strings in the input
//! area, an effect's code returned with its numbers in the slot (the last: the timer, -1 none).
//!
//! | code | effect | numbers | text |
//! |---|---|---|---|
//! | 0 | none | | |
//! | 1 | connect | link | |
//! | 2 | close | link, code | the reason |
//! | 3 | run onOpen | link | |
//! | 4 | state | its index (connecting, open, stale, waiting, stopped) | |
//! | 5 | deliver message id | message id | |
//! | 6 | write | message id, link | |
//! | 7 | ping | link | |
//! | 8 | run resync | round | |
//! | 9 | report | | the records (JSON array) |
//! | 10 | stopped | reason code | `{ reason, message, records }` |
//! | 11–13 | a step on the shared budget | see [`super::share`] | |
//! | 14 | discard message id (it goes nowhere) | message id | |
//! | 15 | the server closed a connection that was up | code | its reason |
//! | 16 | a message sent will never be written | message id | why |
//! | 17 | `reconnect()` refused | reason code | why |
//! | 255 | gone: the stream, its client or its budget was freed | | |

use super::cell::Local;
use super::io::{self, len, with_args};
use super::slab::Slab;
use super::state::{BUDGETS, CLIENTS};
use super::{invalid, ms};
use crate::call::Ctx;
use crate::json::to_json;
use crate::reason::Reason;
use crate::stream::session::{PageSignal, Session, SessionEffect, SessionEvent, SessionSettings, StreamState};
use crate::stream::{Stream, StreamSpec};

/// One stream, with the client and budget it runs under.
struct StreamSlot {
    session: Session,
    client: u32,
    budget: u32,
}

static STREAMS: Local<Slab<StreamSlot>> = Local::new(Slab::new());

/// A stream of `client` under `budget`. Numbers: now, wall (unused: the first event starts it),
/// flags (1 onOpen given, 2 resync given, 4 records observed), the heartbeat's period (0: none),
/// then the lengths of the URL, its options (wire form) and the names the caller's `RegExp`s
/// matched. Returns its handle, or 0 with the error.
#[no_mangle]
pub extern "C" fn rl_stream_begin(client: u32, budget: u32) -> u32 {
    let read: Result<Option<Session>, crate::input::Invalid> =
        with_args(|[_, _, flags, heartbeat, url, opts, extra], input| {
            let (url, options, extra) =
                (input.text(len(url)), input.wire(len(opts)), super::client::names(input.text(len(extra))));
            let flags = ms(flags);
            CLIENTS.with(|clients| {
                let Some(owner) = clients.get(client) else { return Ok(None) };
                let mut spec = StreamSpec::read(&options?, url)?;
                // No URL: the caller's provider gives one per attempt (and the stream is named by its scope).
                spec.url = (!url.is_empty()).then(|| owner.redact(url, true, &extra));
                let settings = SessionSettings {
                    on_open: flags & 1 != 0,
                    resync: flags & 2 != 0,
                    observed: flags & 4 != 0,
                    heartbeat_ms: (ms(heartbeat) > 0).then(|| ms(heartbeat)),
                };
                Ok(Some(Session::new(Stream::begin(spec), settings)))
            })
        });
    let session = match read {
        Ok(Some(session)) => session,
        Ok(None) => return 0,
        Err(error) => return invalid(&error),
    };
    if BUDGETS.with(|b| b.get(budget).is_none()) {
        return 0;
    }
    STREAMS.with(|s| s.insert(StreamSlot { session, client, budget }))
}

/// Feeds event `event`. Numbers: now, wall, then the event's own:
///
/// | code | event | numbers |
/// |---|---|---|
/// | 0 | start | |
/// | 1 | entered | seq, the state's length (wire form; absent: none) |
/// | 2 | opened | link |
/// | 3 | onOpen done | link, 1 done or 0 threw, the length of what it threw |
/// | 4 | message | link, message id (the shell's, until deliver or discard) |
/// | 5 | closed | link, code, the reason's length |
/// | 6 | refused | link, status, the lengths of Retry-After and Date |
/// | 7 | failed | link, the length of what the platform said |
/// | 8 | timer | |
/// | 9 | send | message id, link |
/// | 10 | close | the caller's code (0: none), its reason's length |
/// | 11 | resynced | round, 1 done or 0 failed |
/// | 12 | gap | |
/// | 13 | reconnect | the caller's code (0: none), its reason's length |
/// | 14 | the page | offline 0, online 1, hidden 2, visible 3, wake 4 |
///
/// Returns the first effect's code; 0 if the stream is gone.
#[no_mangle]
pub extern "C" fn rl_stream_event(handle: u32, event: u32) -> u32 {
    let (now, wall, event) = with_args(|[now, wall, a, b, c, d], input| {
        let link = a as u32;
        let text = |input: &mut io::Input, n: f64| input.optional(len(n)).map(str::to_owned);
        let event = match event {
            0 => SessionEvent::Start,
            1 => SessionEvent::Entered(link, super::share::entered_state(input, len(b))),
            2 => SessionEvent::Opened(link),
            3 => {
                SessionEvent::OnOpenDone(link, if b == 1.0 { Ok(()) } else { Err(text(input, c).unwrap_or_default()) })
            }
            4 => SessionEvent::Message(link, b as u32),
            5 => SessionEvent::Closed(link, u16::try_from(ms(b)).unwrap_or(1006), text(input, c).unwrap_or_default()),
            6 => {
                let (retry_after, date) = (text(input, c), text(input, d));
                SessionEvent::Refused(link, u16::try_from(ms(b)).unwrap_or(0), retry_after, date)
            }
            7 => SessionEvent::Failed(link, text(input, b).unwrap_or_default()),
            8 => SessionEvent::Timer,
            9 => SessionEvent::Send(link, b as u32),
            // The caller's own code and reason, or none (0).
            10 if a > 0.0 => {
                SessionEvent::CloseWith(u16::try_from(ms(a)).unwrap_or(1000), text(input, b).unwrap_or_default())
            }
            10 => SessionEvent::Close,
            11 => SessionEvent::Resynced(link, b == 1.0),
            13 => SessionEvent::Reconnect(u16::try_from(ms(a)).unwrap_or(1000), text(input, b).unwrap_or_default()),
            14 => {
                let signals = [PageSignal::Offline, PageSignal::Online, PageSignal::Hidden, PageSignal::Visible];
                SessionEvent::Page(signals.get(link as usize).copied().unwrap_or(PageSignal::Wake))
            }
            _ => SessionEvent::Gap,
        };
        (ms(now), ms(wall), event)
    });
    let stepped = STREAMS.with(|streams| {
        let slot = streams.get_mut(handle)?;
        CLIENTS.with(|clients| {
            let client = clients.get_mut(slot.client)?;
            BUDGETS.with(|budgets| {
                let budget = budgets.get_mut(slot.budget)?;
                let mut ctx = Ctx { now, wall, draws: &mut client.draws, budget };
                slot.session.handle(event, &mut ctx);
                Some(())
            })
        })
    });
    match stepped {
        Some(()) => rl_stream_poll(handle),
        // The stream, its client or its budget was freed: nothing can step it again.
        None => 255,
    }
}

/// The stream's next effect; 0 when there is none now.
#[no_mangle]
pub extern "C" fn rl_stream_poll(handle: u32) -> u32 {
    STREAMS.with(|streams| {
        let Some(slot) = streams.get_mut(handle) else { return 0 };
        let session = &mut slot.session;
        let code = match session.poll() {
            Some(effect) => hand_out(effect, session),
            None => 0,
        };
        io::number(io::SLOT_NUMBERS - 1, session.poll_timeout().map_or(-1.0, |t| t as f64));
        code
    })
}

#[no_mangle]
pub extern "C" fn rl_stream_free(handle: u32) {
    STREAMS.with(|s| s.remove(handle));
}

fn hand_out(effect: SessionEffect, session: &mut Session) -> u32 {
    let one = |n: u32| io::numbers(&[f64::from(n)]);
    match effect {
        SessionEffect::Connect(link) => (one(link), 1).1,
        SessionEffect::Close(link, code, reason) => {
            io::numbers(&[f64::from(link), f64::from(code)]);
            match reason {
                std::borrow::Cow::Borrowed(words) => io::output_static(words.as_bytes()),
                std::borrow::Cow::Owned(words) => io::output(words),
            }
            2
        }
        SessionEffect::OnOpen(link) => (one(link), 3).1,
        SessionEffect::State(state) => {
            let all = [
                StreamState::Connecting,
                StreamState::Open,
                StreamState::Stale,
                StreamState::Waiting,
                StreamState::Stopped,
            ];
            one(all.iter().position(|s| *s == state).unwrap_or(0) as u32);
            4
        }
        SessionEffect::Deliver(id) => (one(id), 5).1,
        SessionEffect::Discard(id) => (one(id), 14).1,
        SessionEffect::Write(id, link) => {
            io::numbers(&[f64::from(id), f64::from(link)]);
            6
        }
        SessionEffect::Ping(link) => (one(link), 7).1,
        SessionEffect::Resync(round) => (one(round), 8).1,
        SessionEffect::Report => {
            io::output(to_json(&session.take_records()));
            9
        }
        SessionEffect::Stopped(reason) => {
            one(Reason::ALL.iter().position(|&r| r == reason).unwrap_or(0) as u32);
            io::output(session.stop_json());
            10
        }
        SessionEffect::Share(share) => super::share::hand_out(share),
        SessionEffect::ServerClosed(code, reason) => {
            io::numbers(&[f64::from(code)]);
            io::output(reason);
            15
        }
        SessionEffect::Unsent(id, why) => {
            io::numbers(&[f64::from(id)]);
            io::output_static(why.as_bytes());
            16
        }
        SessionEffect::ReconnectRefused(reason, why) => {
            one(Reason::ALL.iter().position(|&r| r == reason).unwrap_or(0) as u32);
            io::output(why);
            17
        }
    }
}
