//! Redaction of URLs for records: an operator may read them, an attacker must not profit.
//!
//! Removed: user-info (`user:pass@`), the fragment, and the value of every query
//! parameter whose name looks like a credential (`signature`, `apiKey`, `api_key`,
//! `key`, `token`, `secret`, `password`, …). Headers never reach records at all.

const REDACTED: &str = "REDACTED";

/// Name fragments that mark a query parameter as secret, compared without case, `-` or `_`.
const SECRET_PARTS: [&str; 9] =
    ["signature", "key", "token", "secret", "password", "passphrase", "auth", "sig", "credential"];

/// A copy of `url` safe to store in a record.
pub fn redact_url(url: &str) -> String {
    let without_fragment = url.split('#').next().unwrap_or("");
    let (head, query) = match without_fragment.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (without_fragment, None),
    };
    let mut out = strip_user_info(head);
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query.split('&').map(redact_pair).collect();
        out.push_str(&pairs.join("&"));
    }
    out
}

fn strip_user_info(head: &str) -> String {
    let Some((scheme, rest)) = head.split_once("://") else {
        return head.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    format!("{scheme}://{host}{path}")
}

fn redact_pair(pair: &str) -> String {
    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
    if !value.is_empty() && is_secret(name) {
        format!("{name}={REDACTED}")
    } else {
        pair.to_owned()
    }
}

fn is_secret(name: &str) -> bool {
    // ASCII folding is enough for parameter names, and keeps Unicode case tables out of the wasm.
    let normalized: String = name.chars().filter(|c| *c != '-' && *c != '_').map(|c| c.to_ascii_lowercase()).collect();
    SECRET_PARTS.iter().any(|part| normalized.contains(part))
}
