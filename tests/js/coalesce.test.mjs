// Coalescing (`coalesce: true`) against the loopback mock exchange, counted at the server: reads of
// one request in one scope share one operation; each caller gets its own readable Response and the
// same records (joined ones marked); an abort or a shorter deadline detaches only its caller; the
// request is aborted when the last caller leaves; orders and other headers never join.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, RetryError, Budget } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

const policy = { deadlineMs: 10_000, attemptTimeoutMs: 3_000, maxAttempts: 3, baseDelayMs: 20 };
const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

test("50 widgets reading one ticker through one budget: one request, 50 readable responses, the joined ones marked", async () => {
  const path = "/api/v3/ticker/one";
  mock.script(path, [{ delayMs: 30, body: { price: "101.5" } }]);
  const budget = new Budget();
  const clients = [new RetryClient({ budget, coalesce: true }), new RetryClient({ budget, coalesce: true })];
  const seen = [];
  const reads = Array.from({ length: 50 }, (_, i) =>
    clients[i % 2].fetch(`${mock.url}${path}`, { headers: { accept: "application/json" } }, { policy, onAttempt: (r) => seen.push([i, r]) }),
  );
  const responses = await Promise.all(reads);
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.equal(mock.requests({ path }).length, 1, "one request for 50 reads");
  assert.ok(bodies.every((b) => b.price === "101.5"), "every caller read the body");
  assert.equal(new Set(responses).size, 50, "each caller its own Response");
  const joined = seen.filter(([, r]) => r.joined === true).map(([i]) => i);
  assert.equal(joined.length, 49, "each joined caller's record says so");
  assert.ok(!joined.includes(0), "the first caller began it");
});

test("without the option, with other headers, or between clients with fetches of their own, reads do not join; an order never does", async () => {
  const path = "/api/v3/ticker/apart";
  mock.script(path, Array.from({ length: 8 }, () => ({ delayMs: 30 })));
  const budget = new Budget();
  const plain = new RetryClient({ budget });
  const coalescing = new RetryClient({ budget, coalesce: true });
  const url = `${mock.url}${path}`;
  await Promise.all([plain.fetch(url), plain.fetch(url)]);
  assert.equal(mock.requests({ path }).length, 2, "off by default");
  await Promise.all([coalescing.fetch(url, { headers: { "x-api-key": "a" } }), coalescing.fetch(url, { headers: { "x-api-key": "b" } })]);
  assert.equal(mock.requests({ path }).length, 4, "another account's key is another request");
  await Promise.all([coalescing.fetch(url, { method: "POST", body: "{}" }), coalescing.fetch(url, { method: "POST", body: "{}" })]);
  assert.equal(mock.requests({ path }).length, 6, "orders are never coalesced");
  // Two clients with fetches of their own (each may add a token the identity does not see): apart.
  const own = () => new RetryClient({ budget, coalesce: true, fetch: (request, init) => fetch(request, init) });
  await Promise.all([own().fetch(url), own().fetch(url)]);
  assert.equal(mock.requests({ path }).length, 8, "clients with their own fetch never join each other");
});

