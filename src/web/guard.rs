//! Every JavaScript call that can run user code, through `js/guard.js` (and `catch`).
//!
//! A JavaScript exception that unwinds through a wasm frame skips the frame's epilogue and
//! leaks shadow stack until the module dies. A getter, a `Proxy` trap, a thenable or a
//! `Response` subclass can throw from almost any property read or call, so user values are
//! touched only through these functions: a throw comes back as an `Err`, never as an unwind.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::wake::Kind;
use crate::backoff::MAX_TIMER_MS;

// js/guard.js never throws: a throw comes back as its FAILED value (see there why `catch`
// alone is not enough). `catch` stays as a second net, for a throw the guard cannot catch.
#[wasm_bindgen(module = "/js/guard.js")]
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
    #[wasm_bindgen(catch, js_name = prototypeOf)]
    fn js_prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = ownDescriptor)]
    fn own_descriptor(target: &JsValue, key: &str, field: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = define)]
    fn js_define(target: &JsValue, key: &str, value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = shareAvailable)]
    fn js_share_available() -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_name = shareEnter)]
    fn js_share_enter(name: &str, within_ms: f64) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = shareLeave)]
    fn js_share_leave(name: &str, text: &str, tell: bool) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = shareNews)]
    fn js_share_news(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = shareNewsDone)]
    fn js_share_news_done(name: &str, resolve: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = coordinatorLimits)]
    fn js_coordinator_limits(options: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(catch, js_name = coordinatorLease)]
    fn js_coordinator_lease(
        namespace: &JsValue,
        name: &str,
        limits: &str,
        scope: &str,
        priority: &str,
        numbers: &[f64],
        within_ms: f64,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = parseJson)]
    fn js_parse_json(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = timer)]
    fn js_timer(ms: f64, id: f64, kind: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = clearTimer)]
    fn js_clear_timer(handle: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = follow)]
    fn js_follow(value: &JsValue, id: f64, fulfilled: u32, rejected: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = listen)]
    fn js_listen(signal: &JsValue, id: f64, kind: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = unlisten)]
    fn js_unlisten(signal: &JsValue, listener: &JsValue) -> Result<(), JsValue>;
    // These catch whatever they run into themselves; `catch` is the second net, as above.
    #[wasm_bindgen(catch, js_name = monotonic)]
    fn js_monotonic() -> Result<f64, JsValue>;
    #[wasm_bindgen(catch, js_name = head)]
    fn js_head(response: &JsValue, weight_header: Option<&str>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = face)]
    fn js_face(response: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = headPart)]
    fn js_head_part() -> Result<String, JsValue>;
    #[wasm_bindgen(catch, js_name = linkAbort)]
    fn js_link_abort(signal: &JsValue, controller: &JsValue, response: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = random)]
    fn js_random() -> Result<f64, JsValue>;
    #[wasm_bindgen(catch, js_name = attemptInit)]
    fn js_attempt_init(signal: &JsValue) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    // Primitive results: a throw here cannot leak a slot, so `catch` is safe.
    #[wasm_bindgen(catch, js_namespace = ArrayBuffer, js_name = isView)]
    fn array_buffer_is_view(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Date, js_name = now)]
    fn date_now() -> Result<f64, JsValue>;
}

thread_local! {
    // Should the guard be missing, a fresh object: equal to nothing a call returns.
    static FAILED: JsValue = failed().unwrap_or_else(|_| js_sys::Object::new().into());
}

/// Set to 1 by js/guard.js when a guarded call threw. Read from memory, it saves a crossing
/// (a comparison with the FAILED value) on every guarded call.
static THREW: AtomicU32 = AtomicU32::new(0);
/// js/guard.js knows where `THREW` is (set at instantiation, by `watch_failures`).
static WATCHED: AtomicBool = AtomicBool::new(false);

