// A shared Budget through the JavaScript API, against the loopback mock exchange.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { startMockProcess } from "./support/mock-process.mjs";
import { busiest } from "./support/windows.mjs";
import { RetryClient, RetryError, Budget } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

test("1000 concurrent reads through one budget never exceed its rate at the server", async (t) => {
  // The server runs in its own process, so its timestamps don't wait on the clients' event loop.
  const server = await startMockProcess();
  t.after(() => server.close());
  const capacity = 20, rate = 250;
  const budget = new Budget({ capacity, refillPerSecond: rate, reserve: 0 });
  const dispatched = new Map();
  // Records when each request is handed to the network, to measure the transport's own spread.
  const fetch = (request) => (dispatched.set(new URL(request.url).searchParams.get("i"), performance.timeOrigin + performance.now()), globalThis.fetch(request));
  const policy = { deadlineMs: 30000, attemptTimeoutMs: 10000 };
  const clients = [new RetryClient({ budget, policy, fetch }), new RetryClient({ budget, policy, fetch })];
  const results = await Promise.allSettled(
    Array.from({ length: 1000 }, (_, i) => clients[i % 2].fetch(`${server.url}/api/v3/ticker/flood?i=${i}`)),
  );
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1000);
  const log = await server.requests("/api/v3/ticker/flood");
  assert.equal(log.length, 1000, "one request each, no retries");

  // What the budget controls, exactly: capacity plus one second of refill in any second.
  const sends = [...dispatched.values()].sort((a, b) => a - b);
  assert.ok(busiest(sends, 1000) <= capacity + rate, `${busiest(sends, 1000)} dispatched within one second`);
  // At the server, the transport may shift requests by its own spread of delays (measured per request).
  const delays = log.map((r) => r.receivedAtMs - dispatched.get(r.query.i));
  const spread = Math.max(...delays) - Math.min(...delays);
  const arrivals = log.map((r) => r.receivedAtMs).sort((a, b) => a - b);
  const allowed = capacity + Math.ceil(rate * (1000 + spread) / 1000);
  const worst = busiest(arrivals, 1000);
  t.diagnostic(`server: ${worst} in the busiest second (allowed ${allowed}, transport spread ${Math.round(spread)} ms)`);
  // The transport's spread widens the server's bound (by > 1 s on a loaded run of two files at a
  // time); the bound must still be below the flood, or the server-side check says nothing.
  assert.ok(allowed < log.length, `the transport itself spread requests by ${spread} ms: a bound of ${allowed} proves nothing`);
  assert.ok(worst <= allowed, `${worst} requests reached the server within one second; at most ${allowed} may`);
  // 980 requests beyond the burst at 250 a second: at least 3.92 s from first to last. Slack:
  // the shell's clock reads whole milliseconds rounded up (a dispatch may truly happen up to
  // 1 ms before its reading, at either end: 2 ms), and at the server the transport's spread.
  const CLOCK_SLACK = 2;
  assert.ok(sends.at(-1) - sends[0] >= 3920 - CLOCK_SLACK, `dispatched over ${(sends.at(-1) - sends[0]).toFixed(1)} ms`);
  assert.ok(arrivals.at(-1) - arrivals[0] >= 3920 - CLOCK_SLACK - spread, `arrived over ${(arrivals.at(-1) - arrivals[0]).toFixed(1)} ms (spread ${spread.toFixed(1)})`);
});

test("reads the budget cannot serve before their deadline are refused with budget, before sending", async () => {
  const budget = new Budget({ capacity: 3, refillPerSecond: 1, reserve: 0 });
  const client = new RetryClient({ budget, policy: { deadlineMs: 1500, attemptTimeoutMs: 1000 } });
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => client.fetch(`${mock.url}/refused`)));
  const refused = results.filter((r) => r.status === "rejected");
  assert.equal(refused.length, 7);
  for (const { reason } of refused) {
    assert.ok(reason instanceof RetryError);
    assert.equal(reason.reason, "budget");
    assert.equal(reason.records.length, 1);
    assert.equal(reason.records[0].decision, "refused");
  }
  assert.equal(mock.requests({ path: "/refused" }).length, 3);
});

