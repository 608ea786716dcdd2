//! URLs and query strings carried inside values: credentials are removed at every level, and
//! a value nested more than three levels inside the URL is redacted whole rather than searched.
#![cfg(not(target_arch = "wasm32"))]

use retryline::redact::redact_url;

/// `encodeURIComponent`.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn user_info_of_a_url_carried_in_a_value_is_removed() {
    let url = format!("https://x.test/login?next={}", encode("https://alice:hunter2@y.test/cb"));
    assert_eq!(redact_url(&url), format!("https://x.test/login?next={}", encode("https://y.test/cb")));
}

/// `https://x.test/?next=` carrying a chain of `depth` more URLs, each `?next=` the one after;
/// the innermost carries `query`.
fn chain(depth: usize, query: &str) -> String {
    let hosts = ["a", "b", "c", "d", "e", "f"];
    let mut inner = format!("https://{}.test/?{query}", hosts[depth - 1]);
    for host in hosts[..depth - 1].iter().rev() {
        inner = format!("https://{host}.test/?next={}", encode(&inner));
    }
    format!("https://x.test/?next={}", encode(&inner))
}

#[test]
fn a_url_nested_three_levels_inside_is_searched() {
    let out = redact_url(&chain(3, "token=s3cr3t"));
    assert!(out.contains("REDACTED") && !out.contains("s3cr3t"), "{out}");
    assert!(out.contains("c.test"), "the rest stays readable: {out}");
    let plain = chain(3, "x=1");
    assert_eq!(redact_url(&plain), plain, "nothing secret: left exactly as it was");
}

#[test]
fn a_url_nested_four_levels_inside_is_redacted_whole() {
    let out = redact_url(&chain(4, "x=1"));
    assert!(out.contains("c.test"), "{out}");
    assert!(!out.contains("d.test"), "the fourth level is not searched but redacted: {out}");
    assert!(out.contains("REDACTED"), "{out}");
}

#[test]
fn a_query_string_nested_four_levels_inside_is_redacted_whole() {
    let three = "https://x.test/?a=b=c=d=e";
    assert_eq!(redact_url(three), three, "three levels inside: searched, nothing secret, left alone");
    let out = redact_url("https://x.test/?a=b=c=d=e=f");
    assert!(out.contains("REDACTED") && !out.contains("e=f"), "{out}");
}

/// An escaped `&` inside a secret one level down (`%2526`) belongs to the secret: decoding the
/// outer value must not turn it into a separator that splits the secret's tail off.
#[test]
fn a_secret_with_an_escaped_ampersand_in_a_nested_url_is_redacted_whole() {
    let url = format!("https://x.test/?next={}", encode("https://b.test/?token=ab%26cdSECRETTAIL"));
    let out = redact_url(&url);
    assert!(!out.contains("SECRETTAIL"), "{out}");
}

/// `text` percent-encoded `times` times.
fn encoded(text: &str, times: usize) -> String {
    (0..times).fold(text.to_owned(), |t, _| encode(&t))
}

#[test]
fn a_value_encoded_four_times_is_still_searched() {
    let plain = format!("https://x.test/?q={}", encoded("x=1", 4));
    assert_eq!(redact_url(&plain), plain);
    let secret = format!("https://x.test/?q={}", encoded("token=s3cr3t", 4));
    let out = redact_url(&secret);
    assert!(out.contains("REDACTED") && !out.contains("s3cr3t"), "{out}");
}

#[test]
fn a_value_encoded_five_times_is_redacted_whole_rather_than_decoded_on() {
    let out = redact_url(&format!("https://x.test/?q={}&n=1", encoded("x=1", 5)));
    assert_eq!(out, "https://x.test/?q=REDACTED&n=1");
}
