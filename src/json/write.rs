//! Writing JSON text: objects field by field, integers without `fmt`, strings escaped as serde_json does.

/// A value with a JSON form.
pub trait ToJson {
    /// Appends this value's JSON text to `out`.
    fn write_json(&self, out: &mut String);
}

/// The JSON text of `value`.
pub fn to_json<T: ToJson + ?Sized>(value: &T) -> String {
    let mut out = String::with_capacity(256);
    value.write_json(&mut out);
    out
}

/// An object being written; fields go in the order they are given.
pub struct Object<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Object<'a> {
    /// Starts an object in `out` (writes `{`); add fields, then [`end`](Object::end) it.
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Object { out, empty: true }
    }

    /// `name` is written as given: field names are camelCase ASCII and need no escaping.
    pub fn field(&mut self, name: &str, value: &dyn ToJson) -> &mut Self {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        self.out.push('"');
        self.out.push_str(name);
        self.out.push_str("\":");
        value.write_json(self.out);
        self
    }

    /// Closes the object (writes `}`).
    pub fn end(&mut self) {
        self.out.push('}');
    }
}

impl ToJson for u64 {
    fn write_json(&self, out: &mut String) {
        push_u64(out, *self)
    }
}

/// `n` in decimal, without `fmt` (whose integer formatting costs the wasm build kilobytes).
pub fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut n = n;
    let mut len = 0;
    // Least significant first, then written backwards.
    for slot in digits.iter_mut() {
        *slot = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits.iter().take(len).rev() {
        out.push(char::from(d));
    }
}

macro_rules! widened {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                u64::from(*self).write_json(out)
            }
        }
    )*};
}
widened!(u32, u16);

impl ToJson for usize {
    fn write_json(&self, out: &mut String) {
        (*self as u64).write_json(out)
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        out.push('"');
        for c in self.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    let n = c as usize;
                    out.push_str("\\u00");
                    out.push(char::from(HEX[n >> 4]));
                    out.push(char::from(HEX[n & 15]));
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        self.as_str().write_json(out)
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out)
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out)
    }
}
