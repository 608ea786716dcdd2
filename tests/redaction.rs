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
