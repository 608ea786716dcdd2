// The JavaScript shell hands a bare URL to the platform's fetch as it is, and records it as it is,
// when it is already in the form the WHATWG URL parser serializes it to. The check may say "no" to
// plain URLs (the parser is then asked), never "yes" to one the parser would rewrite: the oracle is
// `new URL(url).href`, over generated URLs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isCanonicalHttpUrl } from "../../js/platform/request.js";

function* urls(seed, count) {
  let state = seed >>> 0 || 1;
  const pick = (list) => {
    // xorshift32: a fixed, fast sequence of picks.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return list[state % list.length];
  };
  const schemes = ["http", "https", "HTTP", "hTtps", "ftp"];
  const hosts = ["example.com", "api.binance.com", "EXAMPLE.com", "127.0.0.1", "127.1", "0x7f.0.0.1", "1.2.3.04", "256.1.1.1", "xn--nxasmq6b.com", "a..b", "host-1.io", "[::1]", "1.2.3", "09.1.1.1", "a_b.com", "ex%41mple.com"];
  const ports = ["", ":80", ":443", ":8080", ":0", ":65535", ":65536", ":080", ":"];
  const paths = ["", "/", "/a", "/a/b", "/./a", "/a/../b", "/.hidden", "/a%2e", "/%2E%2E/x", "/a b", "/ä", "/a\\b", "/~u/x", "/a;b=c", "/a:b", "/a|b"];
  const queries = ["", "?", "?x=1", "?x=1&y=2", "?a=%20", "?a=b c", "?a=ä", "?a='b'", "?a=`b`", "?x=1#f", "#f", "?a=[1]"];
  for (let i = 0; i < count; i++) yield `${pick(schemes)}://${pick(["", "", "", "user:pass@"])}${pick(hosts)}${pick(ports)}${pick(paths)}${pick(queries)}`;
}

test("a URL called plain is one the parser leaves as it is (no false yes over 20 000 generated URLs)", () => {
  let plain = 0;
  let unchanged = 0;
  for (const url of urls(7, 20_000)) {
    let href;
    try {
      href = new URL(url).href;
    } catch {}
    if (href === url && /^https?:/.test(url)) unchanged++;
    if (!isCanonicalHttpUrl(url)) continue;
    plain++;
    assert.equal(href, url, url);
  }
  // It says no to forms it does not parse itself (fragments, `|`, `_`, a segment starting with a
  // dot…) and the parser is then asked; enough yes answers are here for the oracle to bite.
  assert.ok(plain > 50 && unchanged > plain, `${plain} called plain of ${unchanged} the parser leaves as they are`);
});

test("the common forms are recognised", () => {
  for (const url of ["https://api.binance.com/api/v3/ticker/price?symbol=BTCUSDT", "http://127.0.0.1:8080/x", "https://example.com/", "http://10.0.0.1/a/b?c=d&e=f"]) {
    assert.equal(isCanonicalHttpUrl(url), true, url);
  }
  for (const url of ["https://example.com", "https://EXAMPLE.com/", "https://example.com:443/", "http://127.1/", "https://example.com/a/../b", "https://u:p@example.com/"]) {
    assert.equal(isCanonicalHttpUrl(url), false, url);
  }
});