/// Tells js/guard.js where to flag a throw; runs once, when the module is instantiated.
#[wasm_bindgen(start)]
fn watch_failures() {
    if js_watch_failures(&wasm_bindgen::memory(), THREW.as_ptr() as u32).is_ok() {
        WATCHED.store(true, Ordering::Relaxed);
    }
}

/// Makes a guarded call: the flag is cleared before it and read after it (a call nested inside,
/// through the caller's code, clears and reads its own).
macro_rules! guarded {
    ($call:expr) => {{
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

pub fn is_array(value: &JsValue) -> Result<bool, JsValue> {
    guarded!(js_is_array(value)).map(|v| v.is_truthy())
}

/// An `ArrayBuffer` or a view of one (what a body read may resolve with).
pub fn is_bytes(value: &JsValue) -> bool {
    value.is_instance_of::<js_sys::ArrayBuffer>() || array_buffer_is_view(value).unwrap_or(false)
}

pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue> {
    guarded!(js_prototype_of(value))
}

/// The value of an own data property, without running a getter.
pub fn own_value(target: &JsValue, name: &str) -> Option<JsValue> {
    guarded!(own_descriptor(target, name, "value")).ok().filter(|v| !v.is_undefined())
}

/// The getter of an own accessor property.
pub fn own_getter(target: &JsValue, name: &str) -> Option<Function> {
    guarded!(own_descriptor(target, name, "get")).ok()?.dyn_into().ok()
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
        return Err(js_sys::TypeError::new(&super::text::join(&[name, " is not a function"])).into());
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

/// `performance.now()`, or `Date.now()` where there is none (NaN if neither works).
pub fn monotonic() -> f64 {
    js_monotonic().unwrap_or(f64::NAN)
}

/// A response's head as js/guard.js's `head` writes it (empty: not an object); on a throw, the
/// part it was reading and what was thrown.
pub fn head(response: &JsValue, weight_header: Option<&str>) -> Result<String, (String, JsValue)> {
    let text = guarded!(js_head(response, weight_header)).map_err(|e| (js_head_part().unwrap_or_default(), e))?;
    Ok(text.as_string().unwrap_or_default())
}

/// A response's statusText, url and redirected as js/guard.js's `face` writes them; on a
/// throw, the part being read and what was thrown.
pub fn face(response: &JsValue) -> Result<String, (String, JsValue)> {
    let text = guarded!(js_face(response)).map_err(|e| (js_head_part().unwrap_or_default(), e))?;
    Ok(text.as_string().unwrap_or_default())
}

/// Whether this realm has what sharing a budget needs (Web Locks, IndexedDB).
pub fn share_available() -> bool {
    js_share_available().unwrap_or(false)
}

/// A promise of the share's stored state (empty if none) once its lock is held, or of `null`
/// if it cannot be had within `within_ms`; it never rejects.
pub fn share_enter(name: &str, within_ms: u64) -> Result<JsValue, JsValue> {
    js_share_enter(name, within_ms as f64).map(JsValue::from)
}

/// Stores the share's state and releases its lock; `tell` wakes the share's sleepers everywhere.
pub fn share_leave(name: &str, text: &str, tell: bool) {
    let _ = js_share_leave(name, text, tell);
}

/// `[promise, resolver]`: the promise settles when a hold or ban is next published under `name`
/// (`None` where no BroadcastChannel is). Hand the pair to [`share_news_done`] when the wait ends.
pub fn share_news(name: &str) -> Option<(JsValue, JsValue)> {
    let pair = js_share_news(name).ok().filter(|p| p.is_object())?;
    let pair = js_sys::Array::from(&pair);
    Some((pair.get(0), pair.get(1)))
}

/// Forgets a sleeper's promise from [`share_news`].
pub fn share_news_done(name: &str, resolve: &JsValue) {
    let _ = js_share_news_done(name, resolve);
}

/// A budget's options as JSON, without `coordinator` and `share`: what its coordinator builds from.
pub fn coordinator_limits(options: &JsValue) -> String {
    js_coordinator_limits(options).unwrap_or_else(|_| "{}".to_owned())
}

/// A promise of the scope's coordinator's answer (an array: tokens, from, hold, ban), or of
/// `null` if it does not answer within `within_ms`; it never rejects.
pub fn coordinator_lease(
    namespace: &JsValue,
    name: &str,
    limits: &str,
    scope: &str,
    priority: &str,
    numbers: &[f64],
    within_ms: u64,
) -> Result<JsValue, JsValue> {
    js_coordinator_lease(namespace, name, limits, scope, priority, numbers, within_ms as f64).map(JsValue::from)
}

/// Aborts `controller` when `signal` aborts (at once if it already has), for as long as
/// `response` lives.
pub fn link_abort(signal: &web_sys::AbortSignal, controller: &web_sys::AbortController, response: &JsValue) {
    let _ = js_link_abort(signal, controller, response);
}

/// 53 random bits from `crypto.getRandomValues` (`None` without it).
pub fn random() -> Option<u64> {
    let bits = js_random().ok()?;
    (bits >= 0.0).then_some(bits as u64)
}

/// `{ signal }`: one attempt's `fetch` init, made in one crossing.
pub fn attempt_init(signal: &JsValue) -> Result<JsValue, JsValue> {
    js_attempt_init(signal)
}

pub fn wall_clock() -> Option<f64> {
    date_now().ok()
}

pub fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    guarded!(js_parse_json(text))
}

/// The longest text taken from a thrown value: enough for any platform message.
const MAX_DESCRIPTION: usize = 400;

/// What a thrown value says, as `Name: message (cause: …)`, without calling its `toString`.
pub fn describe(thrown: &JsValue) -> String {
    let mut text = String::new();
    let mut current = thrown.clone();
    for depth in 0..3 {
        if let Some(s) = current.as_string() {
            push_part(&mut text, depth, &s);
            break;
        }
        let read = |name| get(&current, name).ok().and_then(|v| v.as_string());
        match (read("name"), read("message")) {
            (Some(name), Some(message)) if !message.is_empty() => {
                push_part(&mut text, depth, &super::text::join(&[&name, ": ", &message]))
            }
            (_, Some(message)) if !message.is_empty() => push_part(&mut text, depth, &message),
            (Some(name), _) => push_part(&mut text, depth, &name),
            _ if depth == 0 => push_part(&mut text, depth, super::value::kind(&current)),
            _ => {}
        }
        match get(&current, "cause") {
            Ok(cause) if !cause.is_undefined() && !cause.is_null() => current = cause,
            _ => break,
        }
    }
    truncate(text, MAX_DESCRIPTION)
}

fn push_part(text: &mut String, depth: usize, part: &str) {
    if depth == 0 {
        text.push_str(part);
    } else {
        text.push_str(" (cause: ");
        text.push_str(part);
        text.push(')');
    }
}

fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// A timer that wakes waiter `id` with `kind` after `ms` (at most 2^31 − 1 ms, the longest
/// `setTimeout` honours); `None` if the platform would not set one.
pub fn timer(ms: u64, id: f64, kind: Kind) -> Option<JsValue> {
    guarded!(js_timer(ms.min(MAX_TIMER_MS) as f64, id, kind.code())).ok()
}

pub fn clear_timer(handle: &JsValue) {
    let _ = js_clear_timer(handle);
}

/// Wakes waiter `id` when `value` settles, whatever its `then` does.
pub fn follow(value: &JsValue, id: f64) {
    let _ = js_follow(value, id, Kind::Fulfilled.code(), Kind::Rejected.code());
}

/// Wakes waiter `id` when `signal` aborts; the listener to remove, if one could be added.
pub fn listen(signal: &JsValue, id: f64, kind: Kind) -> Option<JsValue> {
    guarded!(js_listen(signal, id, kind.code())).ok()
}

pub fn unlisten(signal: &JsValue, listener: &JsValue) {
    let _ = js_unlisten(signal, listener);
}
