//! Redaction reads percent escapes as a URL parser does: either case of hex digits, `+` as a
//! space, and a `%` that starts no valid escape kept as it is.
#![cfg(not(target_arch = "wasm32"))]

use retryline::redact::redact_url;

#[test]
fn lowercase_escapes_in_a_name_are_read_like_uppercase_ones() {
    let table = [
        ("https://x.test/?api%5fkey=K", "https://x.test/?api%5fkey=REDACTED"),
        ("https://x.test/?%74%6f%6b%65%6e=T", "https://x.test/?%74%6f%6b%65%6e=REDACTED"),
        ("https://x.test/?%4b%45%59=K", "https://x.test/?%4b%45%59=REDACTED"),
    ];
    for (url, expected) in table {
        assert_eq!(redact_url(url), expected, "{url}");
    }
}

#[test]
fn a_nested_value_written_with_lowercase_escapes_keeps_its_other_values_exactly() {
    // `%4b` is `K`, not `k`; `%c3%a9` is `é` (two UTF-8 bytes).
    assert_eq!(
        redact_url("https://x.test/?state=a%3d%4bb%c3%a9%26secret%3ds"),
        "https://x.test/?state=a%3DKb%C3%A9%26secret%3DREDACTED"
    );
    assert_eq!(
        redact_url("https://x.test/?state=a%3D%4Bb%C3%A9%26secret%3Ds"),
        "https://x.test/?state=a%3DKb%C3%A9%26secret%3DREDACTED"
    );
}

#[test]
fn a_plus_in_a_nested_value_still_means_a_space_after_redaction() {
    assert_eq!(redact_url("https://x.test/?q=a%3D1+2%26token%3Dt"), "https://x.test/?q=a%3D1%202%26token%3DREDACTED");
    assert_eq!(redact_url("https://x.test/?q=+a%3D1%26token%3Dt"), "https://x.test/?q=%20a%3D1%26token%3DREDACTED");
}

#[test]
fn a_stray_percent_sign_does_not_hide_the_escape_after_it() {
    assert_eq!(redact_url("https://x.test/?%%73ignature=abc"), "https://x.test/?%%73ignature=REDACTED");
    assert_eq!(redact_url("https://x.test/?%zz%73ecret=abc"), "https://x.test/?%zz%73ecret=REDACTED");
}

#[test]
fn a_malformed_escape_is_not_decoded_into_something_else() {
    // `%7G` is no escape: the name is `%7Gass`, not `pass`, and the value stays readable.
    assert_eq!(redact_url("https://x.test/?%7Gass=1"), "https://x.test/?%7Gass=1");
    // A `%` at the very end, or followed by one digit, is kept as well.
    assert_eq!(redact_url("https://x.test/?a=1%&b=%4"), "https://x.test/?a=1%&b=%4");
}

#[test]
fn a_nested_value_with_nothing_secret_keeps_its_own_escapes() {
    for url in [
        "https://x.test/?next=https%3a%2f%2fy.test%2fcb%3fx%3d1",
        "https://x.test/?q=a+b%3D1%26c%3D2",
        "https://x.test/?next=%2Fhome%3Fpage%3d2",
    ] {
        assert_eq!(redact_url(url), url, "nothing to redact: not even re-encoded");
    }
}
