// staleIfErrorMs against the loopback mock exchange, counted at the server: a read that fails
// serves its last good response, marked (`staleness`, an `Age` header, a record), and nothing else
// ever does.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, RetryError, Budget, staleness } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

const policy = { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 5, attemptTimeoutMs: 1_000, deadlineMs: 3_000 };

test("a read that fails serves its last good response, marked stale, with its Age and a record", async () => {
  const path = "/api/v3/ticker/price";
  mock.script(path, [{ body: { price: "101.5" } }, { status: 503 }, { status: 503 }]);
  const client = new RetryClient({ policy, staleIfErrorMs: 30_000 });
  const before = Date.now();
  const fresh = await client.fetch(`${mock.url}${path}?symbol=BTCUSDT`);
  assert.equal(staleness(fresh), null);
  assert.equal((await fresh.json()).price, "101.5");
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const old = await client.fetch(`${mock.url}${path}?symbol=BTCUSDT`);
  assert.equal(old.status, 200);
  assert.equal((await old.json()).price, "101.5", "the kept body, readable");
  const mark = staleness(old);
  assert.equal(mark.reason, "attempts");
  // Kept when the first read settled, between `before` and now.
  assert.ok(mark.ageMs >= 1_100 && mark.ageMs <= Date.now() - before, `${mark.ageMs}`);
  assert.equal(old.headers.get("age"), String(Math.floor(mark.ageMs / 1000)));
  const last = mark.records.at(-1);
  assert.deepEqual([last.decision, last.reason, last.staleAgeMs], ["stale", "attempts", mark.ageMs]);
  assert.equal(mark.records.filter((r) => r.decision === "sent").length, 2);
  assert.equal(mock.requests({ path }).length, 3, "one fresh read, then two attempts that failed");
});

test("never stale where it could be taken as fresh: too old, another request's headers, an order, a 404, asFetch", async () => {
  const path = "/api/v3/account";
  const client = new RetryClient({ policy, staleIfErrorMs: 1_000 });
  const url = `${mock.url}${path}`;
  const keyA = { headers: { "x-mbx-apikey": "A" } };
  mock.script(path, [{ body: { balance: 1 } }]);
  await (await client.fetch(url, keyA)).json();
  // Another account's key: the kept answer is not its own.
  mock.script(path, [{ status: 503 }, { status: 503 }]);
  await assert.rejects(client.fetch(url, { headers: { "x-mbx-apikey": "B" } }), (e) => e instanceof RetryError && e.reason === "attempts");
  // A 404 says repeating cannot help: it is not covered up.
  mock.script(path, [{ status: 404 }]);
  await assert.rejects(client.fetch(url, keyA), (e) => e.reason === "non-retryable");
  // asFetch resolves with the provider's own last answer unless its defaults ask for stale.
  mock.script(path, [{ status: 503 }, { status: 503 }]);
  assert.equal((await client.asFetch()(url, keyA)).status, 503);
  mock.script(path, [{ body: { balance: 2 } }, { status: 503 }, { status: 503 }]);
  await (await client.fetch(url, keyA)).json(); // kept afresh: the steps above took time
  const asked = await client.asFetch({ staleIfErrorMs: 60_000 })(url, keyA);
  assert.equal(staleness(asked)?.reason, "attempts");
  assert.equal((await asked.json()).balance, 2);
  // Older than staleIfErrorMs: rejected as it would have been.
  await new Promise((resolve) => setTimeout(resolve, 1_050));
  mock.script(path, [{ status: 503 }, { status: 503 }]);
  await assert.rejects(client.fetch(url, keyA), (e) => e.reason === "attempts" && e.records.every((r) => r.decision !== "stale"));
  // An order is never kept nor served.
  const order = "/api/v3/order";
  mock.script(order, [{ status: 503 }], { method: "POST" });
  await assert.rejects(client.fetch(`${mock.url}${order}`, { method: "POST" }), (e) => e.reason === "unknown-outcome");
});

test("a banned scope serves the kept read without sending, its mark saying banned", async () => {
  const path = "/api/v3/ticker/ban";
  const budget = new Budget();
  const client = new RetryClient({ policy, budget });
  mock.script(path, [{ body: { price: "7" } }, { status: 418, retryAfter: 30 }]);
  await (await client.fetch(`${mock.url}${path}`, undefined, { staleIfErrorMs: 60_000 })).arrayBuffer();
  await assert.rejects(client.fetch(`${mock.url}${path}`), (e) => e.reason === "banned");
  const sent = mock.requests({ path }).length;
  const stale = await client.fetch(`${mock.url}${path}`, undefined, { staleIfErrorMs: 60_000 });
  assert.equal(staleness(stale).reason, "banned");
  assert.equal((await stale.json()).price, "7");
  assert.equal(mock.requests({ path }).length, sent, "nothing sent while banned");
});

test("staleIfErrorMs is checked like every other field", () => {
  assert.throws(() => new RetryClient({ staleIfErrorMs: -1 }), /staleIfErrorMs/);
  assert.throws(() => new RetryClient({ staleIfErrorMS: 10 }), (e) => e instanceof TypeError && /staleIfErrorMS/.test(e.message));
  const client = new RetryClient();
  assert.rejects(client.fetch(`${mock.url}/x`, undefined, { staleIfErrorMs: "1s" }), /staleIfErrorMs/);
  assert.equal(staleness(new Response("made here")), null);
  assert.equal(staleness(undefined), null);
});
