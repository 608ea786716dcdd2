//! The JSON form of a budget's shared state (`Budget::export`), as IndexedDB, a Durable Object or
//! Redis keeps it and as a page's two wasm instances hand it over: one flat array of scope names
//! and whole numbers (ms, µs or µ-tokens below 2^53), read with a cursor. An object with named
//! fields took 2.2 KB of gzipped wasm more to read, in the build every page loads.
//!
//! `[FORMAT, nextGrant, scopes, …]`, then for each scope: its name, `holdUntil`, `banUntil`,
//! `bucketTatUs`, `meterLevelMicro`, `meterUpdatedAt`, `quotaAvailable` (each `null` when the
//! scope has none), the number of queued grants and each one's `id, startAt`, and the breaker's
//! five parts (or one `null`). Then, for each scope in the same order, its requests on the wire and
//! its queue for room (`maxInFlight`): `null`, or the count of `id, endsAt` pairs and those pairs,
//! then the count of `id, priorityRank, latestStart` triples and those. Then, for each scope, its
//! coalesced reads on the wire: their count and each one's identity (high and low 32 bits), token
//! and end. A reader of an earlier version stops before them, and a state without them has no
//! requests on the wire.

use super::FromLoose;
use crate::budget::shared::{SharedRoom, SharedScope, SharedState};
use crate::input::read::{text, whole};
use crate::input::{Invalid, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};
use crate::json::{push_u64, ToJson};

/// The form's first item: a state in another form (an earlier one) is not read.
const FORMAT: u64 = 2;

/// Writes one number of the array, clamped to what JavaScript holds exactly.
fn number(out: &mut String, n: u64) {
    out.push(',');
    push_u64(out, n.min(MAX_SAFE_INTEGER));
}

fn optional(out: &mut String, n: Option<u64>) {
    match n {
        Some(n) => number(out, n),
        None => out.push_str(",null"),
    }
}

impl ToJson for SharedState {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        push_u64(out, FORMAT);
        number(out, self.next_grant);
        number(out, self.scopes.len() as u64);
        for s in &self.scopes {
            out.push(',');
            s.scope.write_json(out);
            number(out, s.hold_until);
            number(out, s.ban_until);
            optional(out, s.bucket_tat_us);
            optional(out, s.meter.map(|(level, _)| u64::try_from(level).unwrap_or(u64::MAX)));
            optional(out, s.meter.map(|(_, at)| at));
            optional(out, s.quota_available.map(u64::from));
            number(out, s.queued.len() as u64);
            for &(id, at) in &s.queued {
                number(out, id);
                number(out, at);
            }
            match s.breaker {
                Some(parts) => parts.iter().for_each(|&p| number(out, p)),
                None => out.push_str(",null"),
            }
        }
        let flights = self.scopes.iter().any(|s| !s.flights.is_empty());
        if flights || self.scopes.iter().any(|s| s.room.is_some()) {
            for s in &self.scopes {
                write_room(out, s.room.as_ref());
            }
        }
        if flights {
            for s in &self.scopes {
                number(out, s.flights.len() as u64);
                for &(key, token, due) in &s.flights {
                    // The identity in two halves: a JavaScript number holds 53 bits.
                    number(out, key >> 32);
                    number(out, key & 0xffff_ffff);
                    number(out, token);
                    number(out, due);
                }
            }
        }
        out.push(']');
    }
}

fn write_room(out: &mut String, room: Option<&SharedRoom>) {
    let Some(room) = room else { return out.push_str(",null") };
    number(out, room.on_wire.len() as u64);
    for &(id, due) in &room.on_wire {
        number(out, id);
        number(out, due);
    }
    number(out, room.waiting.len() as u64);
    for &(id, rank, latest) in &room.waiting {
        number(out, id);
        number(out, rank);
        number(out, latest);
    }
}

/// A state too short for what it claims, or in another form.
fn malformed() -> Invalid {
    InvalidOption::boxed(
        "state",
        Problem::WrongType { expected: "a budget state in this version's form", found: "another" },
    )
}

