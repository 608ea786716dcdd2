// Integration tests of RetryClient: real Node fetch against the real mock exchange on 127.0.0.1.
// Run: node scripts/build.mjs --quiet && node --test tests/js/client.test.mjs
//
// Waits are proven with the SERVER's timestamps (receivedAtMs / respondedAtMs, high-res Unix ms)
// and wire traffic with the SERVER's log (mock.requests()), never with client timers alone.
// Time bounds are lower bounds; the few upper bounds are generous and only where the point of the
// test is that something did NOT wait (a refused proposal, an abort).
import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { RetryClient, RetryError, Budget } from "../../js/node.js";
import { startMockExchange } from "./mock-exchange.mjs";

const ORDER = "/api/v3/order";
const TICKER = "/api/v3/ticker";

// The mock's clock: Unix ms with sub-ms precision, comparable with receivedAtMs and friends.
const nowMs = () => performance.timeOrigin + performance.now();

// Short, jitter-free waits unless a test needs otherwise.
const FAST = { baseDelayMs: 20, maxDelayMs: 200, jitter: "none", maxAttempts: 3, attemptTimeoutMs: 1000, deadlineMs: 10_000 };

let mock;
beforeEach(async () => {
  mock = await startMockExchange({ port: 0 });
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** Awaits a promise that must reject with a RetryError; returns the error. */
async function retryError(promise) {
  let value;
  try {
    value = await promise;
  } catch (err) {
    assert.ok(err instanceof RetryError, `expected a RetryError, got ${err?.name}: ${err?.message}`);
    assert.ok(err instanceof Error);
    assert.equal(err.name, "RetryError");
    return err;
  }
  assert.fail(`expected a RetryError, but it resolved with status ${value?.status}`);
}

/** A client whose onAttempt records land in `seen`. */
function recordingClient(options = {}) {
  const seen = [];
  const client = new RetryClient({ policy: FAST, ...options, onAttempt: (r) => seen.push(r) });
  return { client, seen };
}

const sentRecords = (records) => records.filter((r) => r.decision === "sent");

/** Polls until `check()` is truthy (server-side state settles asynchronously). */
async function eventually(check, what, timeoutMs = 5000) {
  const until = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > until) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Blocks the event loop: a throttled tab or a suspended worker, as seen by the timers. */
function busyWait(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

// ─── 1 ───────────────────────────────────────────────────────────────────────────────────────────
test("1. a 2xx passes through: status, headers, readable JSON body; one request; one success record", async () => {
  mock.script(TICKER, [{ status: 201, body: { symbol: "BTCUSDT", price: "42000.50" }, headers: { "X-Extra": "yes" } }]);
  const { client, seen } = recordingClient();
  const url = `${mock.url}${TICKER}?symbol=BTCUSDT`;

  const res = await client.fetch(url);

  assert.ok(res instanceof Response);
  assert.equal(res.status, 201);
  assert.equal(res.ok, true);
  assert.equal(res.url, url);
  assert.equal(res.headers.get("x-extra"), "yes");
  assert.match(res.headers.get("content-type"), /application\/json/);
  assert.equal(res.bodyUsed, false);
  assert.deepEqual(await res.json(), { symbol: "BTCUSDT", price: "42000.50" });

  assert.equal(mock.requests().length, 1, "one request on the wire");
  assert.equal(seen.length, 1, "onAttempt saw exactly one record");
  const [record] = seen;
  assert.deepEqual(JSON.parse(JSON.stringify(record)), record, "records are plain JSON");
  assert.equal(record.attempt, 1);
  assert.equal(record.decision, "sent");
  assert.equal(record.reason, "success");
  assert.equal(record.outcome, "response");
  assert.equal(record.status, 201);
  assert.equal(record.operation, "read");
  assert.equal(record.method, "GET");
  assert.equal(record.url, url);
  assert.equal(record.scope, mock.url, "the default scope is the URL origin");
  assert.equal(record.windowMs, null, "no wait preceded the initial request");
  assert.equal(record.plannedWaitMs, 0);
});

test("1b. a 204 passes through with a null body", async () => {
  mock.script(TICKER, [{ status: 204 }]);
  const res = await new RetryClient({ policy: FAST }).fetch(`${mock.url}${TICKER}`);
  assert.equal(res.status, 204);
  assert.equal(res.body, null);
  assert.equal(mock.requests().length, 1);
});

// ─── 2 ───────────────────────────────────────────────────────────────────────────────────────────
test("2. 400 → non-retryable after exactly one request; the response and its JSON body are on the error", async () => {
  mock.script(ORDER, [{ status: 400, body: { code: -1102, msg: "Mandatory parameter 'symbol' was not sent." } }], { method: "GET" });
  const { client, seen } = recordingClient();
  const url = `${mock.url}${ORDER}?origClientOrderId=x-1`;

  const err = await retryError(client.fetch(url));

  assert.equal(err.reason, "non-retryable");
  assert.equal(mock.requests().length, 1);
  assert.ok(err.response instanceof Response);
  assert.equal(err.response.status, 400);
  assert.deepEqual(await err.response.json(), { code: -1102, msg: "Mandatory parameter 'symbol' was not sent." });
  assert.equal(err.records.length, 1);
  assert.equal(err.records[0].decision, "sent");
  assert.equal(err.records[0].status, 400);
  assert.equal(err.records[0].reason, "non-retryable");
  assert.deepEqual(seen, err.records, "onAttempt saw the same records");
  assert.ok(err.message.includes("GET"), err.message);
  assert.ok(err.message.includes(url), err.message);
  assert.match(err.message, /non-retryable after 1 request\b/);
});

// ─── 3 ───────────────────────────────────────────────────────────────────────────────────────────
test("3. 503, 503, 200 → success after 3 requests; server-side gaps respect the jitter-free windows", async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 503 }, {}]);
  const policy = { ...FAST, baseDelayMs: 60, maxDelayMs: 1000 }; // windows 60, 120
  const { client, seen } = recordingClient({ policy });

  const res = await client.fetch(`${mock.url}${TICKER}`);

  assert.equal(res.status, 200);
  assert.equal((await res.json()).seq, 3);
  const wire = mock.requests();
  assert.deepEqual(wire.map((e) => e.status), [503, 503, 200]);
  const windows = [60, 120];
  for (let i = 0; i < windows.length; i++) {
    const gap = wire[i + 1].receivedAtMs - wire[i].respondedAtMs;
    assert.ok(gap >= windows[i], `gap ${i + 1} was ${gap.toFixed(2)} ms, window ${windows[i]} ms`);
  }
  assert.deepEqual(
    seen.map((r) => [r.attempt, r.decision, r.status, r.reason, r.windowMs, r.sampledDelayMs, r.plannedWaitMs]),
    [
      [1, "sent", 503, "retryable", null, null, 0],
      [2, "sent", 503, "retryable", 60, 60, 60],
      [3, "sent", 200, "success", 120, 120, 120],
    ],
  );
});

