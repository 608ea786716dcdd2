//! Records may be read by anyone operating the system: no credential reaches them.
#![cfg(not(target_arch = "wasm32"))]

use retryline::redact::redact_url;

#[test]
fn secret_query_values_are_redacted() {
    let table = [
        ("https://x.test/a?signature=abc", "https://x.test/a?signature=REDACTED"),
        ("https://x.test/a?apiKey=K&b=1", "https://x.test/a?apiKey=REDACTED&b=1"),
        ("https://x.test/a?api_key=K", "https://x.test/a?api_key=REDACTED"),
        ("https://x.test/a?API-KEY=K", "https://x.test/a?API-KEY=REDACTED"),
        ("https://x.test/a?key=K", "https://x.test/a?key=REDACTED"),
        ("https://x.test/a?token=T&access_token=U", "https://x.test/a?token=REDACTED&access_token=REDACTED"),
        ("https://x.test/a?client_secret=S", "https://x.test/a?client_secret=REDACTED"),
        ("https://x.test/a?password=p&passphrase=q", "https://x.test/a?password=REDACTED&passphrase=REDACTED"),
        ("https://x.test/a?sig=s", "https://x.test/a?sig=REDACTED"),
    ];
    for (url, expected) in table {
        assert_eq!(redact_url(url), expected, "{url}");
    }
}

#[test]
fn ordinary_parameters_stay_readable() {
    let url = "https://api.x.test/api/v3/ticker?symbol=BTCUSDT&limit=5&timestamp=1700000000000";
    assert_eq!(redact_url(url), url);
}

#[test]
fn user_info_and_fragments_are_removed() {
    assert_eq!(redact_url("https://alice:hunter2@x.test/p?q=1#tok"), "https://x.test/p?q=1");
    assert_eq!(redact_url("https://alice@x.test:8443/p"), "https://x.test:8443/p");
}

#[test]
fn odd_urls_never_panic() {
    for url in ["", "?", "&&", "?=&=", "http://", "://@", "a?b", "x?token", "x?token=", "é?ü=ß&key=ñ"] {
        let out = redact_url(url);
        assert!(!out.contains("ñ"), "{url} → {out}");
    }
}

#[test]
fn encoded_names_more_credential_words_and_semicolons_are_redacted() {
    let table = [
        ("https://x.test/a?%73ignature=abc", "https://x.test/a?%73ignature=REDACTED"),
        ("https://x.test/a?%2573ignature=abc", "https://x.test/a?%2573ignature=REDACTED"),
        ("https://x.test/a?api%5Fkey=K", "https://x.test/a?api%5Fkey=REDACTED"),
        (
            "https://x.test/a?hmac=h&jwt=j&pwd=p&pass=q",
            "https://x.test/a?hmac=REDACTED&jwt=REDACTED&pwd=REDACTED&pass=REDACTED",
        ),
        ("https://x.test/a?sessionid=s&code=c", "https://x.test/a?sessionid=REDACTED&code=REDACTED"),
        ("https://x.test/a?symbol=BTC;signature=abc;limit=5", "https://x.test/a?symbol=BTC;signature=REDACTED;limit=5"),
        ("https://x.test/a?api.key=K", "https://x.test/a?api.key=REDACTED"),
        ("https://x.test/a?auth[token]=T", "https://x.test/a?auth[token]=REDACTED"),
    ];
    for (url, expected) in table {
        assert_eq!(redact_url(url), expected, "{url}");
    }
    // Whole-name only: `code` does not hide every `…Code`.
    assert_eq!(redact_url("https://x.test/a?countryCode=DE"), "https://x.test/a?countryCode=DE");
}

#[test]
fn urls_nested_in_values_are_redacted_inside() {
    let url = "https://x.test/login?next=https%3A%2F%2Fy.test%2Fcb%3Ftoken%3Dabc%26x%3D1&lang=en";
    let out = redact_url(url);
    assert!(!out.contains("abc"), "{out}");
    assert_eq!(out, "https://x.test/login?next=https%3A%2F%2Fy.test%2Fcb%3Ftoken%3DREDACTED%26x%3D1&lang=en");
    // A query string carried in a value, and nesting inside nesting.
    assert_eq!(
        redact_url("https://x.test/?state=a%3D1%26secret%3Ds"),
        "https://x.test/?state=a%3D1%26secret%3DREDACTED"
    );
    let twice = "https://x.test/?u=https%3A%2F%2Fy.test%2F%3Fv%3Dhttps%253A%252F%252Fz.test%252F%253Fkey%253DK";
    assert!(!redact_url(twice).contains("K"), "{}", redact_url(twice));
    // Values without secrets are left exactly as they were.
    let plain = "https://x.test/?next=https%3A%2F%2Fy.test%2Fcb%3Fx%3D1";
    assert_eq!(redact_url(plain), plain);
}

#[test]
fn callers_can_name_more_secrets() {
    use retryline::redact::redact_url_with;
    let mine = |name: &str| name == "myParam" || name.starts_with("x-");
    assert_eq!(
        redact_url_with("https://x.test/?myParam=1&x-trace=2&other=3", &mine),
        "https://x.test/?myParam=REDACTED&x-trace=REDACTED&other=3"
    );
    // The built-in names still apply.
    assert_eq!(redact_url_with("https://x.test/?token=1", &mine), "https://x.test/?token=REDACTED");
}

#[test]
fn urls_inside_messages_are_redacted() {
    use retryline::redact::redact_text_with;
    let none = |_: &str| false;
    assert_eq!(
        redact_text_with("request to https://u:p@x.test/a?apiKey=K&b=1 failed, reason: reset", &none),
        "request to https://x.test/a?apiKey=REDACTED&b=1 failed, reason: reset"
    );
    assert_eq!(
        redact_text_with("GET 'wss://x.test/s?token=t' closed", &none),
        "GET 'wss://x.test/s?token=REDACTED' closed"
    );
    assert_eq!(redact_text_with("no url here: a://", &none), "no url here: a://");
    for text in ["://", "x://?token=1://", "é://ü?key=ñ", "\"://\""] {
        assert!(!redact_text_with(text, &none).contains("=1"), "{text}");
    }
}
