//! A call's effect as it crosses the boundary: its code, numbers and text (the table in
//! [`super::call`]).

use super::io;
use super::share;
use crate::call::{Call, Done, Effect};
use crate::json::{to_json, Object};

/// Hands an effect out: its code, numbers and text.
pub fn hand_out(effect: Effect, call: &Call) -> u32 {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    match effect {
        Effect::Send { attempt, timeout_ms, hedge, read_body } => {
            io::numbers(&[f64::from(attempt), timeout_ms as f64, flag(hedge), flag(read_body)]);
            1
        }
        Effect::Abort { attempt, timed_out } => {
            io::numbers(&[f64::from(attempt), flag(timed_out)]);
            2
        }
        Effect::Get { seq, .. } => {
            io::numbers(&[f64::from(seq)]);
            3
        }
        Effect::Set { seq, value, .. } => {
            io::numbers(&[f64::from(seq)]);
            io::output(value);
            4
        }
        Effect::Delete { seq, .. } => {
            io::numbers(&[f64::from(seq)]);
            5
        }
        Effect::Ask { seq, record, error } => {
            io::numbers(&[f64::from(seq)]);
            let mut out = String::new();
            Object::new(&mut out).field("record", &*record).field("error", &error).end();
            io::output(out);
            6
        }
        Effect::Query { attempt } => {
            io::numbers(&[f64::from(attempt)]);
            7
        }
        Effect::Report { from } => {
            io::output(to_json(call.records().get(from..).unwrap_or_default()));
            8
        }
        Effect::Done(done) => {
            let (how, number) = match done {
                Done::Success { attempt } => (0.0, f64::from(attempt)),
                Done::Failed => (1.0, 0.0),
                Done::BodyThrew => (2.0, 0.0),
                Done::Running => (3.0, 0.0),
                Done::Reconciled => (4.0, flag(call.escalated())),
                Done::Stale { age_ms } => (5.0, age_ms as f64),
                Done::Carried => (6.0, 0.0),
            };
            io::numbers(&[how, number]);
            if !matches!(done, Done::Success { .. } | Done::BodyThrew | Done::Carried) {
                io::output(call.outcome_json());
            }
            9
        }
        Effect::ReadBody => 10,
        Effect::Wake => 14,
        Effect::Keep { key } => {
            io::numbers(&[f64::from((key >> 32) as u32), f64::from(key as u32)]);
            15
        }
        Effect::LookStale { seq, key } => {
            io::numbers(&[f64::from(seq), f64::from((key >> 32) as u32), f64::from(key as u32)]);
            16
        }
        Effect::Await { key } => {
            io::numbers(&[f64::from((key >> 32) as u32), f64::from(key as u32)]);
            18
        }
        Effect::Carry { key, ok } => {
            io::numbers(&[f64::from((key >> 32) as u32), f64::from(key as u32), if ok { 1.0 } else { 0.0 }]);
            19
        }
        Effect::Release { caller, json } => {
            io::numbers(&[f64::from(caller)]);
            io::output(json);
            17
        }
        Effect::Retrying { record, after } => {
            let mut out = String::new();
            Object::new(&mut out).field("record", &*record).field("after", &after).end();
            io::output(out);
            20
        }
        Effect::Share(share) => share::hand_out(share),
    }
}