// ─── 4 ───────────────────────────────────────────────────────────────────────────────────────────
test("4. 429 with Retry-After: 1 → the retry reaches the server ≥ 1000 ms after the 429 was answered", async () => {
  mock.script(TICKER, [{ status: 429, retryAfter: 1, body: { code: -1003 } }, {}]);
  const { client, seen } = recordingClient();

  const res = await client.fetch(`${mock.url}${TICKER}`);

  assert.equal(res.status, 200);
  const [throttled, retry] = mock.requests();
  assert.equal(throttled.status, 429);
  const gap = retry.receivedAtMs - throttled.respondedAtMs;
  assert.ok(gap >= 1000, `the retry came ${gap.toFixed(2)} ms after the 429`);
  assert.equal(seen.length, 2);
  assert.equal(seen[0].reason, "throttled");
  assert.equal(seen[1].decision, "sent");
  assert.equal(seen[1].retryAfter, "seconds");
  assert.equal(seen[1].providerWaitMs, 1000, "measured from receipt, at the moment of receipt");
  assert.equal(seen[1].plannedWaitMs, 1000, "max(provider minimum 1000, draw 20)");
  assert.equal(seen[1].sampledDelayMs, 20);
});

// ─── 5 ───────────────────────────────────────────────────────────────────────────────────────────
test("5. 429 with Retry-After as an HTTP-date is measured against the response's Date header", async () => {
  mock.script(TICKER, [{ status: 429, retryAfterDateInMs: 1500 }, {}]);
  // A transparent fetch wrapper, only to read the headers the library saw.
  const headers = [];
  const spy = async (request) => {
    const res = await globalThis.fetch(request);
    headers.push({ retryAfter: res.headers.get("retry-after"), date: res.headers.get("date") });
    return res;
  };
  const { client, seen } = recordingClient({ fetch: spy });

  const res = await client.fetch(`${mock.url}${TICKER}`);

  assert.equal(res.status, 200);
  const [throttled, retry] = mock.requests();
  // Both headers have 1 s resolution. The mock rounds Retry-After UP to the next whole second
  // after now+1500 and Date DOWN to the current second, so Retry-After − Date is a whole number of
  // seconds ≥ 1500 ms (2000 or 3000): the wait measured from the Date header never undershoots the
  // intended 1500 ms. (Against the wall clock it would be 1500..2500, not a whole second.)
  const expected = Date.parse(headers[0].retryAfter) - Date.parse(headers[0].date);
  assert.ok(expected >= 1500 && expected % 1000 === 0, `Retry-After − Date = ${expected}`);
  assert.equal(seen[1].retryAfter, "date");
  assert.equal(seen[1].providerWaitMs, expected, "the provider minimum comes from Retry-After − Date");
  const gap = retry.receivedAtMs - throttled.respondedAtMs;
  assert.ok(gap >= expected, `the retry came ${gap.toFixed(2)} ms after the 429 (needed ${expected})`);
  assert.ok(gap >= 1500);
});

// ─── 6 ───────────────────────────────────────────────────────────────────────────────────────────
test("6. a Retry-After longer than the deadline rejects provider-wait at once, after one request", async () => {
  mock.script(TICKER, [{ status: 429, retryAfter: 30 }, {}]);
  const policy = { ...FAST, attemptTimeoutMs: 500, deadlineMs: 2000 };
  const client = new RetryClient({ policy });

  const err = await retryError(client.fetch(`${mock.url}${TICKER}`));
  const rejectedAt = nowMs();

  assert.equal(err.reason, "provider-wait");
  assert.equal(mock.requests().length, 1);
  const [throttled] = mock.requests();
  // The point is that it did NOT wait: 30 s was asked, so 10 s is a very generous bound.
  assert.ok(rejectedAt - throttled.respondedAtMs < 10_000, "rejected without sleeping the provider's wait");
  assert.equal(err.response.status, 429);
  const refused = err.records.at(-1);
  assert.equal(err.records.length, 2);
  assert.equal(refused.decision, "refused");
  assert.equal(refused.reason, "provider-wait");
  assert.equal(refused.attempt, 2);
  assert.equal(refused.retryAfter, "seconds");
  assert.equal(refused.providerWaitMs, 30_000);
  assert.ok(refused.remainingMs <= 2000);
  assert.ok(refused.providerWaitMs + policy.attemptTimeoutMs > refused.remainingMs, "the record explains the refusal");
});

