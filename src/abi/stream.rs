//! `client.stream`: a stream's connection machine behind plain exports. The glue opens sockets
//! and runs timers; every decision comes back as a code with its numbers in the slot:
//!
//! | code | action | numbers |
//! |---|---|---|
//! | 0 | connect | attempt, connect timeout ms |
//! | 1 | sleep | until (monotonic ms), the timer's ms from now |
//! | 2 | stop | reason code, at ms |
//! | 3 | the handle is gone | — |
//! | 4 | the rotation's connection is now the attempt (nothing new to open); or: done | — |
//!
//! `rl_stream_check` answers 0 fresh, 1 stale, 2 replace, 3 rotate, 4 closed; its number 0 is
//! the next instant to check at (-1: none).

use super::cell::Local;
use super::errors::Stopped;
use super::io::{self, with_input};
use super::operation::{keep, reason_code, Head};
use super::slab::Slab;
use super::state::{Client, Op, Purpose, BUDGETS, CLIENTS, OPS};
use super::{invalid, ms};
use crate::budget::Budget;
use crate::failure::{Failure, Note};
use crate::json::to_json;
use crate::machine::Action;
use crate::reason::Reason;
use crate::stream::{Check, Closed, Stream};

/// One stream, with the client and budget it runs under.
pub struct StreamSlot {
    stream: Stream,
    client: u32,
    budget: u32,
}

static STREAMS: Local<Slab<StreamSlot>> = Local::new(Slab::new());

fn with_stream<R>(handle: u32, f: impl FnOnce(&mut Stream, &mut Client, &mut Budget) -> R) -> Option<R> {
    STREAMS.with(|streams| {
        let slot = streams.get_mut(handle)?;
        CLIENTS.with(|clients| {
            let client = clients.get_mut(slot.client)?;
            BUDGETS.with(|budgets| Some(f(&mut slot.stream, client, budgets.get_mut(slot.budget)?)))
        })
    })
}

/// Hands an action out as its code and numbers.
fn act(action: Action, stream: &Stream, now: u64) -> u32 {
    match action {
        Action::Send { attempt, timeout_ms } => io::numbers(&[f64::from(attempt), timeout_ms as f64]),
        Action::Sleep { until } => {
            let timer = stream.timer_ms(now, until);
            io::numbers(&[until as f64, timer as f64]);
        }
        Action::Stop(stop) => io::numbers(&[reason_code(stop.reason), stop.at_ms as f64]),
    }
    match action {
        Action::Send { .. } => 0,
        Action::Sleep { .. } => 1,
        Action::Stop(_) => 2,
    }
}

/// A stream of `client` under `budget` at `url` (input: the URL, its options in wire form or
/// none, the names that matched the caller's `RegExp`s). Returns its handle, or 0 with the error.
/// Numbers: sendPerSecond (0: unpaced), the connect timeout ms.
#[no_mangle]
pub extern "C" fn rl_stream_begin(client: u32, budget: u32, url: u32, opts: u32, extra: u32) -> u32 {
    let read = super::stream_options::read(client, url, opts, extra);
    let spec = match read {
        Ok(Some(spec)) => spec,
        Ok(None) => return 0,
        Err(error) => return invalid(&error),
    };
    if BUDGETS.with(|b| b.get(budget).is_none()) {
        return 0;
    }
    io::numbers(&[spec.send_per_second.unwrap_or(0) as f64, spec.policy.attempt_timeout_ms() as f64]);
    STREAMS.with(|s| s.insert(StreamSlot { stream: Stream::begin(spec), client, budget }))
}

/// An event of the stream: 0 connect (its first attempt), 1 wake (a planned sleep's timer fired),
/// 2 open (the attempt's socket opened and `onOpen` is done; answers as `rl_stream_check`),
/// 3 rotate (open the rotation's attempt if it may go now: connect, or a stop), 4 rotated (the
/// rotation's socket delivered: it is the stream's now), 5 stop (the caller closed the stream).
#[no_mangle]
pub extern "C" fn rl_stream_event(handle: u32, event: u32, now: f64, wall: f64) -> u32 {
    let (t, w) = (ms(now), ms(wall));
    if event == 2 {
        with_stream(handle, |s, client, budget| s.on_open(t, w, &mut client.draws, budget));
        return rl_stream_check(handle, now, wall, -1.0);
    }
    with_stream(handle, |s, client, budget| {
        let action = match event {
            0 => s.connect(t, w, &mut client.draws, budget),
            1 => s.on_wake(t, budget),
            3 => s.rotate(t, w, &mut client.draws, budget),
            4 => {
                s.on_rotation_open(t, w, &mut client.draws, budget);
                return 4;
            }
            _ => Action::Stop(s.close(t, budget)),
        };
        act(action, s, t)
    })
    .unwrap_or(3)
}

