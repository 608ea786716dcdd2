//! Where keyed operations keep their state across restarts.
//!
//! Accepted shapes, sync or async: `{ get, set, delete }` (a `Map` works), `{ get, put,
//! delete }` (Durable Object storage, KV), and Web Storage (`localStorage`:
//! `getItem`/`setItem`/`removeItem`). Values are JSON text, which every one of them
//! can hold. Without a store, a client keeps state in memory.

use std::cell::RefCell;
use std::collections::BTreeMap;

use js_sys::{Function, Promise, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::value::field;
use crate::input::{InvalidOption, Problem};

/// Every key is stored under this prefix, so a shared `localStorage` stays readable.
const PREFIX: &str = "retryline:";

pub enum Store {
    Memory(RefCell<BTreeMap<String, String>>),
    Methods { target: JsValue, get: Function, set: Function, delete: Function },
}

fn method(target: &JsValue, names: &[&str]) -> Option<Function> {
    names.iter().find_map(|name| field(target, name).dyn_into::<Function>().ok())
}

impl Store {
    pub fn memory() -> Store {
        Store::Memory(RefCell::new(BTreeMap::new()))
    }

    /// A store from `options.store`; names what is missing otherwise.
    pub fn from_js(target: &JsValue) -> Result<Store, InvalidOption> {
        let found = (
            method(target, &["get", "getItem"]),
            method(target, &["set", "put", "setItem"]),
            method(target, &["delete", "removeItem"]),
        );
        match found {
            (Some(get), Some(set), Some(delete)) => Ok(Store::Methods { target: target.clone(), get, set, delete }),
            _ => Err(InvalidOption::new(
                "store",
                Problem::WrongType {
                    expected: "an object with get/set/delete (or put, or getItem/setItem/removeItem)",
                    found: super::value::loose(target).kind(),
                },
            )),
        }
    }

    /// The saved value (parsed JSON) under `key`, if any.
    pub async fn get(&self, key: &str) -> Result<Option<JsValue>, JsValue> {
        let stored = match self {
            Store::Memory(map) => return map.borrow().get(key).map(|text| JSON::parse(text)).transpose(),
            Store::Methods { target, get, .. } => settle(get.call1(target, &stored_key(key))?).await?,
        };
        if stored.is_undefined() || stored.is_null() {
            return Ok(None);
        }
        // Stores that keep what they were given return the text; others may hand back an object.
        match stored.as_string() {
            Some(text) => JSON::parse(&text).map(Some),
            None => Ok(Some(stored)),
        }
    }

    pub async fn set(&self, key: &str, value: &JsValue) -> Result<(), JsValue> {
        let text: String = JSON::stringify(value)?.into();
        match self {
            Store::Memory(map) => {
                map.borrow_mut().insert(key.to_owned(), text);
            }
            Store::Methods { target, set, .. } => {
                settle(set.call2(target, &stored_key(key), &JsValue::from_str(&text))?).await?;
            }
        }
        Ok(())
    }

    pub async fn delete(&self, key: &str) -> Result<(), JsValue> {
        match self {
            Store::Memory(map) => {
                map.borrow_mut().remove(key);
            }
            Store::Methods { target, delete, .. } => {
                settle(delete.call1(target, &stored_key(key))?).await?;
            }
        }
        Ok(())
    }
}

fn stored_key(key: &str) -> JsValue {
    JsValue::from_str(&format!("{PREFIX}{key}"))
}

/// A value, or what a promise resolves to.
async fn settle(value: JsValue) -> Result<JsValue, JsValue> {
    JsFuture::from(Promise::resolve(&value)).await
}
