//! JavaScript errors both ways: made for an invalid option (`TypeError`/`RangeError`, as the
//! platform's own APIs throw them), and read from whatever was thrown, without running its
//! `toString`.

use wasm_bindgen::JsValue;

use super::values::{get, kind};
use crate::input::{ErrorClass, InvalidOption};
use crate::text;

/// `TypeError` or `RangeError` for an invalid option; `context` names where it was given.
pub fn invalid(context: &str, error: &InvalidOption) -> JsValue {
    let message = text::join(&[context, ": ", &error.message()]);
    match error.class() {
        ErrorClass::TypeError => js_sys::TypeError::new(&message).into(),
        ErrorClass::RangeError => js_sys::RangeError::new(&message).into(),
    }
}

/// A `TypeError` with `message`.
pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// A `RangeError` saying `message`.
pub fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}

/// The longest text taken from a thrown value: enough for any platform message.
const MAX_DESCRIPTION: usize = 400;

/// What a thrown value says, as `Name: message (cause: …)`, without calling its `toString`.
pub fn describe(thrown: &JsValue) -> String {
    let mut out = String::new();
    let mut current = thrown.clone();
    for depth in 0..3 {
        if let Some(s) = current.as_string() {
            push_part(&mut out, depth, &s);
            break;
        }
        let read = |name| get(&current, name).ok().and_then(|v| v.as_string());
        match (read("name"), read("message")) {
            (Some(name), Some(message)) if !message.is_empty() => {
                push_part(&mut out, depth, &text::join(&[&name, ": ", &message]))
            }
            (_, Some(message)) if !message.is_empty() => push_part(&mut out, depth, &message),
            (Some(name), _) => push_part(&mut out, depth, &name),
            _ if depth == 0 => push_part(&mut out, depth, kind(&current)),
            _ => {}
        }
        match get(&current, "cause") {
            Ok(cause) if !cause.is_undefined() && !cause.is_null() => current = cause,
            _ => break,
        }
    }
    truncate(out, MAX_DESCRIPTION)
}

fn push_part(out: &mut String, depth: usize, part: &str) {
    if depth == 0 {
        out.push_str(part);
    } else {
        out.push_str(" (cause: ");
        out.push_str(part);
        out.push(')');
    }
}

fn truncate(mut out: String, max: usize) -> String {
    if out.len() > max {
        let mut end = max;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}