/// Looks at the open connection; `heard` is when its last message came (-1: none yet).
#[no_mangle]
pub extern "C" fn rl_stream_check(handle: u32, now: f64, wall: f64, heard: f64) -> u32 {
    let now = ms(now);
    let heard = (heard >= 0.0).then(|| ms(heard));
    let watching = with_stream(handle, |s, client, budget| s.check(now, ms(wall), heard, &mut client.draws, budget));
    let Some(watching) = watching else { return 4 };
    io::numbers(&[watching.next_at.map_or(-1.0, |at| at as f64)]);
    match watching.check {
        Check::Fresh => 0,
        Check::Stale => 1,
        Check::Replace => 2,
        Check::Rotate => 3,
        Check::Closed => 4,
    }
}

/// A socket closed or its attempt failed: the current one (`rotation` 0) or the rotation's (1,
/// which leaves the current connection as it is). `observed` and `status` as for a request's
/// outcome (a refused upgrade: a response), `close` its close code (-1: none). Input:
/// `Retry-After`, `Date`, what the platform said.
#[no_mangle]
pub extern "C" fn rl_stream_close(
    handle: u32,
    now: f64,
    wall: f64,
    rotation: u32,
    observed: i32,
    status: f64,
    retry_after: u32,
    date: u32,
    error: u32,
    close: i32,
) -> u32 {
    let now = ms(now);
    with_input(|input| {
        let head = Head::read(input, observed, status, retry_after, date, error);
        with_stream(handle, |s, client, budget| {
            let outcome = head.outcome(client);
            if rotation == 1 {
                s.on_rotation_close(now, ms(wall), &outcome, &mut client.draws, budget);
                return 4;
            }
            let close = u16::try_from(close).ok();
            match s.on_close(now, ms(wall), &outcome, close, &mut client.draws, budget) {
                Closed::Act(action) => act(action, s, now),
                Closed::Adopted => 4,
            }
        })
        .unwrap_or(3)
    })
}

/// The records made since the last call, as a JSON array (the output); returns how many.
#[no_mangle]
pub extern "C" fn rl_stream_records(handle: u32) -> u32 {
    let records = with_stream(handle, |s, _, _| s.take_records()).unwrap_or_default();
    io::output(to_json(&records));
    records.len() as u32
}

/// The stream stopped: `{ reason, message, records }` of its last outage, as the output.
#[no_mangle]
pub extern "C" fn rl_stream_error(handle: u32) {
    let json = with_stream(handle, |s, _, _| {
        let reason = s.stopped().map_or(Reason::Aborted, |stop| stop.reason);
        let records = s.outage().map(|op| op.records()).unwrap_or_default();
        let url = s.spec().url.as_deref().unwrap_or_default();
        let message = Failure { method: "stream", url, reason, records, detail: None, note: &Note::None }.message();
        to_json(&Stopped { reason, message, records, key: None })
    });
    io::output(json.unwrap_or_default());
}

#[no_mangle]
pub extern "C" fn rl_stream_free(handle: u32) {
    STREAMS.with(|s| s.remove(handle));
}

/// The operation a shared budget's steps look at for this stream (its outage, or the next one's
/// first attempt), kept as the call operation `subject` (0: a new one); returns its handle.
/// Number 0: its deadline (monotonic ms).
#[no_mangle]
pub extern "C" fn rl_stream_subject(handle: u32, subject: u32, now: f64, wall: f64) -> u32 {
    let (now, wall) = (ms(now), ms(wall));
    let found = STREAMS.with(|streams| {
        let slot = streams.get(handle)?;
        let live = slot.stream.outage().filter(|op| op.stopped().is_none()).cloned();
        Some((live.unwrap_or_else(|| slot.stream.outage_op(now, wall)), slot.client, slot.budget))
    });
    let Some((op, client, budget)) = found else { return 0 };
    io::numbers(&[op.deadline_at() as f64]);
    let kept = OPS.with(|ops| match ops.get_mut(subject) {
        Some(slot) => {
            slot.op = op.clone();
            true
        }
        None => false,
    });
    if kept {
        return subject;
    }
    let (purpose, resumed, refused_records, called_at, given) = (Purpose::Call, false, Vec::new(), (now, wall), None);
    keep(Op { op, client, budget, purpose, resumed, refused_records, called_at, given })
}