// ─── 7 ───────────────────────────────────────────────────────────────────────────────────────────
test("7. a second 429 after the honoured Retry-After → rate-limited, two requests", async () => {
  mock.script(TICKER, [{ status: 429, retryAfter: 1 }, { status: 429, retryAfter: 1 }, {}]);
  const client = new RetryClient({ policy: { ...FAST, maxAttempts: 5 } });

  const err = await retryError(client.fetch(`${mock.url}${TICKER}`));

  assert.equal(err.reason, "rate-limited");
  const wire = mock.requests();
  assert.equal(wire.length, 2, "escalates instead of extending the loop");
  assert.ok(wire[1].receivedAtMs - wire[0].respondedAtMs >= 1000, "the first wait was honoured");
  assert.equal(err.response.status, 429);
  assert.deepEqual(
    err.records.map((r) => [r.attempt, r.decision, r.status, r.reason]),
    [
      [1, "sent", 429, "throttled"],
      [2, "sent", 429, "throttled"],
      [3, "refused", null, "rate-limited"],
    ],
  );
});

// ─── 8 ───────────────────────────────────────────────────────────────────────────────────────────
test("8. a hanging server: each attempt times out at attemptTimeoutMs; maxAttempts 2 → attempts", async () => {
  mock.script(TICKER, [{ action: "hang" }, { action: "hang" }]);
  const policy = { ...FAST, attemptTimeoutMs: 250, maxAttempts: 2 };
  const client = new RetryClient({ policy });

  const calledAt = nowMs();
  const err = await retryError(client.fetch(`${mock.url}${TICKER}`));

  assert.equal(err.reason, "attempts");
  const wire = mock.requests();
  assert.equal(wire.length, 2, "the server saw both attempts");
  assert.deepEqual(wire.map((e) => e.outcome), ["hung", "hung"]);
  // Attempt 1's timer starts before its connection is set up (a fresh origin can take tens of ms),
  // so the server's first receipt is not a sound reference; the call's start is. Attempt 2 can only
  // reach the server after attempt 1's full timeout and the 20 ms window.
  const second = wire[1].receivedAtMs - calledAt;
  assert.ok(second >= 250 + 20, `attempt 2 reached the server ${second.toFixed(2)} ms after the call`);
  assert.ok(wire[1].receivedAtMs > wire[0].receivedAtMs);
  assert.equal(err.response, undefined);
  const sent = sentRecords(err.records);
  assert.equal(sent.length, 2);
  for (const r of sent) {
    assert.equal(r.outcome, "timeout");
    assert.equal(r.reason, "retryable");
    assert.equal(r.status, null);
    assert.ok(r.endMs - r.startMs >= 250 - 1, `attempt ${r.attempt} lasted ${r.endMs - r.startMs} ms`);
  }
  assert.deepEqual([err.records[2].decision, err.records[2].reason, err.records[2].attempt], ["refused", "attempts", 3]);
});

// ─── 9 ───────────────────────────────────────────────────────────────────────────────────────────
test("9. socket resets are network errors, and a GET is retried through them", async () => {
  mock.script(TICKER, [{ action: "reset" }, { action: "reset" }, {}]);
  const { client, seen } = recordingClient();

  const res = await client.fetch(`${mock.url}${TICKER}`);

  assert.equal(res.status, 200);
  assert.deepEqual(mock.requests().map((e) => e.outcome), ["reset", "reset", "responded"]);
  assert.deepEqual(
    seen.map((r) => [r.outcome, r.reason]),
    [
      ["network-error", "retryable"],
      ["network-error", "retryable"],
      ["response", "success"],
    ],
  );
});

// ─── 10 ──────────────────────────────────────────────────────────────────────────────────────────
const orderInit = (clientOrderId) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: "0.5", newClientOrderId: clientOrderId }),
});

/** The order must have executed exactly once, with one request on the wire, and never be resubmitted. */
async function assertExecutedOnce(clientOrderId) {
  await sleep(100); // several base delays: a resubmission would show up by now
  assert.equal(mock.requests({ path: ORDER }).length, 1, "exactly ONE order request reached the server");
  const order = mock.orders.get(clientOrderId);
  assert.equal(order?.status, "FILLED", "the exchange executed it");
  assert.equal(order.duplicates, 0);
}

test("10a. an order whose response is dropped after execution → unknown-outcome, one request, filled", async () => {
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const client = new RetryClient({ policy: FAST });

  // No `operation`: POST defaults to "order".
  const err = await retryError(client.fetch(`${mock.url}${ORDER}`, orderInit("cid-drop"), { key: "cid-drop" }));

  assert.equal(err.reason, "unknown-outcome");
  assert.equal(err.key, "cid-drop");
  assert.equal(err.response, undefined);
  assert.deepEqual(
    err.records.map((r) => [r.decision, r.operation, r.outcome, r.reason, r.key]),
    [["sent", "order", "network-error", "unknown-outcome", "cid-drop"]],
  );
  assert.match(err.message, /^POST /);
  await assertExecutedOnce("cid-drop");
  assert.equal(mock.requests()[0].outcome, "dropped");
});

test("10b. an order answered 500 after execution → unknown-outcome with the 500 response, one request", async () => {
  mock.script(ORDER, [{ action: "execute-then-500" }], { method: "POST" });
  const client = new RetryClient({ policy: FAST });

  const err = await retryError(client.fetch(`${mock.url}${ORDER}`, orderInit("cid-500"), { operation: "order", key: "cid-500" }));

  assert.equal(err.reason, "unknown-outcome");
  assert.equal(err.key, "cid-500");
  assert.equal(err.response.status, 500);
  assert.equal((await err.response.json()).code, -1000);
  assert.deepEqual(err.records.map((r) => [r.decision, r.status, r.reason]), [["sent", 500, "unknown-outcome"]]);
  await assertExecutedOnce("cid-500");
});

