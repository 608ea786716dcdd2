//! Redaction of URLs and messages: an operator may read them, an attacker must not profit.
//!
//! Removed from a URL: user-info (`user:pass@`), the fragment, and the value of every query
//! parameter whose name looks like a credential. Names are compared after percent-decoding
//! (`%73ignature` is `signature`), without case and without separators (`api_key`,
//! `API-Key`, `api.key`); `&` and `;` both separate parameters. A value that is itself a URL
//! or a query string (a `redirect=` carrying `token=`) is redacted inside, and re-encoded.
//! Callers can add names of their own ([`redact_url_with`]). Headers never reach records.

use crate::text::{rsplit_once_byte, split_once_byte};

const REDACTED: &str = "REDACTED";

/// Name fragments that mark a query parameter as secret wherever they appear in its name.
const SECRET_PARTS: [&str; 14] = [
    "signature",
    "sig",
    "key",
    "token",
    "secret",
    "pass",
    "pwd",
    "auth",
    "credential",
    "hmac",
    "jwt",
    "session",
    "cookie",
    "otp",
];

/// Names that are secret only as a whole (as parts they would hide `countryCode`).
const SECRET_NAMES: [&str; 1] = ["code"];

/// How deep values are searched for nested URLs and query strings; deeper ones are redacted whole.
const MAX_NESTING: u32 = 3;

/// How many times one value is decoded looking for structure; more encodings are redacted whole.
const MAX_ROUNDS: u32 = 4;

/// The caller's own secret names (compared as [`normalized_name`] compares them), and the decoded
/// names its `RegExp`s matched in one URL (compared as they are).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Secrets {
    /// Normalized names.
    pub names: Vec<String>,
    /// Decoded names, exactly.
    pub matched: Vec<String>,
}

impl Secrets {
    /// Whether a decoded query parameter name is one of these.
    pub fn contains(&self, name: &str) -> bool {
        if self.names.is_empty() && self.matched.is_empty() {
            return false;
        }
        self.matched.iter().any(|m| m == name) || self.names.contains(&normalized_name(name))
    }

    /// `text` (a URL when `url`) redacted with the built-in names and these.
    pub fn redact(&self, text: &str, url: bool) -> String {
        let secret = |name: &str| self.contains(name);
        match url {
            true => redact_url_with(text, &secret),
            false => redact_text_with(text, &secret),
        }
    }
}

/// A copy of `url` safe to store in a record.
pub fn redact_url(url: &str) -> String {
    redact_url_with(url, &|_| false)
}

/// [`redact_url`], also redacting every parameter whose decoded name `extra` calls secret.
pub fn redact_url_with(url: &str, extra: &dyn Fn(&str) -> bool) -> String {
    url_at(url, extra, 0)
}

fn url_at(url: &str, extra: &dyn Fn(&str) -> bool, depth: u32) -> String {
    let without_fragment = split_once_byte(url, b'#').map_or(url, |(before, _)| before);
    let (head, query) = match split_once_byte(without_fragment, b'?') {
        Some((h, q)) => (h, Some(q)),
        None => (without_fragment, None),
    };
    let mut out = strip_user_info(head);
    if let Some(query) = query {
        out.push('?');
        out.push_str(&query_at(query, extra, depth));
    }
    out
}

