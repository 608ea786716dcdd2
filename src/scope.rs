//! Where provider limits apply by default: the URL's origin.

use crate::text::join;

/// `scheme://host[:port]` of an http(s) URL as a `Request` serializes it (no user-info), read
/// without a URL parser; `None` for any other scheme (the shell asks its platform's URL).
pub fn origin(url: &str) -> Option<String> {
    for scheme in ["https://", "http://"] {
        if let Some(rest) = url.strip_prefix(scheme) {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            return Some(join(&[scheme, rest.get(..end).unwrap_or(rest)]));
        }
    }
    None
}
