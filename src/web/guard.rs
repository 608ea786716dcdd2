//! Every JavaScript call that can run user code, declared with `catch`.
//!
//! A JavaScript exception that unwinds through a wasm frame skips the frame's epilogue and
//! leaks shadow stack until the module dies. A getter, a `Proxy` trap, a thenable or a
//! `Response` subclass can throw from almost any property read or call, so user values are
//! touched only through these functions: a throw comes back as an `Err`, never as an unwind.

use js_sys::{Array, Function, Object};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = get)]
    fn reflect_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = getPrototypeOf)]
    fn reflect_prototype_of(target: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = getOwnPropertyDescriptor)]
    fn reflect_own_descriptor(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = apply)]
    fn reflect_apply(f: &JsValue, this: &JsValue, args: &Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = construct)]
    fn reflect_construct(class: &JsValue, args: &Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(target: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = defineProperty)]
    fn object_define_property(target: &JsValue, key: &JsValue, descriptor: &Object) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ArrayBuffer, js_name = isView)]
    fn array_buffer_is_view(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Date, js_name = now)]
    fn date_now() -> Result<f64, JsValue>;
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    fn json_parse(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = stringify)]
    fn json_stringify(value: &JsValue) -> Result<JsValue, JsValue>;
}

/// `target[name]`; `undefined` for values that are not objects.
pub fn get(target: &JsValue, name: &str) -> Result<JsValue, JsValue> {
    if !target.is_object() && !target.is_function() {
        return Ok(JsValue::UNDEFINED);
    }
    reflect_get(target, &JsValue::from_str(name))
}

/// `target[index]` of an array-like.
pub fn item(target: &JsValue, index: u32) -> Result<JsValue, JsValue> {
    reflect_get(target, &JsValue::from(index))
}

/// The own enumerable string keys of an object.
pub fn keys(target: &JsValue) -> Result<Vec<String>, JsValue> {
    Ok(object_keys(target)?.iter().filter_map(|k| k.as_string()).collect())
}

pub fn is_array(value: &JsValue) -> Result<bool, JsValue> {
    array_is_array(value)
}

/// An `ArrayBuffer` or a view of one (what a body read may resolve with).
pub fn is_bytes(value: &JsValue) -> bool {
    value.is_instance_of::<js_sys::ArrayBuffer>() || array_buffer_is_view(value).unwrap_or(false)
}

pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue> {
    reflect_prototype_of(value)
}

/// The value of an own data property, without running a getter.
pub fn own_value(target: &JsValue, name: &str) -> Option<JsValue> {
    let descriptor = reflect_own_descriptor(target, &JsValue::from_str(name)).ok()?;
    // The descriptor is a plain object the engine made: reading it runs no user code.
    reflect_get(&descriptor, &JsValue::from_str("value")).ok().filter(|v| !v.is_undefined())
}

/// The getter of an own accessor property.
pub fn own_getter(target: &JsValue, name: &str) -> Option<Function> {
    let descriptor = reflect_own_descriptor(target, &JsValue::from_str(name)).ok()?;
    reflect_get(&descriptor, &JsValue::from_str("get")).ok()?.dyn_into().ok()
}

/// `f.apply(this, args)`.
pub fn call(f: &JsValue, this: &JsValue, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    reflect_apply(f, this, &args.iter().copied().collect())
}

/// `target[name](...args)`, with `target` as `this`; an error if it is no function.
pub fn invoke(target: &JsValue, name: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f = get(target, name)?;
    if !f.is_function() {
        return Err(js_sys::TypeError::new(&format!("{name} is not a function")).into());
    }
    call(&f, target, args)
}

/// `new globalThis[class](...args)`; throws what the constructor throws.
pub fn construct(class: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let constructor = reflect_get(&js_sys::global(), &JsValue::from_str(class))?;
    reflect_construct(&constructor, &args.iter().copied().collect())
}

/// Defines a read-only own property (e.g. `url` on a `Response` we built).
pub fn define(target: &JsValue, name: &str, value: &JsValue) -> Result<(), JsValue> {
    let descriptor = Object::new();
    reflect_set(&descriptor, "value", value)?;
    reflect_set(&descriptor, "enumerable", &JsValue::TRUE)?;
    object_define_property(target, &JsValue::from_str(name), &descriptor).map(|_| ())
}

/// `target[name] = value` on an object we made.
pub fn reflect_set(target: &JsValue, name: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(target, &JsValue::from_str(name), value).map(|_| ())
}

pub fn wall_clock() -> Option<f64> {
    date_now().ok()
}

pub fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    json_parse(text)
}

pub fn to_json(value: &JsValue) -> Result<String, JsValue> {
    json_stringify(value)?.as_string().ok_or_else(|| js_sys::TypeError::new("not serializable to JSON").into())
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
                push_part(&mut text, depth, &format!("{name}: {message}"))
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
