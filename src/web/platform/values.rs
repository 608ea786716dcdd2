//! Every JavaScript call that can run the caller's code — a getter, a `Proxy` trap, a store's
//! method, a thenable — through shell.js's values section (and `catch`).
//!
//! A JavaScript exception that unwinds through a wasm frame skips the frame's epilogue and
//! leaks shadow stack until the module dies. A getter, a `Proxy` trap, a thenable or a
//! `Response` subclass can throw from almost any property read or call, so user values are
//! touched only through these functions: a throw comes back as an `Err`, never as an unwind.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use wasm_bindgen::prelude::*;

use super::clock;
use crate::text;

// shell.js's values never throw: a throw comes back as its FAILED value (see there why `catch` alone is
// not enough). `catch` stays as a second net, for a throw the guard cannot catch.
#[wasm_bindgen(module = "/src/web/platform/shell.js")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn failed() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = watchFailures)]
    fn js_watch_failures(memory: &JsValue, at: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(catch)]
    fn taken() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = get)]
    fn js_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = call)]
    fn call0(f: &JsValue, this: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = call)]
    fn call1(f: &JsValue, this: &JsValue, a: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = call)]
    fn call2(f: &JsValue, this: &JsValue, a: &JsValue, b: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = construct)]
    fn construct1(class: &JsValue, a: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = construct)]
    fn construct2(class: &JsValue, a: &JsValue, b: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = keys)]
    fn js_keys(target: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = isArray)]
    fn js_is_array(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = define)]
    fn js_define(target: &JsValue, key: &str, value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = parseJson)]
    fn js_parse_json(text: &str) -> Result<JsValue, JsValue>;
    // Catches whatever it runs into itself; `catch` is the second net, as above.
    #[wasm_bindgen(catch, js_name = random)]
    fn js_random() -> Result<f64, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    // A primitive result: a throw here cannot leak a slot, so `catch` is safe.
    #[wasm_bindgen(catch, js_namespace = ArrayBuffer, js_name = isView)]
    fn array_buffer_is_view(value: &JsValue) -> Result<bool, JsValue>;
}

thread_local! {
    // Should the guard be missing, a fresh object: equal to nothing a call returns.
    static FAILED: JsValue = failed().unwrap_or_else(|_| js_sys::Object::new().into());
}

/// Set to 1 by shell.js when a guarded call threw. Read from memory, it saves a crossing
/// (a comparison with the FAILED value) on every guarded call.
static THREW: AtomicU32 = AtomicU32::new(0);
/// shell.js knows where `THREW` is (told before the first guarded call, by `watch_failures`).
static WATCHED: AtomicBool = AtomicBool::new(false);
/// `watch_failures` has run (it runs once).
static ASKED: AtomicBool = AtomicBool::new(false);

/// Tells shell.js where to flag a throw, before the first guarded call. Not a
/// `#[wasm_bindgen(start)]`: a library claims nothing of the app's start (before wasm-bindgen
/// 0.2.118 a binary could have only one).
fn watch_failures() {
    if ASKED.swap(true, Ordering::Relaxed) {
        return;
    }
    if js_watch_failures(&wasm_bindgen::memory(), THREW.as_ptr() as u32).is_ok() {
        WATCHED.store(true, Ordering::Relaxed);
    }
}

/// Makes a guarded call: the flag is cleared before it and read after it (a call nested inside,
/// through the caller's code, clears and reads its own).
macro_rules! guarded {
    ($call:expr) => {{
        watch_failures();
        THREW.store(0, Ordering::Relaxed);
        checked($call)
    }};
}

/// What a guarded call returned, or what it threw.
fn checked(value: Result<JsValue, JsValue>) -> Result<JsValue, JsValue> {
    let value = value?;
    let threw = match WATCHED.load(Ordering::Relaxed) {
        true => THREW.swap(0, Ordering::Relaxed) != 0,
        false => FAILED.with(|f| *f == value),
    };
    match threw {
        true => Err(taken().unwrap_or(JsValue::UNDEFINED)),
        false => Ok(value),
    }
}

/// `target[name]`; `undefined` for values that are not objects.
pub fn get(target: &JsValue, name: &str) -> Result<JsValue, JsValue> {
    if !target.is_object() && !target.is_function() {
        return Ok(JsValue::UNDEFINED);
    }
    guarded!(js_get(target, &JsValue::from_str(name)))
}

/// `target[index]` of an array-like.
pub fn item(target: &JsValue, index: u32) -> Result<JsValue, JsValue> {
    guarded!(js_get(target, &JsValue::from(index)))
}

/// The own enumerable string keys of an object.
pub fn keys(target: &JsValue) -> Result<Vec<String>, JsValue> {
    let keys: js_sys::Array = guarded!(js_keys(target))?.unchecked_into();
    Ok(keys.iter().filter_map(|k| k.as_string()).collect())
}

/// `Array.isArray(value)` (a revoked `Proxy` throws).
pub fn is_array(value: &JsValue) -> Result<bool, JsValue> {
    guarded!(js_is_array(value)).map(|v| v.is_truthy())
}

/// An `ArrayBuffer` or a view of one (what a body read may resolve with).
pub fn is_bytes(value: &JsValue) -> bool {
    value.is_instance_of::<js_sys::ArrayBuffer>() || array_buffer_is_view(value).unwrap_or(false)
}

/// `f.call(this, ...args)` for up to two arguments.
pub fn call(f: &JsValue, this: &JsValue, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    guarded!(match args {
        [] => call0(f, this),
        [a] => call1(f, this, a),
        [a, b, ..] => call2(f, this, a, b),
    })
}

/// `target[name](...args)`, with `target` as `this`; an error if it is no function.
pub fn invoke(target: &JsValue, name: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f = get(target, name)?;
    if !f.is_function() {
        return Err(js_sys::TypeError::new(&text::join(&[name, " is not a function"])).into());
    }
    call(&f, target, args)
}

/// `new globalThis[class](a[, b])`; throws what the constructor throws.
pub fn construct(class: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let constructor = get(&js_sys::global(), class)?;
    guarded!(match args {
        [a] => construct1(&constructor, a),
        [a, b, ..] => construct2(&constructor, a, b),
        [] => construct1(&constructor, &JsValue::UNDEFINED),
    })
}

/// Defines a read-only own property (e.g. `url` on a `Response` we built).
pub fn define(target: &JsValue, name: &str, value: &JsValue) -> Result<(), JsValue> {
    // `Reflect.defineProperty` refuses (a frozen object, a Proxy) by returning false, not by throwing.
    match guarded!(js_define(target, name, value))?.is_truthy() {
        true => Ok(()),
        false => Err(js_sys::TypeError::new("the property could not be defined").into()),
    }
}

/// `target[name] = value` on an object we made.
pub fn reflect_set(target: &JsValue, name: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(target, &JsValue::from_str(name), value).map(|_| ())
}

/// `JSON.parse(text)`.
pub fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    guarded!(js_parse_json(text))
}

/// A seed from `crypto.getRandomValues`, or from the clocks where there is none.
pub fn entropy() -> u64 {
    match js_random() {
        Ok(bits) if bits >= 0.0 => bits as u64,
        _ => clock::wall_now() ^ clock::now().rotate_left(32),
    }
}

/// What kind of value this is, in JavaScript's words, without touching its properties.
pub fn kind(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.is_string() {
        "a string"
    } else if value.is_function() {
        "a function"
    } else if value.is_symbol() {
        "a symbol"
    } else if value.is_bigint() {
        "a BigInt"
    } else {
        "an object"
    }
}