test("10c. an order that times out after execution → unknown-outcome, one request", async () => {
  mock.script(ORDER, [{ action: "execute-then-hang" }], { method: "POST" });
  const client = new RetryClient({ policy: { ...FAST, attemptTimeoutMs: 300 } });

  const err = await retryError(client.fetch(`${mock.url}${ORDER}`, orderInit("cid-hang"), { key: "cid-hang" }));

  assert.equal(err.reason, "unknown-outcome");
  assert.equal(err.response, undefined);
  assert.deepEqual(err.records.map((r) => [r.decision, r.outcome, r.reason]), [["sent", "timeout", "unknown-outcome"]]);
  await assertExecutedOnce("cid-hang");
});

// ─── 11 ──────────────────────────────────────────────────────────────────────────────────────────
test("11. an order answered 429 (rejected before execution) is retried once and fills once", async () => {
  mock.script(ORDER, [{ status: 429, body: { code: -1015, msg: "Too many new orders." } }], { method: "POST" });
  const { client, seen } = recordingClient();

  const res = await client.fetch(`${mock.url}${ORDER}`, orderInit("cid-429"), { key: "cid-429" });

  assert.equal(res.status, 200);
  assert.equal((await res.json()).clientOrderId, "cid-429");
  assert.deepEqual(mock.requests({ path: ORDER }).map((e) => e.status), [429, 200]);
  assert.equal(mock.orders.size, 1);
  assert.equal(mock.orders.get("cid-429").duplicates, 0);
  assert.deepEqual(
    seen.map((r) => [r.attempt, r.operation, r.status, r.reason]),
    [
      [1, "order", 429, "throttled"],
      [2, "order", 200, "success"],
    ],
  );
});

// ─── 12 ──────────────────────────────────────────────────────────────────────────────────────────
test("12. 418 + Retry-After bans the scope for every client sharing the Budget, with zero new requests", async () => {
  mock.script("/api/v3/account", [{ status: 418, retryAfter: 30, body: { code: -1003, msg: "Way too many requests; IP banned." } }]);
  const budget = new Budget();
  const first = new RetryClient({ policy: FAST, budget });

  const err = await retryError(first.fetch(`${mock.url}/api/v3/account`));

  assert.equal(err.reason, "banned");
  assert.equal(err.response.status, 418);
  assert.equal(mock.requests().length, 1);
  assert.deepEqual(
    err.records.map((r) => [r.decision, r.status, r.reason]),
    [
      ["sent", 418, "banned"],
      ["refused", null, "banned"],
    ],
  );
  const [scope] = budget.snapshot();
  assert.equal(scope.scope, mock.url);
  assert.ok(scope.banRemainingMs > 25_000 && scope.banRemainingMs <= 30_000, `banRemainingMs ${scope.banRemainingMs}`);

  // A second client on the same Budget, another path on the same origin: refused without sending.
  const second = new RetryClient({ policy: FAST, budget });
  const refused = await retryError(second.fetch(`${mock.url}${TICKER}`));
  assert.equal(refused.reason, "banned");
  assert.equal(mock.requests().length, 1, "ZERO new server requests");
  assert.equal(refused.response, undefined);
  assert.deepEqual(refused.records.map((r) => [r.attempt, r.decision, r.reason]), [[1, "refused", "banned"]]);
  assert.match(refused.message, /after 0 requests/);

  // Observed: a client constructed without `budget` has its own private budget, so it is not banned.
  const loner = new RetryClient({ policy: FAST });
  assert.equal((await loner.fetch(`${mock.url}${TICKER}`)).status, 200);
  // Observed: a caller-chosen `scope` is a different scope, even on the same origin.
  assert.equal((await second.fetch(`${mock.url}${TICKER}`, undefined, { scope: "elsewhere" })).status, 200);
  assert.equal(mock.requests().length, 3);

  // The banned client itself stays banned on later calls.
  assert.equal((await retryError(first.fetch(`${mock.url}${TICKER}`))).reason, "banned");
  assert.equal(mock.requests().length, 3);
});

// ─── 13 ──────────────────────────────────────────────────────────────────────────────────────────
test("13. a Retry-After holds the whole scope: another client on the same Budget waits for the boundary", async () => {
  mock.script("/api/v3/depth", [{ status: 429, retryAfter: 1 }, {}]);
  const budget = new Budget();
  const seenBystander = [];
  const bystander = new RetryClient({ policy: FAST, budget, onAttempt: (r) => seenBystander.push(r) });
  const outsider = new RetryClient({ policy: FAST }); // its own private budget: not held
  let others;
  const throttled = new RetryClient({
    policy: FAST,
    budget,
    onAttempt: (r) => {
      // Right after the 429 was received (and the hold placed), start the other reads.
      if (r.status === 429) others = Promise.all([bystander.fetch(`${mock.url}${TICKER}`), outsider.fetch(`${mock.url}/api/v3/time`)]);
    },
  });

  const res = await throttled.fetch(`${mock.url}/api/v3/depth`);
  assert.equal(res.status, 200);
  const [b, o] = await others;
  assert.equal(b.status, 200);
  assert.equal(o.status, 200);

  const [first, retry] = mock.requests({ path: "/api/v3/depth" });
  const [held] = mock.requests({ path: TICKER });
  const [free] = mock.requests({ path: "/api/v3/time" });
  assert.equal(first.status, 429);
  assert.ok(retry.receivedAtMs - first.respondedAtMs >= 1000);
  const gap = held.receivedAtMs - first.respondedAtMs;
  assert.ok(gap >= 1000, `the other client's read reached the server ${gap.toFixed(2)} ms after the 429`);
  // Contrast (generous bound): the client without the shared Budget went straight through.
  assert.ok(free.receivedAtMs - first.respondedAtMs < 1000, "a client with its own budget is not held");

  // The bystander's record explains its wait: the provider minimum it inherited from the scope.
  assert.equal(seenBystander.length, 1);
  const [record] = seenBystander;
  assert.deepEqual([record.attempt, record.decision, record.reason], [1, "sent", "success"]);
  assert.ok(record.providerWaitMs > 900 && record.providerWaitMs <= 1000, `providerWaitMs ${record.providerWaitMs}`);
  assert.equal(record.plannedWaitMs, record.providerWaitMs);
});

