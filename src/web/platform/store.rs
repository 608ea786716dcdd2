//! Where keyed calls keep their state across restarts.
//!
//! Accepted shapes, sync or async: `{ get, set, delete }` (a `Map` works), `{ get, put,
//! delete }` (Durable Object storage, KV), and Web Storage (`localStorage`:
//! `getItem`/`setItem`/`removeItem`). Values are JSON text under `retryline:<key>`, which every
//! one of them can hold. Without a store, a client keeps state in memory.
//!
//! A store call is started here and its answer read here, as the core's [`Stored`]; how long it is
//! waited for is the core's to say (its deadline).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::errors::describe;
use super::loose::{field, plain};
use super::settling::Settling;
use super::values;
use crate::call::Stored;
use crate::input::{InvalidOption, Loose, Problem};
use crate::sorted_map::SortedMap;
use crate::text;

/// Every key is stored under this prefix, so a shared `localStorage` stays readable.
const PREFIX: &str = "retryline:";

pub enum Store {
    Memory(RefCell<SortedMap<String, String>>),
    Methods { target: JsValue, get: JsValue, set: JsValue, delete: JsValue },
}

/// A store call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Get,
    Set,
    Delete,
}

impl Op {
    /// Its method's name in what the store says.
    fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::Set => "set",
            Op::Delete => "delete",
        }
    }
}

/// A store call made: its answer now (memory), or what it settles to.
pub enum Begun {
    Now(Stored),
    Later(Settling),
}

fn method(target: &JsValue, names: &[&str]) -> Result<Option<JsValue>, InvalidOption> {
    for name in names {
        let value = field(target, name).map_err(|e| e.within("store"))?;
        if value.is_function() {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

impl Store {
    pub fn memory() -> Store {
        Store::Memory(RefCell::new(SortedMap::new()))
    }

    /// A store from `options.store`; names what is missing otherwise.
    pub fn from_js(target: &JsValue) -> Result<Store, InvalidOption> {
        let found = (
            method(target, &["get", "getItem"])?,
            method(target, &["set", "put", "setItem"])?,
            method(target, &["delete", "removeItem"])?,
        );
        match found {
            (Some(get), Some(set), Some(delete)) => Ok(Store::Methods { target: target.clone(), get, set, delete }),
            _ => Err(InvalidOption::new(
                "store",
                Problem::WrongType {
                    expected: "an object with get/set/delete (or put, or getItem/setItem/removeItem)",
                    found: values::kind(target),
                },
            )),
        }
    }

    /// Starts `op` on `key` (`value`: what `Set` stores, JSON).
    pub fn start(&self, op: Op, key: &str, value: &str) -> Begun {
        match self {
            Store::Memory(map) => {
                let held = {
                    let mut map = map.borrow_mut();
                    match op {
                        Op::Get => map.get(key).map(|text| JsValue::from_str(text)),
                        Op::Set => {
                            map.insert(key.to_owned(), value.to_owned());
                            None
                        }
                        Op::Delete => {
                            map.remove(key);
                            None
                        }
                    }
                };
                Begun::Now(answer(op, key, Ok(held.unwrap_or(JsValue::NULL))))
            }
            Store::Methods { target, get, set, delete } => {
                let stored = JsValue::from_str(&text::join(&[PREFIX, key]));
                let called = match op {
                    Op::Get => values::call(get, target, &[&stored]),
                    Op::Set => values::call(set, target, &[&stored, &JsValue::from_str(value)]),
                    Op::Delete => values::call(delete, target, &[&stored]),
                };
                Begun::Later(Settling::of(called))
            }
        }
    }
}

/// What `op` on `key` came to (`settled`: what the store's call settled to, or threw), as the
/// core reads it. A `get` hands back the saved state: text the store kept, or an object.
pub fn answer(op: Op, key: &str, settled: Result<JsValue, JsValue>) -> Stored {
    let value = match settled {
        Ok(value) => value,
        Err(thrown) => return Stored::Failed(text::join(&["store.", op.name(), " failed: ", &describe(&thrown)])),
    };
    if op != Op::Get || value.is_undefined() || value.is_null() {
        return Stored::Value(Loose::Absent);
    }
    let value = match value.as_string() {
        Some(text) => match values::parse_json(&text) {
            Ok(parsed) => parsed,
            Err(e) => {
                let words = ["the stored state of key \"", key, "\" is not JSON (", &describe(&e), ")"];
                return Stored::Failed(text::join(&words));
            }
        },
        None => value,
    };
    match plain(&value) {
        Ok(loose) => Stored::Value(loose),
        Err(e) => Stored::Unreadable(e.message()),
    }
}
