//! What JavaScript holds by handle on the fetch path: clients and budgets (calls and streams keep
//! their own slabs, beside their machines).

use super::cell::Local;
use super::slab::Slab;
use crate::budget::Budget;
use crate::draw::Draws;
use crate::policy::Policy;
use crate::redact::normalized_name;

/// A `RetryClient`'s part in the core: its policy, its draws, the caller's own secret names.
pub struct Client {
    pub policy: Policy,
    pub draws: Draws,
    /// Normalized as redaction compares them.
    pub secrets: Vec<String>,
    /// Responses' bodies are read inside their attempts (`readBody`).
    pub read_body: bool,
    /// Names this client in the leases it writes.
    pub owner: String,
    /// `staleIfErrorMs`: how old a kept response its failed reads may serve (0: none).
    pub stale_if_error_ms: u64,
    /// `coalesce`: its reads share the operation of the same read running.
    pub coalesce: bool,
}

impl Client {
    /// Whether a decoded query parameter name is one of the caller's secrets, or in `extra` (the
    /// names the glue found to match the caller's `RegExp`s).
    pub fn is_secret(&self, name: &str, extra: &[&str]) -> bool {
        if self.secrets.is_empty() && extra.is_empty() {
            return false;
        }
        extra.contains(&name) || self.secrets.contains(&normalized_name(name))
    }

    /// `text` (a URL when `url`) redacted with the built-in names, the caller's and `extra`'s.
    pub fn redact(&self, text: &str, url: bool, extra: &[&str]) -> String {
        let secret = |name: &str| self.is_secret(name, extra);
        match url {
            true => crate::redact::redact_url_with(text, &secret),
            false => crate::redact::redact_text_with(text, &secret),
        }
    }
}

pub static CLIENTS: Local<Slab<Client>> = Local::new(Slab::new());
pub static BUDGETS: Local<Slab<Budget>> = Local::new(Slab::new());