test("13b. a hold placed while another operation sleeps binds it too: it wakes, sees the hold, sleeps to the boundary", async () => {
  mock.script("/api/v3/depth", [{ status: 503 }, {}]);
  mock.script(TICKER, [{ status: 429, retryAfter: 1 }, {}]);
  const budget = new Budget();
  const seen = [];
  let throttledCall;
  const thrower = new RetryClient({ policy: FAST, budget });
  const sleeper = new RetryClient({
    policy: { ...FAST, baseDelayMs: 300, maxDelayMs: 300 },
    budget,
    onAttempt: (r) => {
      seen.push(r);
      // While this operation sleeps its 300 ms backoff, another one on the scope gets a 429 + Retry-After: 1.
      if (r.status === 503) throttledCall = thrower.fetch(`${mock.url}${TICKER}`);
    },
  });

  const res = await sleeper.fetch(`${mock.url}/api/v3/depth`);
  assert.equal(res.status, 200);
  assert.equal((await throttledCall).status, 200);

  const [depth503, depthRetry] = mock.requests({ path: "/api/v3/depth" });
  const [ticker429] = mock.requests({ path: TICKER });
  assert.equal(ticker429.status, 429);
  assert.ok(ticker429.respondedAtMs < depth503.respondedAtMs + 300, "the 429 arrived during the backoff sleep");
  const gap = depthRetry.receivedAtMs - ticker429.respondedAtMs;
  assert.ok(gap >= 1000, `the sleeper's retry reached the server ${gap.toFixed(2)} ms after the other operation's 429`);
  const retry = seen[1];
  assert.equal(retry.decision, "sent");
  assert.equal(retry.sampledDelayMs, 300);
  assert.ok(retry.providerWaitMs > 0, "the record shows the inherited provider minimum");
  assert.ok(retry.plannedWaitMs > 300, `plannedWaitMs ${retry.plannedWaitMs} was extended to the boundary`);
});

// ─── 14 ──────────────────────────────────────────────────────────────────────────────────────────
test("14a. options.signal aborted during a backoff sleep rejects promptly with aborted, and nothing more is sent", async () => {
  mock.script(TICKER, [{ status: 503 }, {}]);
  const controller = new AbortController();
  const policy = { ...FAST, baseDelayMs: 800, maxDelayMs: 800 };
  let abortedAt;
  const client = new RetryClient({
    policy,
    onAttempt: (r) => {
      if (r.status === 503) {
        setTimeout(() => {
          abortedAt = nowMs();
          controller.abort();
        }, 100);
      }
    },
  });

  const err = await retryError(client.fetch(`${mock.url}${TICKER}`, undefined, { signal: controller.signal }));
  const rejectedAt = nowMs();

  assert.equal(err.reason, "aborted");
  const [first] = mock.requests();
  assert.ok(abortedAt !== undefined);
  // The point: it did not sleep out the 800 ms wait (generous bound; in practice ~1 ms).
  assert.ok(rejectedAt < first.respondedAtMs + 800, "rejected before the planned wake");
  assert.equal(err.response.status, 503, "the last response is kept");
  assert.deepEqual(
    err.records.map((r) => [r.attempt, r.decision, r.reason]),
    [
      [1, "sent", "retryable"],
      [2, "refused", "aborted"],
    ],
  );
  assert.equal(err.records[1].plannedWaitMs, 800);
  await sleep(Math.max(0, first.respondedAtMs + 800 + 200 - nowMs())); // past the planned wake
  assert.equal(mock.requests().length, 1, "no further request after the abort");
});

/** Aborts a request the server holds for 1 s; returns the error and the server's log entry. */
async function abortInFlight(client, url, init, options, controller) {
  setTimeout(() => controller.abort(), 100);
  const err = await retryError(client.fetch(url, init, options));
  const rejectedAt = nowMs();
  // The mock notices a gone client when its delay ends: "aborted" proves the socket was closed.
  await eventually(() => mock.requests()[0]?.outcome === "aborted", "the server to log the request as aborted");
  const [entry] = mock.requests();
  assert.ok(rejectedAt < entry.receivedAtMs + 1000, "rejected before the server would have answered");
  return { err, entry };
}

for (const via of ["options.signal", "init.signal", "a Request's signal"]) {
  test(`14b. ${via} aborted during a hanging request → aborted; the server saw the connection end`, async () => {
    mock.script(TICKER, [{ delayMs: 1000 }, {}]);
    const client = new RetryClient({ policy: { ...FAST, attemptTimeoutMs: 5000 } });
    const controller = new AbortController();
    const url = `${mock.url}${TICKER}`;
    const call = {
      "options.signal": [url, undefined, { signal: controller.signal }],
      "init.signal": [url, { signal: controller.signal }, undefined],
      "a Request's signal": [new Request(url, { signal: controller.signal }), undefined, undefined],
    }[via];

    const { err, entry } = await abortInFlight(client, ...call, controller);

    assert.equal(err.reason, "aborted");
    assert.equal(entry.outcome, "aborted");
    assert.equal(entry.respondedAtMs, null);
    assert.ok(entry.endedAtMs >= entry.receivedAtMs);
    assert.equal(mock.requests().length, 1, "not retried");
    assert.deepEqual(err.records.map((r) => [r.decision, r.outcome, r.status, r.reason]), [["sent", "aborted", null, "aborted"]]);
  });
}

test("14c. an already-aborted signal rejects aborted without touching the wire", async () => {
  const client = new RetryClient({ policy: FAST });
  const err = await retryError(client.fetch(`${mock.url}${TICKER}`, undefined, { signal: AbortSignal.abort() }));
  assert.equal(err.reason, "aborted");
  await sleep(50);
  assert.equal(mock.requests().length, 0);
});

