//! JavaScript values into [`Loose`], walking them with `js-sys` rather than serde, so
//! functions, symbols and cycles are named in errors instead of failing the deserializer.

use js_sys::{Array, Object};
use wasm_bindgen::{JsCast, JsValue};

use crate::input::Loose;

/// Deeper than any option object; stops a cyclic object from exhausting the stack.
const MAX_DEPTH: u32 = 32;

pub fn loose(value: &JsValue) -> Loose {
    convert(value, 0)
}

fn convert(value: &JsValue, depth: u32) -> Loose {
    if value.is_undefined() || value.is_null() {
        return Loose::Absent;
    }
    if let Some(b) = value.as_bool() {
        return Loose::Bool(b);
    }
    if let Some(x) = value.as_f64() {
        return Loose::Number(x);
    }
    if let Some(s) = value.as_string() {
        return Loose::Text(s);
    }
    if value.is_function() {
        return Loose::Other("a function");
    }
    if value.is_symbol() {
        return Loose::Other("a symbol");
    }
    if value.is_bigint() {
        return Loose::Other("a BigInt");
    }
    if depth >= MAX_DEPTH {
        return Loose::Other("an object nested too deeply (a cycle?)");
    }
    if Array::is_array(value) {
        let items: &Array = value.unchecked_ref();
        return Loose::List(items.iter().map(|item| convert(&item, depth + 1)).collect());
    }
    let Some(object) = value.dyn_ref::<Object>() else {
        return Loose::Other("an unsupported value");
    };
    let entries = Object::entries(object)
        .iter()
        .filter_map(|pair| {
            let pair: Array = pair.unchecked_into();
            Some((pair.get(0).as_string()?, convert(&pair.get(1), depth + 1)))
        })
        .collect();
    Loose::Map(entries)
}

/// A property of an object (`undefined` when `object` is not one).
pub fn field(object: &JsValue, name: &str) -> JsValue {
    if !object.is_object() && !object.is_function() {
        return JsValue::UNDEFINED;
    }
    js_sys::Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// The own enumerable keys of an options object.
pub fn keys(object: &JsValue) -> Vec<String> {
    match object.dyn_ref::<Object>() {
        Some(o) => Object::keys(o).iter().filter_map(|k| k.as_string()).collect(),
        None => Vec::new(),
    }
}

/// `new globalThis[class](...args)`, as JavaScript would call it; throws what the constructor throws.
pub fn construct(class: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let constructor: js_sys::Function =
        js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str(class))?.dyn_into()?;
    let list: Array = args.iter().copied().collect();
    js_sys::Reflect::construct(&constructor, &list)
}
