// Provider waits beyond Retry-After: RateLimit-Reset and kin, honoured as minimums where a
// response is retried. Every wait is timed at the mock exchange: the gap between its answer and
// the next request it received.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient } from "../../js/node.js";

const PATH = "/api/v3/ticker/price";
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(() => mock?.close());
beforeEach(() => mock.reset());

/** Runs one call whose first answer is `first` (then 200); the server's gap and the records. */
async function gapAfter(first) {
  mock.reset();
  mock.script(PATH, [first, { status: 200 }]);
  const records = [];
  const client = new RetryClient({ policy: { baseDelayMs: 10, maxDelayMs: 10 }, onAttempt: (r) => records.push(r) });
  const res = await client.fetch(`${mock.url}${PATH}`);
  assert.equal(res.status, 200);
  const [a, b] = mock.requests({ path: PATH });
  return { gap: b.receivedAtMs - a.respondedAtMs, records };
}

test("RateLimit-Reset (delta seconds) holds the retry for what it says", async () => {
  const { gap, records } = await gapAfter({ status: 429, headers: { "RateLimit-Reset": "1" } });
  assert.ok(gap >= 1000, `retried ${gap.toFixed(0)} ms after a reset of 1 s`);
  assert.equal(records[1].retryAfter, "ratelimit-reset");
  assert.ok(records[1].providerWaitMs >= 1000);
});

test("X-RateLimit-Reset as epoch seconds is measured against the response's Date", async () => {
  // The server's clock says the reset is 2 s ahead of its Date (both whole seconds).
  const date = Math.floor(Date.now() / 1000);
  const { gap, records } = await gapAfter({ status: 503, headers: { "X-RateLimit-Reset": String(date + 2), Date: new Date(date * 1000).toUTCString() } });
  assert.ok(gap >= 1990, `retried ${gap.toFixed(0)} ms after an epoch reset 2 s past Date`);
  assert.equal(records[1].retryAfter, "x-ratelimit-reset");
});

test("X-RateLimit-Retry-After and X-Rate-Limit-Reset count too; a fraction is rounded up", async () => {
  const a = await gapAfter({ status: 429, headers: { "X-RateLimit-Retry-After": "0.6" } });
  assert.ok(a.gap >= 600, `${a.gap.toFixed(0)} ms`);
  assert.equal(a.records[1].retryAfter, "x-ratelimit-retry-after");
  const b = await gapAfter({ status: 429, headers: { "X-Rate-Limit-Reset": "1" } });
  assert.ok(b.gap >= 1000, `${b.gap.toFixed(0)} ms`);
  assert.equal(b.records[1].retryAfter, "x-rate-limit-reset");
});

test("Retry-After wins over a reset header when both are there", async () => {
  const { gap, records } = await gapAfter({ status: 429, retryAfter: 1, headers: { "RateLimit-Reset": "3" } });
  assert.ok(gap >= 1000 && gap < 2900, `retried ${gap.toFixed(0)} ms after Retry-After 1 beside a reset of 3`);
  assert.equal(records[1].retryAfter, "seconds");
});

test("an unreadable reset value is no wait, and a success's reset header is never read", async () => {
  const { gap, records } = await gapAfter({ status: 503, headers: { "RateLimit-Reset": "soon" } });
  assert.ok(gap < 900, `${gap.toFixed(0)} ms`);
  assert.equal(records[1].retryAfter, null);
});

test("a family's providerWaitHeaders narrows them: [\"Retry-After\"] ignores the reset headers", async () => {
  mock.script(PATH, [{ status: 429, headers: { "RateLimit-Reset": "2" } }, { status: 200 }]);
  const records = [];
  const client = new RetryClient({
    policy: { baseDelayMs: 10, maxDelayMs: 10 },
    onAttempt: (r) => records.push(r),
    families: [{ name: "trust Retry-After alone", match: { url: `${mock.url}/api/*` }, providerWaitHeaders: ["Retry-After"] }],
  });
  await client.fetch(`${mock.url}${PATH}`);
  const [a, b] = mock.requests({ path: PATH });
  assert.ok(b.receivedAtMs - a.respondedAtMs < 1500, `${(b.receivedAtMs - a.respondedAtMs).toFixed(0)} ms: the reset header was not the family's`);
  assert.equal(records[1].retryAfter, null);
  assert.deepEqual(client.worksheet().rows[0].providerWaitHeaders, ["retry-after"]);
  assert.throws(() => new RetryClient({ families: [{ name: "x", match: { url: "https://x.test/*" }, providerWaitHeaders: ["X-Wait-Ms"] }] }), /providerWaitHeaders: "x-wait-ms" is not a header retryline reads/);
});