/// The items of the array, read in order.
struct Cursor<'a>(core::slice::Iter<'a, Loose>);

impl<'a> Cursor<'a> {
    fn item(&mut self) -> Result<&'a Loose, Invalid> {
        self.0.next().ok_or_else(malformed)
    }

    fn number(&mut self) -> Result<u64, Invalid> {
        whole("state", self.item()?, 0, MAX_SAFE_INTEGER)
    }

    /// A number, or `None` for `null`.
    fn optional(&mut self) -> Result<Option<u64>, Invalid> {
        match self.item()? {
            Loose::Absent => Ok(None),
            value => whole("state", value, 0, MAX_SAFE_INTEGER).map(Some),
        }
    }

    /// A count of what follows, which the items left must hold (no allocation on a bare claim).
    fn count(&mut self, each: usize) -> Result<usize, Invalid> {
        let n = self.number()? as usize;
        match n.checked_mul(each) {
            Some(needed) if needed <= self.0.len() => Ok(n),
            _ => Err(malformed()),
        }
    }

    fn scope(&mut self) -> Result<SharedScope, Invalid> {
        let scope = text("state", self.item()?)?.to_owned();
        let (hold_until, ban_until) = (self.number()?, self.number()?);
        let bucket_tat_us = self.optional()?;
        let meter = match (self.optional()?, self.optional()?) {
            (Some(level), Some(at)) => Some((u128::from(level), at)),
            _ => None,
        };
        let quota_available = self.optional()?.map(|q| u32::try_from(q).unwrap_or(u32::MAX));
        let mut queued = Vec::new();
        for _ in 0..self.count(2)? {
            queued.push((self.number()?, self.number()?));
        }
        let breaker = match self.optional()? {
            None => None,
            Some(first) => Some([first, self.number()?, self.number()?, self.number()?, self.number()?]),
        };
        Ok(SharedScope {
            scope,
            hold_until,
            ban_until,
            bucket_tat_us,
            meter,
            quota_available,
            queued,
            breaker,
            room: None,
            flights: Vec::new(),
        })
    }

    /// A scope's requests on the wire and its queue for room, or `None` for `null`.
    fn room(&mut self) -> Result<Option<SharedRoom>, Invalid> {
        let Some(count) = self.optional()? else { return Ok(None) };
        let mut room = SharedRoom::default();
        match count.checked_mul(2) {
            Some(needed) if needed <= self.0.len() as u64 => {}
            _ => return Err(malformed()),
        }
        for _ in 0..count {
            room.on_wire.push((self.number()?, self.number()?));
        }
        for _ in 0..self.count(3)? {
            room.waiting.push((self.number()?, self.number()?, self.number()?));
        }
        Ok(Some(room))
    }
}

impl FromLoose for SharedState {
    fn from_loose(value: &Loose) -> Result<Self, InvalidOption> {
        Self::read_loose(value).map_err(|e| *e)
    }

    fn read_loose(value: &Loose) -> Result<Self, Invalid> {
        let Loose::List(items) = value else {
            return Err(InvalidOption::boxed(
                "state",
                Problem::WrongType { expected: "an array", found: value.kind() },
            ));
        };
        let mut cursor = Cursor(items.iter());
        if cursor.number()? != FORMAT {
            return Err(malformed());
        }
        let next_grant = cursor.number()?;
        // Each scope takes at least 9 items.
        let mut scopes = Vec::new();
        for _ in 0..cursor.count(9)? {
            scopes.push(cursor.scope()?);
        }
        // An earlier version's state ends here.
        if cursor.0.len() > 0 {
            for scope in &mut scopes {
                scope.room = cursor.room()?;
            }
        }
        // Then, from this version on, each scope's coalesced reads on the wire.
        if cursor.0.len() > 0 {
            for scope in &mut scopes {
                for _ in 0..cursor.count(4)? {
                    let key = (cursor.number()? << 32) | (cursor.number()? & 0xffff_ffff);
                    scope.flights.push((key, cursor.number()?, cursor.number()?));
                }
            }
        }
        Ok(SharedState { next_grant, scopes })
    }
}
