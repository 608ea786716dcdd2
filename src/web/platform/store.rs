//! Where keyed operations keep their state across restarts.
//!
//! Accepted shapes, sync or async: `{ get, set, delete }` (a `Map` works), `{ get, put,
//! delete }` (Durable Object storage, KV), and Web Storage (`localStorage`:
//! `getItem`/`setItem`/`removeItem`). Values are JSON text, which every one of them
//! can hold. Without a store, a client keeps state in memory.
//!
//! Every call races the operation's deadline (and, where the caller may still give up, its
//! abort): a store that never settles is bounded like a fetch.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::errors::describe;
use super::loose::field;
use super::race::{Ended, Race};
use super::values;
use crate::failure::{still_pending, Cut};
use crate::input::{InvalidOption, Problem};
use crate::record::Pending;
use crate::sorted_map::SortedMap;
use crate::text;

/// Every key is stored under this prefix, so a shared `localStorage` stays readable.
const PREFIX: &str = "retryline:";

pub enum Store {
    Memory(RefCell<SortedMap<String, String>>),
    Methods { target: JsValue, get: JsValue, set: JsValue, delete: JsValue },
}

/// Why a store call gave no answer.
pub enum Fault {
    /// It threw, rejected, or returned what cannot be read; `detail` says so.
    Failed { pending: Pending, detail: String },
    /// The race was cut while it was pending.
    Cut { pending: Pending, cut: Cut },
}

impl Fault {
    /// What went wrong, as a record and a message say it.
    pub fn describe(self) -> String {
        match self {
            Fault::Failed { detail, .. } => detail,
            Fault::Cut { pending, cut } => still_pending(pending, cut),
        }
    }
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

    /// The saved value (parsed JSON) under `key`, if any.
    pub async fn get(&self, key: &str, race: &Race) -> Result<Option<JsValue>, Fault> {
        let pending = Pending::StoreGet;
        let stored = match self {
            Store::Memory(map) => match map.borrow().get(key) {
                Some(text) => JsValue::from_str(text),
                None => return Ok(None),
            },
            Store::Methods { target, get, .. } => {
                settle(race, values::call(get, target, &[&stored_key(key)]), pending).await?
            }
        };
        if stored.is_undefined() || stored.is_null() {
            return Ok(None);
        }
        // Stores that keep what they were given return the text; others may hand back an object.
        match stored.as_string() {
            Some(text) => values::parse_json(&text).map(Some).map_err(|e| Fault::Failed {
                pending,
                detail: text::join(&["the stored state of key \"", key, "\" is not JSON (", &describe(&e), ")"]),
            }),
            None => Ok(Some(stored)),
        }
    }

    /// Stores `text` (JSON) under `key`.
    pub async fn set(&self, key: &str, text: String, race: &Race) -> Result<(), Fault> {
        let pending = Pending::StoreSet;
        match self {
            Store::Memory(map) => {
                map.borrow_mut().insert(key.to_owned(), text);
            }
            Store::Methods { target, set, .. } => {
                let called = values::call(set, target, &[&stored_key(key), &JsValue::from_str(&text)]);
                settle(race, called, pending).await?;
            }
        }
        Ok(())
    }

    pub async fn delete(&self, key: &str, race: &Race) -> Result<(), Fault> {
        match self {
            Store::Memory(map) => {
                map.borrow_mut().remove(key);
            }
            Store::Methods { target, delete, .. } => {
                settle(race, values::call(delete, target, &[&stored_key(key)]), Pending::StoreDelete).await?;
            }
        }
        Ok(())
    }
}

fn stored_key(key: &str) -> JsValue {
    JsValue::from_str(&text::join(&[PREFIX, key]))
}

fn failed(pending: Pending, thrown: &JsValue) -> Fault {
    let call = match pending {
        Pending::StoreGet => "get",
        Pending::StoreDelete => "delete",
        _ => "set",
    };
    Fault::Failed { pending, detail: text::join(&["store.", call, " failed: ", &describe(thrown)]) }
}

/// A store call's answer, or what it threw, within the race.
async fn settle(race: &Race, called: Result<JsValue, JsValue>, pending: Pending) -> Result<JsValue, Fault> {
    match race.wait_call(called).await {
        Ended::Settled(Ok(value)) => Ok(value),
        Ended::Settled(Err(thrown)) => Err(failed(pending, &thrown)),
        Ended::Cut(cut) => Err(Fault::Cut { pending, cut }),
    }
}
