//! Telling, without a URL parser, that an http(s) URL is already in the form the WHATWG URL
//! parser serializes it to — so the shell can use the caller's string as the request's URL
//! instead of building a `URL` object on every call (about 2 µs in Node).
//!
//! Only the common, plain form is recognised: lowercase scheme and host, no user-info, no
//! default or odd port, a path, no dot segments, no fragment, and only characters the parser
//! leaves as they are. Anything else answers `false`, and the shell asks the platform's parser.

/// Whether `new URL(url).href` would be `url` itself (a `false` says nothing).
pub fn is_canonical_http_url(url: &str) -> bool {
    let (rest, default_port) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
        (Some(rest), _) => (rest, "80"),
        (_, Some(rest)) => (rest, "443"),
        _ => return false,
    };
    // `get`, not `split_at`: a slicing panic would pull str's Debug formatting into the wasm.
    let Some((authority, path_and_query)) = rest.find('/').and_then(|at| Some((rest.get(..at)?, rest.get(at..)?)))
    else {
        return false;
    };
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    host_is_canonical(host)
        && port.map_or(true, |p| port_is_canonical(p, default_port))
        && tail_is_canonical(path_and_query)
}

/// Lowercase DNS labels, or a dotted quad in its shortest form. A host that ends in a number
/// is an IPv4 address to the parser (`127.1`, `0x7f.1`), and `xn--` labels are checked as
/// punycode: both are left to it unless plain.
fn host_is_canonical(host: &str) -> bool {
    let (mut labels, mut octets, mut ends_in_number) = (0, 0, false);
    for label in host.split('.') {
        let plain = label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if label.is_empty() || label.starts_with("xn--") || !plain {
            return false;
        }
        labels += 1;
        octets += usize::from(number_below(label, 256));
        ends_in_number = label.starts_with(|c: char| c.is_ascii_digit());
    }
    !ends_in_number || (labels == 4 && octets == 4)
}

/// A decimal below `limit`, without leading zeros (as the parser writes numbers).
fn number_below(text: &str, limit: u32) -> bool {
    let mut value: u32 = 0;
    for b in text.bytes() {
        if !b.is_ascii_digit() || value > limit {
            return false;
        }
        value = value * 10 + u32::from(b - b'0');
    }
    !text.is_empty() && (text == "0" || !text.starts_with('0')) && value < limit
}

/// 1–65535, and not the scheme's default (which the parser drops).
fn port_is_canonical(port: &str, default_port: &str) -> bool {
    number_below(port, 65_536) && port != "0" && port != default_port
}

/// Path and query: characters the parser copies unchanged; no segment that starts with a dot
/// (`.`/`..` are resolved) and no `%2e` (a dot to the parser); no fragment.
fn tail_is_canonical(tail: &str) -> bool {
    let kept = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&()*+,;=:/?%".contains(&b);
    let bytes = tail.as_bytes();
    let encoded_dot = bytes.windows(3).any(|w| matches!(w, [b'%', b'2', e] if e | 0x20 == b'e'));
    let path = tail.split('?').next().unwrap_or_default();
    bytes.iter().all(|&b| kept(b)) && !encoded_dot && !path.split('/').any(|segment| segment.starts_with('.'))
}
