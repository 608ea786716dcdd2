// The smaller defects found by a hostile but realistic user, each pinned by a test that
// failed before its fix (the others live where they belong: hostile.test.mjs for hostile values,
// deadlines.test.mjs for the call deadline, replay.test.mjs for replay errors, budget.rs for the
// reserve). Wire counts are the mock exchange's own.
// Run: node scripts/build.mjs --quiet && node --test tests/js/defects.test.mjs
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { Response as UndiciResponse } from "undici";
import { RetryClient, RetryError, Budget } from "../../js/node.js";
import { startMockExchange } from "./mock-exchange.mjs";

const TICKER = "/api/v3/ticker";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

test("a first attempt whose deadline equals its attempt timeout is always sent (it was sometimes refused unsent)", async () => {
  const client = new RetryClient({ policy: { attemptTimeoutMs: 2000, deadlineMs: 2000 } });
  // A body to buffer puts time between the call and its first attempt: the gate once refused it.
  for (let i = 0; i < 100; i++) {
    const res = await client.fetch(`${mock.url}${TICKER}`, { method: "PUT", body: "x".repeat(1000) }, { operation: "idempotent" });
    assert.equal(res.status, 200);
  }
  assert.equal(mock.requests({ path: TICKER }).length, 100);
});

test("a call deadline shorter than the attempt timeout cuts the attempt instead of throwing RangeError", async () => {
  mock.script(TICKER, [{ action: "hang" }]);
  const client = new RetryClient({ policy: { attemptTimeoutMs: 10_000, deadlineMs: 30_000 } });
  const started = performance.now();
  // A plain timer armed with the same 400 ms: on a busy machine both run late, so the call is
  // judged against it rather than against the wall clock alone.
  const control = new Promise((resolve) => setTimeout(() => resolve(performance.now()), 400));
  const error = await client.fetch(`${mock.url}${TICKER}`, undefined, { deadlineMs: 400 }).then(() => assert.fail("resolved"), (e) => e);
  const settled = performance.now();
  const fired = await control;
  assert.ok(error instanceof RetryError, `${error}`);
  assert.equal(error.reason, "deadline");
  // Not before the deadline (1 ms: Node's timer grain), and no later than a timer tick and the
  // loopback's spread after the control timer fired.
  assert.ok(settled - started >= 399, `settled after ${(settled - started).toFixed(1)} ms`);
  assert.ok(settled - fired < 100, `settled ${(settled - fired).toFixed(1)} ms after a plain 400 ms timer fired`);
  assert.equal(mock.requests({ path: TICKER }).length, 1);
});

test("a Response from another library (undici's own class) is a response, not a network error", async () => {
  const fetch = async () => new UndiciResponse(JSON.stringify({ price: "1" }), { status: 200, headers: { "content-type": "application/json" } });
  const client = new RetryClient({ fetch });
  const res = await client.fetch(`${mock.url}${TICKER}`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { price: "1" });
  // And its Retry-After is honoured like any other.
  let n = 0;
  const throttled = async () => (n++ === 0 ? new UndiciResponse("", { status: 429, headers: { "retry-after": "1" } }) : new UndiciResponse("ok"));
  const seen = [];
  await new RetryClient({ fetch: throttled, onAttempt: (r) => seen.push(r) }).fetch(`${mock.url}${TICKER}`);
  assert.equal(seen.find((r) => r.attempt === 2 && r.decision === "sent").providerWaitMs, 1000);
});

test("a status outside 200–599 (65 736 wraps to 200 in 16 bits) is not a success", async () => {
  class Wrapping extends Response {
    get status() { return 65736 }
  }
  const client = new RetryClient({ fetch: async () => new Wrapping("x"), policy: { maxAttempts: 1 } });
  const error = await client.fetch(`${mock.url}${TICKER}`).then(() => assert.fail("resolved as a success"), (e) => e);
  assert.equal(error.records[0].outcome, "network-error");
  assert.match(error.records[0].error, /status 65736 is not an HTTP status/);
});

test("a throwing getter on a top-level option is a TypeError naming it (it was silently ignored)", () => {
  assert.throws(() => new RetryClient({ get fetch() { throw new Error("nope") } }), { name: "TypeError", message: "RetryClient: fetch could not be read: Error: nope" });
  assert.throws(() => new RetryClient({ get store() { throw new Error("nope") } }), { name: "TypeError", message: /RetryClient: store could not be read/ });
});

test("a Budget is recognised by identity, not by a property anyone can copy", () => {
  const real = new Budget();
  assert.throws(() => new RetryClient({ budget: { __retrylineBudget: real.__retrylineBudget } }), { name: "TypeError", message: /budget must be a Budget/ });
  Object.prototype.__retrylineBudget = real.__retrylineBudget;
  try {
    assert.throws(() => new RetryClient({ budget: {} }), { name: "TypeError", message: /budget must be a Budget/ });
  } finally {
    delete Object.prototype.__retrylineBudget;
  }
  new RetryClient({ budget: real });
});

test("a rejecting async onAttempt produces no unhandled rejection", async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const client = new RetryClient({ onAttempt: async () => { throw new Error("observer bug") } });
    await client.fetch(`${mock.url}${TICKER}`);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("a refusal by the retry quota says so (it once blamed 'no room before the deadline')", async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 503 }, { status: 503 }]);
  const budget = new Budget({ retryQuota: { capacity: 5, retryCost: 5 } });
  const client = new RetryClient({ budget, policy: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 5 } });
  const error = await client.fetch(`${mock.url}${TICKER}`).then(() => assert.fail("resolved"), (e) => e);
  assert.equal(error.reason, "budget");
  assert.equal(error.records.at(-1).limit, "retry-quota");
  assert.match(error.message, /the retry quota is spent/);
  assert.doesNotMatch(error.message, /before the deadline/);
  assert.equal(mock.requests({ path: TICKER }).length, 2, "one retry was paid for, the second was refused");
});