test("a refresh flood leaves the reserve to an order and a reconcile query", async () => {
  const budget = new Budget({ capacity: 20, refillPerSecond: 1, reserve: 0.5 });
  // No refill fits before the deadline: only what the bucket holds now can be spent.
  const client = new RetryClient({ budget, policy: { deadlineMs: 1500, attemptTimeoutMs: 1000 } });
  const refreshes = Array.from({ length: 40 }, () =>
    client.fetch(`${mock.url}/prices`, undefined, { priority: "refresh" }).then(() => "sent", (e) => e.reason));
  const order = client.fetch(`${mock.url}/api/v3/order`, { method: "POST", body: JSON.stringify({ newClientOrderId: "r-1" }) });
  const reconcile = client.fetch(`${mock.url}/api/v3/openOrders`, undefined, { priority: "reconcile" });
  const outcomes = await Promise.all(refreshes);
  assert.ok((await order).ok);
  assert.ok((await reconcile).ok);
  assert.equal(outcomes.filter((o) => o === "sent").length, 10, "refreshes stop at the 50% reserve");
  assert.ok(outcomes.filter((o) => o === "budget").length >= 29);
});

test("the provider's used-weight header corrects the local bucket", async () => {
  const budget = new Budget({ capacity: 10, refillPerSecond: 1, reserve: 0, usedWeightHeader: "X-MBX-USED-WEIGHT-1M" });
  const client = new RetryClient({ budget, policy: { deadlineMs: 3000, attemptTimeoutMs: 1000 } });
  mock.script("/heavy", [{ status: 200, headers: { "X-MBX-USED-WEIGHT-1M": "9" } }]);
  await client.fetch(`${mock.url}/heavy`);
  const [scope] = budget.snapshot();
  assert.equal(scope.tokens, 1, "the provider says 9 of 10 are used; the local count said 1");
  const results = await Promise.allSettled([1, 2, 3, 4].map(() => client.fetch(`${mock.url}/after-heavy`)));
  const rejected = results.filter((r) => r.status === "rejected");
  // Refused by the budget up front; or, when its grant is the last moment that still fits and the
  // timer fires a millisecond late, by the gate on waking (deadline): never sent either way.
  assert.ok(rejected.every((r) => ["budget", "deadline"].includes(r.reason.reason)), rejected.map((r) => r.reason.message).join("\n"));
  assert.ok(rejected.some((r) => r.reason.reason === "budget"), "the budget itself refuses what it cannot serve in time");
  assert.ok(rejected.every((r) => r.reason.records.every((rec) => rec.decision === "refused")));
  assert.ok(mock.requests({ path: "/after-heavy" }).length <= 3, "1 token now, about 1 a second for 2 s");
});

test("snapshot describes tokens, quota, holds, bans and queued operations", async () => {
  const budget = new Budget({ capacity: 2, refillPerSecond: 1, reserve: 0 });
  const client = new RetryClient({ budget, policy: { deadlineMs: 10000, attemptTimeoutMs: 1000 } });
  mock.script("/snap", [{ status: 429, retryAfter: "2" }]);
  const pending = [client.fetch(`${mock.url}/snap`), client.fetch(`${mock.url}/snap2`), client.fetch(`${mock.url}/snap3`)];
  await new Promise((r) => setTimeout(r, 300));
  const [scope] = budget.snapshot();
  assert.equal(scope.scope, mock.url);
  assert.equal(scope.capacity, 2);
  assert.ok(scope.holdRemainingMs > 1000 && scope.heldUntil > Date.now(), "held by the 429");
  assert.ok(scope.queued >= 1, "operations wait for the boundary");
  // The retry after the 429 spent 5; /snap2's first-attempt success may already have added 1 back.
  assert.equal(scope.retryQuota.capacity, 500);
  assert.ok([495, 496].includes(scope.retryQuota.available), `${scope.retryQuota.available}`);
  const settled = await Promise.allSettled(pending);
  assert.deepEqual(settled.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"], JSON.stringify(settled.map((r) => r.reason?.records)));
});

test("Budget options are validated by name", () => {
  const cases = [
    [{ capacity: 10 }, TypeError, /capacity needs refillPerSecond/],
    [{ capacity: 10, refillPerSecond: 0 }, RangeError, /refillPerSecond must be greater than 0/],
    [{ reserve: 1.5 }, RangeError, /reserve must be a fraction/],
    [{ scopes: { x: { burst: 1 } } }, TypeError, /scopes\.x\.burst is not a known option/],
    [{ retryQuota: 3 }, TypeError, /retryQuota must be a boolean or an object/],
    ["lots", TypeError, /must be an object/],
  ];
  for (const [options, type, message] of cases) {
    assert.throws(() => new Budget(options), (e) => e instanceof type && message.test(e.message), JSON.stringify(options));
  }
  assert.throws(() => new RetryClient({ budget: { snapshot() {} } }), { name: "TypeError", message: /budget must be a Budget/ });
});
