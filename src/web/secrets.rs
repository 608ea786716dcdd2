//! The caller's own secret parameter names (`redact: ["myParam", /^x-sig/i]`), added to the
//! built-in ones of [`crate::redact`] wherever the client writes a URL or a message.

use wasm_bindgen::prelude::*;

use super::guard;
use super::value::{field, kind, unreadable};
use crate::input::{InvalidOption, Problem};
use crate::redact::{normalized_name, redact_text_with, redact_url_with};

#[derive(Default)]
pub struct Secrets {
    /// Lower-case letters and digits only, as names are compared.
    names: Vec<String>,
    /// Copies of the caller's `RegExp`s, without the `g`/`y` flags that would make `test` stateful.
    patterns: Vec<JsValue>,
}

impl Secrets {
    /// From `options.redact`: an array of names (compared without case or separators) and
    /// regular expressions (tested against the decoded name).
    pub fn from_js(value: &JsValue) -> Result<Secrets, InvalidOption> {
        let wrong = || {
            InvalidOption::new(
                "redact",
                Problem::WrongType { expected: "an array of strings and RegExps", found: kind(value) },
            )
        };
        if !guard::is_array(value).map_err(|e| unreadable("redact", &e))? {
            return Err(wrong());
        }
        let length = field(value, "length")?.as_f64().unwrap_or(0.0).min(10_000.0) as u32;
        let mut secrets = Secrets::default();
        for i in 0..length {
            let at = super::text::join(&["redact[", &super::text::number(i as u64), "]"]);
            let item = guard::item(value, i).map_err(|e| unreadable(&at, &e))?;
            if let Some(name) = item.as_string() {
                let name = normalized_name(&name);
                if name.is_empty() {
                    return Err(InvalidOption::new(&at, Problem::Empty));
                }
                secrets.names.push(name);
            } else if item.is_instance_of::<js_sys::RegExp>() {
                secrets.patterns.push(copy_pattern(&item).map_err(|e| unreadable(&at, &e))?);
            } else {
                return Err(InvalidOption::new(
                    &at,
                    Problem::WrongType { expected: "a string or a RegExp", found: kind(&item) },
                ));
            }
        }
        Ok(secrets)
    }

    /// No names or patterns of the caller's: the built-in redaction is all there is.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.patterns.is_empty()
    }

    /// Whether a decoded parameter name is one of the caller's secrets. A pattern that throws
    /// counts as a match: when in doubt, redact.
    pub fn is_secret(&self, name: &str) -> bool {
        let n = normalized_name(name);
        self.names.contains(&n)
            || self
                .patterns
                .iter()
                .any(|p| guard::invoke(p, "test", &[&JsValue::from_str(name)]).map_or(true, |m| m.is_truthy()))
    }

    pub fn url(&self, url: &str) -> String {
        redact_url_with(url, &|name| self.is_secret(name))
    }

    pub fn text(&self, text: &str) -> String {
        redact_text_with(text, &|name| self.is_secret(name))
    }
}

fn copy_pattern(pattern: &JsValue) -> Result<JsValue, JsValue> {
    let source = guard::get(pattern, "source")?;
    let flags: String =
        guard::get(pattern, "flags")?.as_string().unwrap_or_default().chars().filter(|c| !"gy".contains(*c)).collect();
    guard::construct("RegExp", &[&source, &JsValue::from_str(&flags)])
}
