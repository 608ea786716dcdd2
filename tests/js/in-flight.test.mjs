// maxInFlight against the loopback mock exchange, counted at the server: how many requests it held
// at once, from each request's arrival to its answer.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, RetryError, Budget } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

/** The most requests the server held at once: each from its arrival to its answer (or end). */
function mostAtOnce(log) {
  const edges = [];
  for (const r of log) {
    edges.push([r.receivedAtMs, 1]);
    edges.push([r.endedAtMs ?? r.respondedAtMs ?? Infinity, -1]);
  }
  // An answer and an arrival at the same instant: the answer first.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

test("200 concurrent reads under maxInFlight 4: never more than 4 at the server, every read answered", async () => {
  const path = "/api/v3/ticker/capped";
  mock.script(path, Array.from({ length: 200 }, () => ({ delayMs: 15 })));
  const budget = new Budget({ maxInFlight: 4 });
  const clients = [new RetryClient({ budget }), new RetryClient({ budget })];
  const policy = { deadlineMs: 30_000, attemptTimeoutMs: 5_000 };
  const reads = Array.from({ length: 200 }, (_, i) => clients[i % 2].fetch(`${mock.url}${path}?i=${i}`, undefined, { policy }));
  // Once they have begun (a macrotask later), the snapshot shows the cap, those on the wire and the queue.
  await new Promise((resolve) => setImmediate(resolve));
  const [scope] = budget.snapshot();
  assert.equal(scope.maxInFlight, 4);
  assert.ok(scope.inFlight <= 4 && scope.waitingForRoom > 0, JSON.stringify(scope));
  const results = await Promise.allSettled(reads);
  assert.deepEqual(results.filter((r) => r.status === "rejected").map((r) => r.reason?.message), []);
  const log = mock.requests({ path });
  assert.equal(log.length, 200, "one request per read");
  const most = mostAtOnce(log);
  assert.ok(most <= 4, `${most} requests at the server at once`);
  const [after] = budget.snapshot();
  assert.deepEqual([after.inFlight, after.waitingForRoom], [0, 0]);
});

test("a read that finds no room before its latest start is refused budget, naming maxInFlight, without touching the wire", async () => {
  const path = "/api/v3/ticker/held";
  mock.script(path, [{ action: "hang" }]);
  const budget = new Budget({ scopes: { [mock.url]: { maxInFlight: 1 } } });
  const client = new RetryClient({ budget, policy: { attemptTimeoutMs: 900, deadlineMs: 5_000, maxAttempts: 1 } });
  const holder = client.fetch(`${mock.url}${path}`).catch((error) => error);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  // Its latest start is 1000 − 900 = 100 ms from now: the holder hangs for 900.
  const control = new Promise((resolve) => setTimeout(() => resolve("control"), 600));
  const refused = client.fetch(`${mock.url}/api/v3/ticker/other`, undefined, { deadlineMs: 1_000 }).then(
    () => assert.fail("it should be refused"),
    (error) => error,
  );
  assert.notEqual(await Promise.race([refused, control]), "control", "refused before the control timer");
  const error = await refused;
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "budget");
  assert.match(error.message, /maxInFlight/);
  assert.equal(error.records.at(-1).limit, "in-flight");
  assert.ok(performance.now() - started >= 90, "it waited for room until its latest start");
  assert.equal(mock.requests({ path: "/api/v3/ticker/other" }).length, 0, "nothing of it reached the server");
  assert.equal((await holder).reason, "attempts");
});

test("an aborted waiter leaves the queue; the next one goes when the slot frees", async () => {
  const path = "/api/v3/ticker/slow";
  mock.script(path, [{ delayMs: 150 }, { delayMs: 0 }]);
  const budget = new Budget({ maxInFlight: 1 });
  const client = new RetryClient({ budget });
  const first = client.fetch(`${mock.url}${path}?n=1`);
  const controller = new AbortController();
  const leaving = client.fetch(`${mock.url}${path}?n=2`, undefined, { signal: controller.signal }).catch((e) => e);
  const staying = client.fetch(`${mock.url}${path}?n=3`);
  setTimeout(() => controller.abort(), 30);
  assert.equal((await leaving).reason, "aborted");
  await Promise.all([first, staying]);
  assert.deepEqual(mock.requests({ path }).map((r) => r.query.n), ["1", "3"]);
});

test("maxInFlight is checked like every other field", () => {
  assert.throws(() => new Budget({ maxInFlight: 0 }), /maxInFlight/);
  assert.throws(() => new Budget({ maxInFlight: 2.5 }), /maxInFlight/);
  assert.throws(() => new Budget({ maxInFlight: "4" }), /maxInFlight/);
  assert.throws(() => new Budget({ scopes: { a: { maxInFlght: 2 } } }), (e) => e instanceof TypeError && /maxInFlght/.test(e.message));
});
