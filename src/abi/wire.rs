//! Option values as the JavaScript glue writes them (js/core/wire.js): the shape of a JSON-like
//! value in text, its numbers apart as `f64`s, so no number is ever parsed from text here.
//!
//! `_` absent · `t` `f` booleans · `n` the next number · `"…"` a string (its UTF-8, `"` and `\`
//! escaped by a `\`) · `[…]` a list · `{"key" value …}` an object · `!` and a letter for what JSON
//! has no form of: `f` function, `s` symbol, `b` BigInt, `r` RegExp, `d` nested too deeply or a
//! cycle, `l` a list too long, `z` more values than any option holds, and `u"…"` a value whose
//! getter threw (what it threw).

use crate::input::{At, Invalid, InvalidOption, Loose, Problem};

/// Deeper than the glue writes: a bound on the recursion, whatever the input.
const MAX_DEPTH: u32 = 64;

/// Reads one value; its numbers are taken from `numbers` at `*next`, which moves past them.
pub fn read(text: &str, numbers: &[f64], next: &mut usize) -> Result<Loose, Invalid> {
    let mut reader = Reader { bytes: text.as_bytes(), at: 0, numbers, next_number: *next, error: None };
    let value = reader.value(0);
    *next = reader.next_number;
    match (value, reader.error) {
        (Some(value), _) => Ok(value),
        (None, Some(error)) => Err(error),
        (None, None) => Err(malformed()),
    }
}

/// Its steps return `None` when the value cannot be read, with the reason in `error` (a
/// `Result` at every step would move the error, 40 bytes, in code of its own at each one).
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    numbers: &'a [f64],
    next_number: usize,
    error: Option<Invalid>,
}

#[cold]
#[inline(never)]
fn malformed() -> Invalid {
    InvalidOption::boxed("", Problem::Unreadable { detail: "the glue wrote a value it cannot read back".to_owned() })
}

impl Reader<'_> {
    fn next(&mut self) -> Option<u8> {
        let byte = self.bytes.get(self.at).copied();
        self.at += 1;
        byte
    }

    /// Fails with `error` (the glue's own words are [`malformed`]).
    #[cold]
    #[inline(never)]
    fn fail<T>(&mut self, error: Invalid) -> Option<T> {
        self.error = Some(error);
        None
    }

    /// Names the failure's place: `prefix` applied to its field path.
    #[cold]
    #[inline(never)]
    fn within(&mut self, prefix: &dyn Fn(Invalid) -> Invalid) {
        self.error = Some(prefix(self.error.take().unwrap_or_else(malformed)));
    }

    fn value(&mut self, depth: u32) -> Option<Loose> {
        if depth > MAX_DEPTH {
            return self.fail(malformed());
        }
        let Some(byte) = self.next() else { return self.fail(malformed()) };
        Some(match byte {
            b'_' => Loose::Absent,
            b't' => Loose::Bool(true),
            b'f' => Loose::Bool(false),
            b'n' => {
                let Some(&x) = self.numbers.get(self.next_number) else { return self.fail(malformed()) };
                self.next_number += 1;
                Loose::Number(x)
            }
            b'"' => Loose::Text(self.string()?),
            b'[' => {
                let mut items = Vec::new();
                while self.bytes.get(self.at) != Some(&b']') {
                    let Some(item) = self.value(depth + 1) else {
                        let at = items.len();
                        self.within(&|e| e.at_item(at));
                        return None;
                    };
                    items.push(item);
                }
                self.at += 1;
                Loose::List(items)
            }
            b'{' => {
                let mut entries = Vec::new();
                while self.next() != Some(b'}') {
                    if self.bytes.get(self.at.wrapping_sub(1)) != Some(&b'"') {
                        return self.fail(malformed());
                    }
                    let key = self.string()?;
                    let Some(value) = self.value(depth + 1) else {
                        self.within(&|e| e.at(&key));
                        return None;
                    };
                    entries.push((key, value));
                }
                Loose::Map(entries)
            }
            b'!' => self.other()?,
            _ => return self.fail(malformed()),
        })
    }

    fn other(&mut self) -> Option<Loose> {
        Some(Loose::Other(match self.next() {
            Some(b'f') => "a function",
            Some(b's') => "a symbol",
            Some(b'b') => "a BigInt",
            Some(b'r') => "a RegExp",
            Some(b'd') => "an object nested too deeply (a cycle?)",
            Some(b'l') => "an array too long to be an option",
            Some(b'z') => "a value too large to be an option (more than 100 000 values)",
            Some(b'u') if self.next() == Some(b'"') => {
                let detail = self.string()?;
                return self.fail(InvalidOption::boxed("", Problem::Unreadable { detail }));
            }
            _ => return self.fail(malformed()),
        }))
    }

    /// The rest of a string whose opening quote was read. The glue escapes only `"` and `\` (a
    /// backslash before each), so the bytes are the string's own: no JSON escapes to decode.
    fn string(&mut self) -> Option<String> {
        let mut out = Vec::new();
        loop {
            let byte = match self.next() {
                Some(b'"') => break,
                Some(b'\\') => self.next(),
                byte => byte,
            };
            let Some(byte) = byte else { return self.fail(malformed()) };
            out.push(byte);
        }
        match String::from_utf8(out) {
            Ok(text) => Some(text),
            Err(_) => self.fail(malformed()),
        }
    }
}
