//! `is_canonical_http_url` against the `url` crate (a WHATWG URL parser): whatever it calls
//! canonical must serialize to itself, and the plain URLs of real use must be recognised.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use retryline::canonical_url::is_canonical_http_url;
use retryline::Rng;

fn href(s: &str) -> Option<String> {
    url::Url::parse(s).ok().map(|u| u.as_str().to_owned())
}

#[test]
fn plain_urls_of_real_use_are_canonical() {
    for url in [
        "https://api.binance.com/api/v3/ticker/price?symbol=BTCUSDT",
        "http://127.0.0.1:8080/api/v3/order?symbol=ETHUSDT&side=BUY&timestamp=1700000000000&signature=ab12",
        "https://example.com/",
        "https://a-b.example.co.uk/x/y/?q=1&r=%20x",
        "http://10.0.0.255:65535/",
        "https://api.kraken.com/0/public/Ticker?pair=XBTUSD",
    ] {
        assert!(is_canonical_http_url(url), "{url}");
        assert_eq!(href(url).as_deref(), Some(url));
    }
}

#[test]
fn forms_the_parser_rewrites_are_left_to_it() {
    for url in [
        "HTTP://example.com/",
        "http://Example.com/",
        "http://example.com",
        "http://example.com:80/",
        "https://example.com:443/",
        "http://example.com:/",
        "http://example.com:080/",
        "http://example.com:65536/",
        "http://127.1/",
        "http://0x7f.0.0.1/",
        "http://127.000.0.1/",
        "http://256.0.0.1/",
        "http://1.2.3.4.5/",
        "http://example.com/a/../b",
        "http://example.com/a/./b",
        "http://example.com/%2e%2E/b",
        "http://example.com/.well-known/x",
        "http://example.com/a b",
        "http://example.com/a#frag",
        "http://example.com/a\\b",
        "http://example.com/?q='x'",
        "http://example.com/{x}",
        "http://xn--nxasmq6b.example/",
        "http://exa..mple.com/",
        "http://example.com./",
        "http://user@example.com/",
        "http://example.com/é",
        "ftp://example.com/",
        "http:/example.com/",
        "",
    ] {
        assert!(!is_canonical_http_url(url), "{url}");
    }
}

/// Strings built from the characters that matter to the parser, biased towards plain ones so
/// that many are canonical: each canonical answer must serialize to itself.
#[test]
fn a_canonical_answer_is_never_wrong() {
    let mut rng = Rng::seeded(9);
    let mut pick = |set: &[&str]| set[rng.between(0, set.len() as u64 - 1) as usize].to_owned();
    let (mut canonical, mut tried) = (0, 0);
    for _ in 0..300_000 {
        let scheme = pick(&["http://", "https://", "https://", "HTTP://", "http:/"]);
        let host: String = (0..4)
            .map(|_| {
                pick(&[
                    "a", "b9", "c", "ex", "a", "b9", "c", ".", ".", "-", "", "0", "1", "25", "256", "0x7f", "X",
                    "xn--a",
                ])
            })
            .collect();
        let port = pick(&["", "", "", ":", ":80", ":443", ":8080", ":08", ":65535", ":65536"]);
        // Plain characters weigh most: the odd ones (each a rewrite or a refusal) come one in four.
        const PLAIN: [&str; 21] =
            ["/", "/", "/", "a", "Z", "9", "?", "&", "=", "~", "%20", ":", "-", "_", "(", "*", "$", "!", ",", ";", "+"];
        const ODD: [&str; 17] =
            [".", "..", "%2e", "%2F", "%", "#", "'", "\\", " ", "@", "[", "{", "|", "^", "`", "é", "\t"];
        let weighted: Vec<&str> =
            PLAIN.iter().chain(PLAIN.iter()).chain(PLAIN.iter()).chain(ODD.iter()).copied().collect();
        let tail: String = (0..6).map(|_| pick(&weighted)).collect();
        let url = format!("{scheme}{host}{port}{tail}");
        tried += 1;
        if is_canonical_http_url(&url) {
            canonical += 1;
            assert_eq!(href(&url), Some(url.clone()), "called canonical: {url}");
        }
    }
    // The bias must give the oracle plenty of positives to check.
    assert!(canonical > tried / 300, "{canonical} of {tried}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    /// Dotted quads, in and out of their shortest form.
    #[test]
    fn ipv4_hosts_are_canonical_only_in_their_shortest_form(parts in prop::collection::vec("0x[0-9a-f]{1,2}|[0-9]{1,4}", 1..6)) {
        let url = format!("http://{}/x", parts.join("."));
        if is_canonical_http_url(&url) {
            prop_assert_eq!(href(&url), Some(url.clone()));
        }
    }
}