test("a caller that aborts detaches alone; when the last caller leaves, the request is aborted at the server", async () => {
  const path = "/api/v3/ticker/slow";
  mock.script(path, [{ delayMs: 1000 }, { action: "hang" }]);
  const client = new RetryClient({ coalesce: true, policy });
  const url = `${mock.url}${path}`;
  const quitter = new AbortController();
  const stayer = client.fetch(url);
  const leaving = settle(client.fetch(url, { signal: quitter.signal }));
  setTimeout(() => quitter.abort(), 50);
  const left = await leaving;
  assert.ok(left.error instanceof RetryError, String(left.error));
  assert.equal(left.error.reason, "aborted");
  assert.equal(left.error.records.at(-1)?.joined ?? true, true);
  const kept = await stayer;
  assert.equal(kept.status, 200, "the other caller got its answer");
  const [first] = mock.requests({ path });
  assert.equal(first.outcome, "responded", "the request went on for the caller still waiting");
  // Now two callers of a request that hangs, both leave: it is aborted.
  const a = new AbortController();
  const b = new AbortController();
  const both = [settle(client.fetch(url, { signal: a.signal })), settle(client.fetch(url, { signal: b.signal }))];
  await new Promise((resolve) => setTimeout(resolve, 100));
  a.abort();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const [, hung] = mock.requests({ path });
  assert.equal(hung.closedAtMs, null, "one caller still waits: the request stays");
  b.abort();
  const outcomes = await Promise.all(both);
  assert.deepEqual(outcomes.map((o) => o.error?.reason), ["aborted", "aborted"]);
  const closed = () => mock.requests({ path })[1].closedAtMs;
  for (let i = 0; i < 100 && closed() === null; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.notEqual(closed(), null, "the request was aborted when the last caller left");
  assert.equal(mock.requests({ path }).length, 2);
});

test("a joined caller with a shorter deadline gets its own: it rejects deadline on time, the others wait on", async () => {
  const path = "/api/v3/ticker/late";
  mock.script(path, [{ delayMs: 700 }]);
  const client = new RetryClient({ coalesce: true, policy });
  const url = `${mock.url}${path}`;
  const long = client.fetch(url);
  const started = performance.now();
  const control = new Promise((resolve) => setTimeout(() => resolve("control"), 600));
  const short = settle(client.fetch(url, undefined, { deadlineMs: 200 }));
  assert.notEqual(await Promise.race([short, control]), "control", "released before a 600 ms control timer");
  const { error } = await short;
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "deadline");
  assert.ok(performance.now() - started >= 190, "not before its deadline");
  assert.equal((await long).status, 200);
  assert.equal(mock.requests({ path }).length, 1);
});

test("a provider that answers 418 while reads are coalesced: every joined caller is refused, nothing more is sent until the ban ends", async () => {
  const path = "/api/v3/ticker/banned";
  mock.script(path, [{ delayMs: 30, status: 418, retryAfter: 2 }]);
  const client = new RetryClient({ coalesce: true, policy });
  const url = `${mock.url}${path}`;
  const outcomes = await Promise.all(Array.from({ length: 10 }, () => settle(client.fetch(url))));
  assert.deepEqual(new Set(outcomes.map((o) => o.error?.reason)), new Set(["banned"]));
  const again = await settle(client.fetch(url));
  assert.equal(again.error?.reason, "banned", "refused before sending while the ban holds");
  assert.equal(mock.requests({ path }).length, 1, "one request: the 418 answered all ten");
});

test("a body that never ends is cut by the attempt's timeout and retried once for every caller", async () => {
  const path = "/api/v3/ticker/endless";
  mock.script(path, [{ action: "endless" }, { body: { price: "7" } }]);
  const client = new RetryClient({ coalesce: true, readBody: true, policy: { ...policy, attemptTimeoutMs: 300 } });
  const url = `${mock.url}${path}`;
  const responses = await Promise.all(Array.from({ length: 5 }, () => client.fetch(url)));
  const bodies = await Promise.all(responses.map((r) => r.json()));
  assert.deepEqual(bodies.map((b) => b.price), ["7", "7", "7", "7", "7"]);
  assert.equal(mock.requests({ path }).length, 2);
});

test("a caller that never reads its body does not stall the others", async () => {
  const path = "/api/v3/ticker/large";
  const big = "x".repeat(512 * 1024);
  mock.script(path, [{ body: { big } }]);
  const client = new RetryClient({ coalesce: true, policy });
  const url = `${mock.url}${path}`;
  const [ignored, ...readers] = await Promise.all(Array.from({ length: 3 }, () => client.fetch(url)));
  const control = new Promise((resolve) => setTimeout(() => resolve("control"), 5_000));
  const read = Promise.all(readers.map((r) => r.json()));
  const done = await Promise.race([read, control]);
  assert.notEqual(done, "control", "the readers finished while one caller never read");
  assert.ok(done.every((b) => b.big.length === big.length));
  assert.equal(ignored.bodyUsed, false);
  assert.equal(mock.requests({ path }).length, 1);
});

test("coalesce is checked like every option: a misspelt field or a wrong type throws naming it", () => {
  assert.throws(() => new RetryClient({ coalsce: true }), (e) => e instanceof TypeError && /coalsce/.test(e.message));
  assert.throws(() => new RetryClient({ coalesce: "yes" }), (e) => e instanceof TypeError && /coalesce/.test(e.message));
  const client = new RetryClient();
  return assert.rejects(client.fetch(`${mock.url}/api/v3/ping`, undefined, { coalesce: 1 }), (e) => e instanceof TypeError && /coalesce/.test(e.message));
});
