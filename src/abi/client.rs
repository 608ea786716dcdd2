//! `new RetryClient(options)` and the third argument of `client.fetch`: the options the core
//! decides on, validated here. The glue reads the JavaScript-valued ones itself (`fetch`,
//! `budget`, `store`, `onAttempt`, `onEscalation`, a call's `signal` and `onAttempt`) and hands
//! over the rest, so an unknown field is still refused by name.

use super::invalid;
use super::io::{self, with_input};
use super::state::{Client, CLIENTS};
use crate::draw::Draws;
use crate::input::read::{flag, millis, whole};
use crate::input::{Invalid, InvalidOption, Loose, Problem, MAX_SAFE_INTEGER};
use crate::policy::Policy;
use crate::redact::normalized_name;
use crate::text::split_once_byte;

/// A client from its options (`opts` bytes of wire form) and a seed the glue drew (used unless
/// the options give one). Returns its handle, or 0 with the error (see [`invalid`]).
#[no_mangle]
pub extern "C" fn rl_client_new(opts: u32, entropy: f64) -> u32 {
    let read = with_input(|input| input.wire(opts).and_then(|o| client(&o, entropy)));
    match read {
        Ok(client) => CLIENTS.with(|c| c.insert(client)),
        Err(error) => invalid(&error),
    }
}

#[no_mangle]
pub extern "C" fn rl_client_free(handle: u32) {
    CLIENTS.with(|c| c.remove(handle));
}

/// `text` (`len` bytes; a URL when `url` is 1) redacted as the client redacts, with `extra` more
/// decoded names (`extra` bytes, NUL-separated: the names that matched the caller's `RegExp`s).
#[no_mangle]
pub extern "C" fn rl_redact(client: u32, len: u32, url: u32, extra: u32) {
    let out = with_input(|input| {
        let text = input.text(len);
        let extra = names(input.text(extra));
        CLIENTS.with(|c| match c.get(client) {
            Some(client) => client.redact(text, url == 1, &extra),
            None => crate::redact::redact_text_with(text, &|_| false),
        })
    });
    io::output(out);
}

/// The decoded names of the query parameters in `text` (`len` bytes), NUL-separated: what the glue
/// tests the caller's `RegExp`s on.
#[no_mangle]
pub extern "C" fn rl_parameter_names(len: u32) {
    let names = with_input(|input| crate::redact::parameter_names(input.text(len)));
    // Pushed one by one: `join` panics (with formatted messages) on an overflowing length.
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push('\0');
        }
        out.push_str(name);
    }
    io::output(out);
}

/// The names in `text`, NUL-separated (empty ones skipped).
pub fn names(text: &str) -> Vec<&str> {
    // Bytewise, not `split('\0')`: the char searcher brings slice-index panics and `fmt`.
    let mut names = Vec::new();
    let mut rest = text;
    loop {
        let (name, after) = split_once_byte(rest, 0).unwrap_or((rest, ""));
        if !name.is_empty() {
            names.push(name);
        }
        if after.is_empty() {
            return names;
        }
        rest = after;
    }
}

fn client(options: &Loose, entropy: f64) -> Result<Client, Invalid> {
    let mut policy = Policy::default();
    let mut seed = None;
    let mut draws = Vec::new();
    let mut secrets = Vec::new();
    let mut read_body = false;
    let mut stale_if_error_ms = 0;
    let mut coalesce = false;
    for (field, value) in options.fields("options")? {
        match field.as_str() {
            "policy" => policy = Policy::read(value)?,
            "seed" if value.is_absent() => {}
            "seed" => seed = Some(whole("seed", value, 0, MAX_SAFE_INTEGER)?),
            "draws" if value.is_absent() => {}
            "draws" => draws = crate::replay::each("draws", value, |_, v| millis("", v))?,
            "readBody" => read_body = flag("readBody", value)?.unwrap_or(false),
            "redact" if value.is_absent() => {}
            "redact" => secrets = secret_names(value)?,
            "staleIfErrorMs" if value.is_absent() => {}
            "staleIfErrorMs" => stale_if_error_ms = millis("staleIfErrorMs", value)?,
            "coalesce" => coalesce = flag("coalesce", value)?.unwrap_or(false),
            _ => return Err(InvalidOption::boxed(field, Problem::UnknownField)),
        }
    }
    let seed = seed.unwrap_or(if entropy.is_finite() && entropy >= 0.0 { entropy as u64 } else { 0 });
    // Its own draw, not the seed's: two clients of one seed are still two owners.
    let owner = crate::text::hex16(if entropy.is_finite() && entropy >= 0.0 {
        entropy as u64 ^ 0x9e37_79b9_7f4a_7c15
    } else {
        seed
    });
    Ok(Client { policy, draws: Draws::scripted(draws, seed), secrets, read_body, owner, stale_if_error_ms, coalesce })
}

/// `redact`: names (compared without case or separators) and `RegExp`s, which the glue tests.
fn secret_names(value: &Loose) -> Result<Vec<String>, Invalid> {
    let mut names = Vec::new();
    let items = crate::replay::each("redact", value, |_, item| match item {
        Loose::Text(name) if normalized_name(name).is_empty() => Err(InvalidOption::boxed("", Problem::Empty)),
        Loose::Text(name) => Ok(Some(normalized_name(name))),
        Loose::Other("a RegExp") => Ok(None),
        other => {
            Err(InvalidOption::boxed("", Problem::WrongType { expected: "a string or a RegExp", found: other.kind() }))
        }
    })
    .map_err(|e| match e.problem {
        Problem::WrongType { expected: "an array", .. } => InvalidOption::boxed(
            "redact",
            Problem::WrongType { expected: "an array of strings and RegExps", found: value.kind() },
        ),
        _ => e,
    })?;
    names.extend(items.into_iter().flatten());
    Ok(names)
}
