// A store failure never hides what the provider said: a fill is still a success, an unknown
// outcome is still an unknown outcome (with the response), and a store that fails before an
// order is sent stops it unsent with reason "store". Wire counts are the mock exchange's own.
// Run: node scripts/build.mjs --quiet && node --test tests/js/store-failures.test.mjs
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { RetryClient, RetryError } from "../../js/node.js";
import { startMockExchange } from "./mock-exchange.mjs";

const ORDER = "/api/v3/order";
const TICKER = "/api/v3/ticker";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

/** A Map-backed store whose named methods throw `error`. */
function failing(methods, error = new Error("disk full")) {
  const map = new Map();
  const store = {
    get: (k) => map.get(k),
    set: (k, v) => void map.set(k, v),
    delete: (k) => void map.delete(k),
  };
  for (const m of methods) store[m] = () => { throw error };
  return { store, map };
}

const order = (client, key) =>
  client.fetch(`${mock.url}${ORDER}`, { method: "POST", body: JSON.stringify({ newClientOrderId: key }) }, { operation: "order", key });

async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RetryError, `expected a RetryError, got ${error?.name}: ${error?.message}`);
    return error;
  }
  assert.fail("expected a rejection");
}

test("a filled order whose store.delete throws still resolves with the fill; the record says the store failed", async () => {
  mock.script(ORDER, [{ status: 200, body: { status: "FILLED" } }], { method: "POST" });
  const records = [];
  const { store } = failing(["delete"]);
  const client = new RetryClient({ store, onAttempt: (r) => records.push(r) });
  const res = await order(client, "fill-1");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "FILLED" });
  assert.equal(records.at(-1).reason, "success");
  assert.equal(records.at(-1).storeError, "store.delete failed: Error: disk full");
  assert.equal(mock.requests({ path: ORDER, method: "POST" }).length, 1);
});

test("an order with a lost outcome whose state cannot be saved still ends unknown-outcome, with the response", async () => {
  mock.script(ORDER, [{ status: 503 }], { method: "POST" });
  const { store } = failing([]);
  let writes = 0;
  const set = store.set;
  store.set = (k, v) => {
    // The save before sending works; the save of the unknown outcome fails.
    if (++writes > 1) throw new Error("quota exceeded");
    return set(k, v);
  };
  const client = new RetryClient({ store });
  const error = await rejection(order(client, "lost-1"));
  assert.equal(error.reason, "unknown-outcome", "the provider's answer decides the reason, not the store");
  assert.equal(error.response?.status, 503);
  assert.match(error.message, /its state was not saved: store\.set failed: Error: quota exceeded/);
  assert.equal(error.records.at(-1).storeError, "store.set failed: Error: quota exceeded");
  assert.equal(mock.requests({ path: ORDER, method: "POST" }).length, 1);
});

test("a store.set that throws before an order is sent stops it unsent, reason store, with the store's error as cause", async () => {
  const { store } = failing(["set"], new TypeError("read-only store"));
  const client = new RetryClient({ store });
  const error = await rejection(order(client, "unsent-1"));
  assert.equal(error.reason, "store");
  assert.match(error.message, /store after 0 requests/);
  assert.deepEqual(error.records.map((r) => [r.attempt, r.decision, r.reason, r.pending]), [[1, "refused", "store", "store-set"]]);
  assert.equal(error.records[0].storeError, "store.set failed: TypeError: read-only store");
  assert.ok(error.cause instanceof Error);
  assert.match(error.cause.message, /read-only store/);
  assert.equal(mock.requests({ path: ORDER }).length, 0, "the order never reached the exchange");
});

test("a store.get that rejects stops the order unsent, reason store", async () => {
  const { store } = failing([]);
  store.get = async () => { throw new Error("connection lost") };
  const client = new RetryClient({ store });
  const error = await rejection(order(client, "unsent-2"));
  assert.equal(error.reason, "store");
  assert.match(error.message, /store\.get failed: Error: connection lost/);
  assert.equal(mock.requests({ path: ORDER }).length, 0);
});

test("stored text that is not JSON: a clear store error, nothing sent, nothing overwritten", async () => {
  const { store, map } = failing([]);
  map.set("retryline:garbled", "{not json");
  const client = new RetryClient({ store });
  const error = await rejection(order(client, "garbled"));
  assert.equal(error.reason, "store");
  assert.match(error.message, /the stored state of key "garbled" is not JSON \(SyntaxError/);
  assert.notEqual(error.constructor, SyntaxError);
  assert.equal(map.get("retryline:garbled"), "{not json", "the unreadable state is left as it was");
  assert.equal(mock.requests({ path: ORDER }).length, 0);
});

test("a keyed read whose save before its backoff throws stops with reason store, carrying the provider's response", async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 200 }]);
  const { store } = failing([]);
  let writes = 0;
  const set = store.set;
  store.set = (k, v) => {
    if (++writes > 1) throw new Error("flaky");
    return set(k, v);
  };
  const client = new RetryClient({ store, policy: { baseDelayMs: 10, maxDelayMs: 10, jitter: "none" } });
  const error = await rejection(client.fetch(`${mock.url}${TICKER}`, undefined, { key: "read-1" }));
  assert.equal(error.reason, "store");
  assert.equal(error.response?.status, 503, "what the provider said is not hidden");
  assert.deepEqual(error.records.map((r) => [r.decision, r.reason]), [["sent", "retryable"], ["refused", "store"]]);
  assert.equal(mock.requests({ path: TICKER }).length, 1, "the retry was not sent without its state saved");
});
