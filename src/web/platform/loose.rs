//! JavaScript values into [`Loose`] — a stored state, a share's state, a call's outcome — walked through the guarded
//! reads of [`super::values`] rather than serde, so functions, symbols and cycles are named in
//! errors, and a getter or `Proxy` trap that throws becomes an error that names the field it was
//! reading.

use wasm_bindgen::JsValue;

use super::errors::describe;
use super::values::{self, kind};
use crate::input::{InvalidOption, Loose, Problem};

/// Deeper than any option object; stops a cyclic object from exhausting the stack.
const MAX_DEPTH: u32 = 32;

/// Longer lists than any option holds; stops a `length` of 2^32 from taking forever.
const MAX_ITEMS: u32 = 100_000;

/// The value as plain data, its errors named from the value itself (`a.b`, `[2]`).
pub fn plain(value: &JsValue) -> Result<Loose, InvalidOption> {
    convert(value, 0)
}

/// A failed read of `field`: what the getter or trap threw, in a `TypeError`.
pub fn unreadable(field: &str, thrown: &JsValue) -> InvalidOption {
    InvalidOption::new(field, Problem::Unreadable { detail: describe(thrown) })
}

fn convert(value: &JsValue, depth: u32) -> Result<Loose, InvalidOption> {
    if value.is_undefined() || value.is_null() {
        return Ok(Loose::Absent);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Loose::Bool(b));
    }
    if let Some(x) = value.as_f64() {
        return Ok(Loose::Number(x));
    }
    if let Some(s) = value.as_string() {
        return Ok(Loose::Text(s));
    }
    if !value.is_object() {
        return Ok(Loose::Other(kind(value)));
    }
    if depth >= MAX_DEPTH {
        return Ok(Loose::Other("an object nested too deeply (a cycle?)"));
    }
    if values::is_array(value).map_err(|e| unreadable("", &e))? {
        let length = values::get(value, "length").map_err(|e| unreadable("length", &e))?.as_f64().unwrap_or(0.0);
        if !(0.0..=f64::from(MAX_ITEMS)).contains(&length) {
            return Ok(Loose::Other("an array too long to be an option"));
        }
        let mut items = Vec::with_capacity(length as usize);
        for i in 0..length as u32 {
            // The path `[i]` is built only for an error.
            let item = values::item(value, i).map_err(|e| unreadable("", &e).within_item(i as usize))?;
            items.push(convert(&item, depth + 1).map_err(|e| e.within_item(i as usize))?);
        }
        return Ok(Loose::List(items));
    }
    let keys = values::keys(value).map_err(|e| unreadable("", &e))?;
    let mut entries = Vec::with_capacity(keys.len());
    for key in keys {
        let item = values::get(value, &key).map_err(|e| unreadable(&key, &e))?;
        let converted = convert(&item, depth + 1).map_err(|e| e.within(&key))?;
        entries.push((key, converted));
    }
    Ok(Loose::Map(entries))
}

/// A property of an object of the caller's, its getter's throw named as an error of `field`.
pub fn field(object: &JsValue, field: &str) -> Result<JsValue, InvalidOption> {
    values::get(object, field).map_err(|e| unreadable(field, &e))
}