/// Every URL inside a free text (an error message, say) redacted.
pub fn redact_text_with(text: &str, extra: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = scheme_end(rest) {
        let scheme_len = rest.bytes().take(at).rev().take_while(|&b| is_scheme_byte(b)).count();
        let begin = at - scheme_len;
        let end = rest.get(at..).and_then(|tail| tail.find(ends_url)).map_or(rest.len(), |n| at + n);
        // `get`, not indexing: the bounds are ASCII positions, and a panic's message code is kilobytes.
        let (Some(before), Some(url), Some(after)) = (rest.get(..begin), rest.get(begin..end), rest.get(end..)) else {
            break;
        };
        out.push_str(before);
        out.push_str(&redact_url_with(url, extra));
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Whether `c` ends a URL inside free text.
fn ends_url(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`')
}

/// Where the first `://` in `text` starts; bytewise, as `str`'s substring searcher costs the wasm build kilobytes.
fn scheme_end(text: &str) -> Option<usize> {
    text.as_bytes().windows(3).position(|w| w == b"://")
}

/// `text` split around its first `://`.
fn split_scheme(text: &str) -> Option<(&str, &str)> {
    let at = scheme_end(text)?;
    Some((text.get(..at)?, text.get(at + 3..)?))
}

/// A character RFC 3986 allows in a scheme after its first letter.
fn is_scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

fn strip_user_info(head: &str) -> String {
    let Some((scheme, rest)) = split_scheme(head) else {
        return head.to_owned();
    };
    let authority_end = rest.bytes().position(|b| b == b'/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at_checked(authority_end).unwrap_or((rest, ""));
    let host = rsplit_once_byte(authority, b'@').map_or(authority, |(_, host)| host);
    let mut out = String::with_capacity(head.len());
    out.push_str(scheme);
    out.push_str("://");
    out.push_str(host);
    out.push_str(path);
    out
}

/// A query string with its secret values redacted; `&` and `;` kept where they were.
fn query_at(query: &str, extra: &dyn Fn(&str) -> bool, depth: u32) -> String {
    let mut out = String::with_capacity(query.len());
    let mut rest = query;
    // Bytewise: `split_inclusive` with a char pattern costs the wasm build its char searchers.
    while !rest.is_empty() {
        let (pair_end, end) = match rest.bytes().position(|b| b == b'&' || b == b';') {
            Some(at) => (at, at + 1),
            None => (rest.len(), rest.len()),
        };
        let (Some(pair), Some(separator), Some(after)) =
            (rest.get(..pair_end), rest.get(pair_end..end), rest.get(end..))
        else {
            break;
        };
        out.push_str(&redact_pair(pair, extra, depth));
        out.push_str(separator);
        rest = after;
    }
    out
}

fn redact_pair(pair: &str, extra: &dyn Fn(&str) -> bool, depth: u32) -> String {
    let (name, value) = split_once_byte(pair, b'=').unwrap_or((pair, ""));
    if value.is_empty() {
        return pair.to_owned();
    }
    let decoded_name = decode_fully(name);
    let value = if is_secret(&decoded_name) || extra(&decoded_name) {
        REDACTED.to_owned()
    } else {
        match redact_value(value, extra, depth, 0) {
            Some(value) => value,
            None => return pair.to_owned(),
        }
    };
    let mut out = String::with_capacity(name.len() + 1 + value.len());
    out.push_str(name);
    out.push('=');
    out.push_str(&value);
    out
}

/// A value that carries a URL or a query string (perhaps encoded again and again) redacted
/// inside; `None` if nothing in it changes. One decoding round at a time, so that an encoded
/// `#` or `?` of a deeper level is not mistaken for one of this level; `rounds` counts the
/// rounds spent on this value so far.
fn redact_value(value: &str, extra: &dyn Fn(&str) -> bool, depth: u32, rounds: u32) -> Option<String> {
    let decoded = percent_decode(value);
    let encoded = decoded != value;
    // Read by how it starts: a `://` further in belongs to a value deeper down.
    let url_like = starts_with_scheme(&decoded) || decoded.starts_with('/') || decoded.starts_with('?');
    let nested = url_like || decoded.bytes().any(|b| b == b'=');
    if !nested && !encoded {
        return None;
    }
    if depth >= MAX_NESTING || rounds >= MAX_ROUNDS {
        // Deeper than we search: whatever it carries goes.
        return Some(REDACTED.to_owned());
    }
    let inner = if url_like {
        Some(url_at(&decoded, extra, depth + 1))
    } else if nested {
        Some(query_at(&decoded, extra, depth + 1))
    } else {
        // Encoded once more, with no structure yet: look at the next round.
        redact_value(&decoded, extra, depth, rounds + 1)
    };
    match inner {
        Some(inner) if inner != decoded => Some(if encoded { encode_component(&inner) } else { inner }),
        _ => None,
    }
}

/// `scheme://…`, the scheme as RFC 3986 spells it.
fn starts_with_scheme(text: &str) -> bool {
    let Some((scheme, _)) = split_scheme(text) else { return false };
    let mut bytes = scheme.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic()) && bytes.all(is_scheme_byte)
}

/// Whether a (decoded) parameter name looks like a credential.
pub fn is_secret(name: &str) -> bool {
    // ASCII folding is enough for parameter names, and keeps Unicode case tables out of the wasm.
    let normalized = normalized_name(name);
    SECRET_PARTS.iter().any(|part| contains(&normalized, part)) || SECRET_NAMES.contains(&normalized.as_str())
}

/// Whether `part` occurs in `name`; bytewise, as `str`'s substring searcher costs the wasm build kilobytes.
fn contains(name: &str, part: &str) -> bool {
    let (name, part) = (name.as_bytes(), part.as_bytes());
    (0..=name.len().saturating_sub(part.len())).any(|at| name.get(at..at + part.len()) == Some(part))
}

/// A parameter name as names are compared: ASCII letters and digits only, lower-cased.
pub fn normalized_name(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// Percent-decodes (and `+` as space) until nothing changes, a few rounds at most: a name
/// encoded twice (`%2573ignature`) is still a name.
fn decode_fully(text: &str) -> String {
    let mut current = text.to_owned();
    for _ in 0..3 {
        let next = percent_decode(&current);
        if next == current {
            break;
        }
        current = next;
    }
    current
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(&[hi, lo])) if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit() => {
                out.push(hex(hi) << 4 | hex(lo));
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    crate::text::lossy(out)
}

fn hex(digit: u8) -> u8 {
    match digit {
        b'0'..=b'9' => digit - b'0',
        b'a'..=b'f' => digit - b'a' + 10,
        _ => digit.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// `encodeURIComponent`: everything but unreserved characters percent-encoded.
fn encode_component(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// Every decoded parameter name that redacting `text` (a message or a URL) would ask a caller's
/// rule about: a shell whose rules it cannot run here (JavaScript `RegExp`s) tests these itself
/// and passes the matches back as names.
pub fn parameter_names(text: &str) -> Vec<String> {
    // A `Cell`, not a `RefCell`: its borrow panic's message would bring `fmt` into the wasm.
    let asked = std::cell::Cell::new(Vec::new());
    redact_text_with(text, &|name| {
        let mut names = asked.take();
        names.push(name.to_owned());
        asked.set(names);
        false
    });
    asked.into_inner()
}
