// policy.shouldRetry: the caller's veto over a retry the core admitted. Wire counts at the mock.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { RetryClient, RetryError } from "../../js/node.js";

const PATH = "/api/v3/account";
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(() => mock?.close());
beforeEach(() => mock.reset());
const wire = () => mock.requests({ path: PATH }).length;

test("400, 400, 200 with a predicate that allows one retry of a 400: two requests, then non-retryable", async () => {
  mock.script(PATH, [{ status: 400 }, { status: 400 }, { status: 200 }]);
  const seen = [];
  const client = new RetryClient({
    policy: { baseDelayMs: 5, maxAttempts: 5, retryOn: [400, 429, 503], shouldRetry: ({ attempt, status, record }) => (seen.push([attempt, status, record.decision]), attempt < 2) },
  });
  const error = await rejection(client.fetch(`${mock.url}${PATH}`));
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "non-retryable");
  assert.equal(wire(), 2);
  assert.deepEqual(seen, [[1, 400, "sent"], [2, 400, "sent"]]);
  const last = error.records.at(-1);
  assert.deepEqual([last.decision, last.reason, last.limit], ["refused", "non-retryable", "should-retry"]);
  assert.match(error.message, /policy\.shouldRetry declined the retry/);
});

test("a throwing or hanging predicate stops the call; its words are in the record; per-call policy overrides", async () => {
  mock.script(PATH, [{ status: 503 }, { status: 200 }]);
  const client = new RetryClient({ policy: { baseDelayMs: 5, shouldRetry: () => true } });
  const error = await rejection(client.fetch(`${mock.url}${PATH}`, undefined, { policy: { shouldRetry: () => { throw new Error("no retries on Fridays"); } } }));
  assert.equal(error.reason, "non-retryable");
  assert.equal(wire(), 1);
  assert.match(error.records.at(-1).error, /no retries on Fridays/);

  mock.reset();
  mock.script(PATH, [{ status: 503 }, { status: 200 }]);
  const hanging = await rejection(client.fetch(`${mock.url}${PATH}`, undefined, { deadlineMs: 600, policy: { attemptTimeoutMs: 200, shouldRetry: () => new Promise(() => {}) } }));
  assert.equal(hanging.reason, "non-retryable");
  assert.match(hanging.records.at(-1).error, /did not answer before the deadline/);
  assert.equal(wire(), 1);
});

test("a predicate that says yes changes nothing, and cannot make an unknown order send again", async () => {
  mock.script(PATH, [{ status: 503 }, { status: 200 }]);
  let asked = 0;
  const client = new RetryClient({ policy: { baseDelayMs: 5, shouldRetry: () => (asked++, true) } });
  assert.equal((await client.fetch(`${mock.url}${PATH}`)).status, 200);
  assert.equal(asked, 1);

  mock.script("/api/v3/order", [{ action: "execute-then-500" }]);
  const order = await rejection(client.fetch(`${mock.url}/api/v3/order`, { method: "POST", body: "symbol=BTCUSDT&side=BUY&newClientOrderId=p1" }, { operation: "order", key: "p1" }));
  assert.equal(order.reason, "unknown-outcome");
  assert.equal(mock.requests({ path: "/api/v3/order" }).length, 1, "never resubmitted");
  assert.equal(asked, 1, "not even asked: the core admitted no retry");
});

test("shouldRetry must be a function", () => {
  assert.throws(() => new RetryClient({ policy: { shouldRetry: true } }), /RetryClient: policy\.shouldRetry must be a function/);
  const client = new RetryClient();
  assert.rejects(client.fetch("http://127.0.0.1:1/x", undefined, { policy: { shouldRetry: 1 } }), /fetch options: policy\.shouldRetry must be a function/);
});