test(
  "14d. an already-aborted signal leaves no 'sent' record and says 0 requests",
  async () => {
    const client = new RetryClient({ policy: FAST });
    const err = await retryError(client.fetch(`${mock.url}${ORDER}`, orderInit("cid-pre"), { signal: AbortSignal.abort(), key: "cid-pre" }));
    assert.equal(err.reason, "aborted");
    assert.equal(mock.requests().length, 0);
    assert.equal(sentRecords(err.records).length, 0, `records: ${JSON.stringify(err.records)}`);
    assert.match(err.message, /after 0 requests/);
  },
);

test(
  "14e. an abort while a stalled request-body stream is being buffered still rejects aborted",
  {
    timeout: 10_000,
  },
  async () => {
    let stream;
    const body = new ReadableStream({
      start(c) {
        stream = c;
        c.enqueue(new TextEncoder().encode("partial"));
      },
    });
    const controller = new AbortController();
    const client = new RetryClient({ policy: { ...FAST, attemptTimeoutMs: 300, deadlineMs: 1000 } });
    const call = client.fetch(`${mock.url}${TICKER}`, { method: "POST", body, duplex: "half" }, { operation: "idempotent", signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    try {
      // Past both the abort (100 ms) and the deadline (1000 ms).
      const settled = await Promise.race([call.then(() => "resolved", (e) => e), sleep(2000, "still pending")]);
      assert.notEqual(settled, "still pending", "client.fetch neither honoured the abort nor its deadline");
      assert.ok(settled instanceof RetryError);
      assert.equal(settled.reason, "aborted");
    } finally {
      stream.error(new Error("test over")); // lets the stuck call settle so nothing leaks into later tests
      await call.catch(() => {});
    }
  },
);

test("14f. a throwing onAttempt does not break the operation it observes", async () => {
  mock.script(TICKER, [{ status: 503 }, {}]);
  let calls = 0;
  const client = new RetryClient({
    policy: FAST,
    onAttempt: () => {
      calls += 1;
      throw new Error("observer bug");
    },
  });
  const res = await client.fetch(`${mock.url}${TICKER}`);
  assert.equal(res.status, 200);
  assert.equal(calls, 2);
  assert.equal(mock.requests().length, 2);
});

// ─── 15 ──────────────────────────────────────────────────────────────────────────────────────────
test("15a. a planned wait that would end past the deadline stops 'deadline' before sleeping", async () => {
  mock.script(TICKER, [{ status: 503 }, {}]);
  const policy = { ...FAST, baseDelayMs: 5000, maxDelayMs: 5000, attemptTimeoutMs: 1000, deadlineMs: 5000 };
  const client = new RetryClient({ policy });

  const err = await retryError(client.fetch(`${mock.url}${TICKER}`));
  const rejectedAt = nowMs();

  assert.equal(err.reason, "deadline");
  const [first] = mock.requests();
  assert.equal(mock.requests().length, 1);
  // The point: it did not sleep first (5 s were planned; generous bound).
  assert.ok(rejectedAt < first.respondedAtMs + 4000, "refused before sleeping");
  const refused = err.records.at(-1);
  assert.equal(refused.decision, "refused");
  assert.equal(refused.reason, "deadline");
  assert.equal(refused.attempt, 2);
  assert.equal(refused.windowMs, 5000);
  assert.equal(refused.plannedWaitMs, 5000);
  assert.ok(refused.remainingMs <= 5000 && refused.remainingMs > 0);
  assert.ok(refused.plannedWaitMs + policy.attemptTimeoutMs > refused.remainingMs, "plannedWait + timeout exceeds what remains");
  assert.equal(refused.startMs, refused.decidedAtMs + refused.plannedWaitMs, "when it would have started");
});

test("15b. a late wake (event loop blocked past the wait) is re-checked: stops 'deadline' instead of sending", async () => {
  mock.script(TICKER, [{ status: 503 }, {}]);
  const policy = { ...FAST, baseDelayMs: 100, maxDelayMs: 100, attemptTimeoutMs: 400, deadlineMs: 1000 };
  const client = new RetryClient({
    policy,
    // Once the 100 ms sleep has begun, freeze the loop for 700 ms: the timer fires ~600 ms late.
    onAttempt: (r) => r.status === 503 && setTimeout(() => busyWait(700), 10),
  });

  const err = await retryError(client.fetch(`${mock.url}${TICKER}`));

  assert.equal(err.reason, "deadline");
  assert.equal(mock.requests().length, 1, "the late retry was not sent");
  const refused = err.records.at(-1);
  assert.equal(refused.decision, "refused");
  assert.equal(refused.reason, "deadline");
  assert.equal(refused.plannedWaitMs, 100, "the wait looked fine when it was planned");
  assert.ok(refused.decidedAtMs >= 700, `re-decided on waking, at ${refused.decidedAtMs} ms`);
  assert.ok(refused.remainingMs < policy.attemptTimeoutMs, `only ${refused.remainingMs} ms left: not enough for an attempt`);
});

// ─── 16 ──────────────────────────────────────────────────────────────────────────────────────────
test("16. request bodies survive retries: JSON string, Request object, ReadableStream", async () => {
  const text = JSON.stringify({ symbol: "ÉTHUSDT", note: "bytes ✓", n: [1, 2, 3] });
  const bytes = new TextEncoder().encode(text);
  const client = new RetryClient({ policy: FAST });
  const cases = {
    "/body/string": () => [`${mock.url}/body/string`, { method: "POST", headers: { "content-type": "application/json" }, body: text }],
    "/body/request": () => [new Request(`${mock.url}/body/request`, { method: "PUT", headers: { "content-type": "application/json" }, body: text })],
    "/body/stream": () => [
      `${mock.url}/body/stream`,
      {
        method: "POST",
        duplex: "half",
        body: new ReadableStream({
          start(c) {
            const mid = bytes.indexOf(0xc3) + 1; // inside the two bytes of "É": bytes, not text, must survive
            c.enqueue(bytes.slice(0, mid));
            c.enqueue(bytes.slice(mid));
            c.close();
          },
        }),
      },
    ],
  };
  for (const [path, args] of Object.entries(cases)) {
    mock.script(path, [{ status: 503 }]);
    const [input, init] = args();
    const res = await client.fetch(input, init, { operation: "idempotent" });
    assert.equal(res.status, 200, path);
    const wire = mock.requests({ path });
    assert.equal(wire.length, 2, `${path}: retried once`);
    for (const entry of wire) assert.equal(entry.body, text, `${path}: request ${entry.seq} carried the same body`);
    assert.equal(wire[0].method, wire[1].method);
    assert.equal(wire[0].headers["content-length"], wire[1].headers["content-length"], `${path}: same length`);
    assert.equal(wire[0].headers["content-type"], wire[1].headers["content-type"], `${path}: same content-type`);
  }
});

// ─── 17 ──────────────────────────────────────────────────────────────────────────────────────────
const constructorCases = [
  // [description, options, error class, field the message must name]
  ["negative baseDelayMs", { policy: { baseDelayMs: -1 } }, RangeError, "policy.baseDelayMs"],
  ["NaN baseDelayMs", { policy: { baseDelayMs: NaN } }, RangeError, "policy.baseDelayMs"],
  ["Infinity deadlineMs", { policy: { deadlineMs: Infinity } }, RangeError, "policy.deadlineMs"],
  ["negative retryAfterSpreadMs", { policy: { retryAfterSpreadMs: -5 } }, RangeError, "policy.retryAfterSpreadMs"],
  ["maxAttempts 0", { policy: { maxAttempts: 0 } }, RangeError, "policy.maxAttempts"],
  ["fractional maxAttempts", { policy: { maxAttempts: 2.5 } }, RangeError, "policy.maxAttempts"],
  ["attemptTimeoutMs 0", { policy: { attemptTimeoutMs: 0 } }, RangeError, "policy.attemptTimeoutMs"],
  ["maxDelayMs below baseDelayMs", { policy: { baseDelayMs: 100, maxDelayMs: 10 } }, RangeError, "policy.maxDelayMs"],
  ["deadline shorter than the attempt timeout", { policy: { attemptTimeoutMs: 5000, deadlineMs: 1000 } }, RangeError, "policy.attemptTimeoutMs"],
  ["retryOn with a non-status", { policy: { retryOn: [503, 999] } }, RangeError, "policy.retryOn"],
  ["negative seed", { seed: -1 }, RangeError, "seed"],
  ["unknown jitter", { policy: { jitter: "wild" } }, TypeError, "policy.jitter"],
  ["jitter of the wrong type", { policy: { jitter: 3 } }, TypeError, "policy.jitter"],
  ["unknown policy field", { policy: { retries: 3 } }, TypeError, "policy.retries"],
  ["unknown top-level field", { retries: 3 }, TypeError, "retries"],
  ["string where a number belongs", { policy: { baseDelayMs: "100" } }, TypeError, "policy.baseDelayMs"],
  ["BigInt where a number belongs", { policy: { baseDelayMs: 100n } }, TypeError, "policy.baseDelayMs"],
  ["retryOn not an array", { policy: { retryOn: "503" } }, TypeError, "policy.retryOn"],
  ["policy not an object", { policy: 5 }, TypeError, "policy"],
  ["onAttempt not a function", { onAttempt: "log" }, TypeError, "onAttempt"],
  ["fetch not a function", { fetch: 42 }, TypeError, "fetch"],
  ["budget not a Budget", { budget: {} }, TypeError, "budget"],
  ["options not an object", "fast", TypeError, "options"],
];

test("17a. invalid constructor options throw TypeError/RangeError naming the field", () => {
  for (const [what, options, errorClass, field] of constructorCases) {
    assert.throws(
      () => new RetryClient(options),
      (err) => {
        assert.equal(err.constructor, errorClass, `${what}: ${err.constructor.name}: ${err.message}`);
        assert.ok(err.message.startsWith("RetryClient: "), `${what}: ${err.message}`);
        assert.ok(err.message.includes(field), `${what}: "${err.message}" does not name ${field}`);
        return true;
      },
      what,
    );
  }
  // The defaults and every documented field are accepted.
  new RetryClient();
  new RetryClient({ policy: { ...FAST, retryOn: [503], retryAfterSpreadMs: 50 }, budget: new Budget(), seed: 7, fetch: globalThis.fetch, onAttempt() {} });
});

const callCases = [
  ["unknown operation", { operation: "write" }, TypeError, "operation"],
  ["unknown priority", { priority: "urgent" }, TypeError, "priority"],
  ["unknown field", { retries: 3 }, TypeError, "retries"],
  ["signal not an AbortSignal", { signal: {} }, TypeError, "signal"],
  ["signal a string", { signal: "abort" }, TypeError, "signal"],
  ["key not a string", { key: 5 }, TypeError, "key"],
  ["empty key", { key: "" }, RangeError, "key"],
  ["scope not a string", { scope: 3 }, TypeError, "scope"],
  ["negative deadlineMs", { deadlineMs: -5 }, RangeError, "deadlineMs"],
  ["NaN deadlineMs", { deadlineMs: NaN }, RangeError, "deadlineMs"],
  ["Infinity deadlineMs", { deadlineMs: Infinity }, RangeError, "deadlineMs"],
  ["deadlineMs 0", { deadlineMs: 0 }, RangeError, "deadlineMs"],
  ["weight 0", { weight: 0 }, RangeError, "weight"],
  ["fractional weight", { weight: 1.5 }, RangeError, "weight"],
  ["policy.maxAttempts 0", { policy: { maxAttempts: 0 } }, RangeError, "policy.maxAttempts"],
  ["policy unknown jitter", { policy: { jitter: "x" } }, TypeError, "policy.jitter"],
  ["policy timeout beyond the deadline", { policy: { attemptTimeoutMs: 40_000 } }, RangeError, "policy.attemptTimeoutMs"],
  ["options not an object", "fast", TypeError, "options"],
];

test("17b. invalid call options reject with TypeError/RangeError naming the field, before any request", async () => {
  const client = new RetryClient({ policy: FAST });
  for (const [what, options, errorClass, field] of callCases) {
    let promise;
    assert.doesNotThrow(() => {
      promise = client.fetch(`${mock.url}${TICKER}`, undefined, options);
    }, `${what}: must reject, not throw synchronously`);
    await assert.rejects(
      promise,
      (err) => {
        assert.equal(err.constructor, errorClass, `${what}: ${err.constructor.name}: ${err.message}`);
        assert.ok(err.message.startsWith("fetch options: "), `${what}: ${err.message}`);
        assert.ok(err.message.includes(field), `${what}: "${err.message}" does not name ${field}`);
        return true;
      },
      what,
    );
  }
  // A bad URL rejects as fetch itself would.
  await assert.rejects(client.fetch("not a url"), TypeError);
  assert.equal(mock.requests().length, 0, "no invalid call reached the wire");
});

test(
  "17c. a non-object `policy` is named `policy`, not `policy.policy`",
  async () => {
    assert.throws(() => new RetryClient({ policy: 5 }), { name: "TypeError", message: "RetryClient: policy must be an object, got a number" });
    await assert.rejects(new RetryClient().fetch(`${mock.url}${TICKER}`, undefined, { policy: 5 }), {
      name: "TypeError",
      message: "fetch options: policy must be an object, got a number",
    });
  },
);

// ─── 18 ──────────────────────────────────────────────────────────────────────────────────────────
test("18. two retry owners multiply: a fetch that retries itself × maxAttempts 3 = 6 server requests", async () => {
  mock.script(TICKER, Array.from({ length: 10 }, () => ({ status: 503 })));
  // A "helpful" inner layer that retries 503 once on its own (2 tries), like a fetch-retry wrapper.
  const retryingFetch = async (request) => {
    let res;
    for (let i = 0; i < 2; i++) {
      res = await globalThis.fetch(request.clone());
      if (res.status !== 503) break;
      if (i < 1) await res.arrayBuffer();
    }
    return res;
  };
  const client = new RetryClient({ policy: { ...FAST, maxAttempts: 3 }, fetch: retryingFetch });

  const err = await retryError(client.fetch(`${mock.url}${TICKER}`));

  // retryline counts 3 attempts, but each of its attempts is 2 requests inside the wrapper:
  // the two retry loops multiply (3 × 2 = 6), and only 3 of the 6 show up in the records.
  // With N layers each allowing k tries, one call can cost k^N requests — keep one retry owner.
  assert.equal(err.reason, "attempts");
  assert.equal(sentRecords(err.records).length, 3, "retryline saw 3 attempts");
  assert.equal(mock.requests().length, 6, "the server saw 3 × 2 = 6 requests");
});

// ─── 19 ──────────────────────────────────────────────────────────────────────────────────────────
test("19. records are redacted: no secret query values, no header values, anywhere", async () => {
  const secrets = { signature: "SIG-SECRET-7f3a", apiKey: "KEY-SECRET-91c2", header: "HDR-SECRET-55d0" };
  const url = `${mock.url}/api/v3/account?symbol=BTCUSDT&signature=${secrets.signature}&apiKey=${secrets.apiKey}`;
  const redacted = `${mock.url}/api/v3/account?symbol=BTCUSDT&signature=REDACTED&apiKey=REDACTED`;
  const init = { headers: { "X-MBX-APIKEY": secrets.header } };
  const leaks = (text) => Object.values(secrets).filter((s) => text.includes(s));

  // Failure path: err.records, err.message and onAttempt records.
  mock.script("/api/v3/account", [{ status: 503 }, { status: 503 }]);
  const { client, seen } = recordingClient({ policy: { ...FAST, maxAttempts: 2 } });
  const err = await retryError(client.fetch(url, init));
  assert.equal(err.reason, "attempts");
  assert.equal(err.records.length, 3);
  for (const r of [...err.records, ...seen]) assert.equal(r.url, redacted);
  assert.deepEqual(leaks(JSON.stringify(err.records)), []);
  assert.deepEqual(leaks(JSON.stringify(seen)), []);
  assert.deepEqual(leaks(err.message), []);
  assert.ok(err.message.includes(redacted), err.message);

  // Success path.
  const ok = recordingClient();
  await ok.client.fetch(url, init);
  assert.equal(ok.seen[0].url, redacted);
  assert.deepEqual(leaks(JSON.stringify(ok.seen)), []);

  // Redaction is for records only: the server received the real request.
  for (const entry of mock.requests()) {
    assert.equal(entry.query.signature, secrets.signature);
    assert.equal(entry.query.apiKey, secrets.apiKey);
    assert.equal(entry.headers["x-mbx-apikey"], secrets.header);
  }
});

test("a call holds its client: garbage collection of a client no one else holds does not break the call", async () => {
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  mock.script(TICKER, [{ status: 503, delayMs: 50 }, { status: 200, body: { price: "1" } }]);
  // The client is made inside the call's expression: nothing but the pending call holds it.
  const pending = new RetryClient({ policy: FAST }).fetch(`${mock.url}${TICKER}`);
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
  const res = await pending;
  assert.equal(res.status, 200);
  assert.equal(mock.requests({ path: TICKER }).length, 2);
});
