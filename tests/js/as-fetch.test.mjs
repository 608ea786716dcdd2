// client.asFetch(): the platform fetch signature, against the loopback mock exchange with Node's
// real fetch. Waits are measured at the server; wire counts are the server's.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { Budget, RetryClient, RetryError } from "../../js/node.js";

const ORDER = "/api/v3/order";
const TICKER = "/api/v3/ticker/price";
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

const fast = { baseDelayMs: 10, maxDelayMs: 20 };
const client = (options = {}) => new RetryClient({ policy: fast, ...options });
const order = (id, init = {}) => [
  `${mock.url}${ORDER}?symbol=BTCUSDT`,
  { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ newClientOrderId: id, side: "BUY", quantity: "1" }), ...init },
];
const describeOrder = async (request) => (request.method === "POST" ? { key: JSON.parse(await request.text()).newClientOrderId } : {});
const wire = (path, method) => mock.requests({ path, method }).length;

test("a 503 is retried and the 200 is resolved, as fetch would", async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 200, body: { price: "1" } }]);
  const res = await client().asFetch()(`${mock.url}${TICKER}?symbol=BTCUSDT`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { price: "1" });
  assert.equal(wire(TICKER), 2);
});

test("any status the policy finished with resolves: a 400 at once, a 503 after the last attempt, its body readable", async () => {
  mock.script(TICKER, [{ status: 400, body: { code: -1121, msg: "Invalid symbol." } }]);
  const f = client().asFetch();
  const bad = await f(`${mock.url}${TICKER}?symbol=NOPE`);
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), { code: -1121, msg: "Invalid symbol." });
  assert.equal(wire(TICKER), 1);
  mock.reset();
  mock.script(TICKER, [{ status: 503 }, { status: 503 }, { status: 503, body: { msg: "down" } }]);
  const down = await f(`${mock.url}${TICKER}`);
  assert.equal(down.status, 503);
  assert.deepEqual(await down.json(), { msg: "down" });
  assert.equal(wire(TICKER), 3);
});

test("a Retry-After that cannot fit init.timeout is refused at once: the 429 resolves, no sleep", async () => {
  mock.script(TICKER, [{ status: 429, retryAfter: 3 }]);
  const started = performance.now();
  const res = await client().asFetch()(`${mock.url}${TICKER}`, { timeout: 2000 });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "3");
  // Refused when the 429 arrived, not slept into: far below the 3 s wait (slack for a loaded machine).
  assert.ok(performance.now() - started < 1500, `${performance.now() - started} ms`);
  assert.equal(wire(TICKER), 1);
});

test("init.timeout as long as the attempt timeout still allows retries, each attempt cut to the time left", async () => {
  // A 503, then a 200: with a 10 s timeout over a 10 s attempt timeout the retry must still go.
  mock.script(TICKER, [{ status: 503 }, { status: 200, delayMs: 100, body: { ok: true } }]);
  const c = new RetryClient({ policy: { ...fast, attemptTimeoutMs: 10_000 } });
  const res = await c.asFetch()(`${mock.url}${TICKER}`, { timeout: 10_000 });
  assert.equal(res.status, 200);
  assert.equal(wire(TICKER), 2);
});

test("the timeout ends a hanging read: a DOMException named TimeoutError, at the timeout", async () => {
  mock.script(TICKER, [{ action: "hang" }]);
  const started = performance.now();
  const error = await rejection(client().asFetch()(`${mock.url}${TICKER}`, { timeout: 300 }));
  const took = performance.now() - started;
  assert.ok(error instanceof DOMException, String(error));
  assert.equal(error.name, "TimeoutError");
  assert.ok(error.cause instanceof RetryError);
  assert.equal(error.cause.reason, "deadline");
  // Our timer, not the platform's: 300 ms plus a timer tick and a loaded machine's spread.
  assert.ok(took >= 295 && took < 1300, `${took} ms`);
});

test("the caller's abort rejects with its reason; nothing more is sent", async () => {
  mock.script(TICKER, [{ action: "hang" }]);
  const controller = new AbortController();
  const pending = client().asFetch()(`${mock.url}${TICKER}`, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("user left the page")), 100);
  const error = await rejection(pending);
  assert.equal(error.message, "user left the page");
  assert.equal(wire(TICKER), 1);
  const already = new AbortController();
  already.abort();
  const before = wire(TICKER);
  const early = await rejection(client().asFetch()(`${mock.url}${TICKER}`, { signal: already.signal }));
  assert.equal(early.name, "AbortError");
  assert.equal(wire(TICKER), before);
});

test("an order aborted by its caller after it was sent is an unknown outcome, not an abort", async () => {
  mock.script(ORDER, [{ action: "execute-then-hang" }], { method: "POST" });
  const controller = new AbortController();
  const c = client();
  const f = c.asFetch({ describe: describeOrder });
  const pending = f(...order("abort-1", { signal: controller.signal }));
  setTimeout(() => controller.abort(), 150);
  const error = await rejection(pending);
  assert.ok(error instanceof TypeError, String(error));
  assert.ok(error.cause instanceof RetryError);
  assert.equal(error.cause.reason, "unknown-outcome");
  assert.match(error.cause.message, /outcome is unknown: reconcile it \(client\.reconcile\), do not resubmit it/);
  assert.equal(error.cause.key, "abort-1");
  assert.equal(mock.orders.get("abort-1")?.status, "FILLED");
  // The key is kept unresolved: the same id is refused without a request.
  const again = await rejection(f(...order("abort-1")));
  assert.ok(again instanceof TypeError);
  assert.equal(again.cause.reason, "unknown-outcome");
  assert.match(again.cause.message, /outcome is unknown; reconcile it/);
  assert.equal(wire(ORDER, "POST"), 1);
});

test("a lost order response: executed once, a TypeError whose cause says it is unknown; a timed-out order too", async () => {
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const f = client().asFetch({ describe: describeOrder });
  const lost = await rejection(f(...order("lost-1")));
  assert.ok(lost instanceof TypeError);
  assert.equal(lost.cause.reason, "unknown-outcome");
  assert.match(lost.cause.message, /reconcile/);
  assert.equal(wire(ORDER, "POST"), 1);
  assert.equal(mock.orders.get("lost-1")?.status, "FILLED");
  // The client's own timeout while the order hangs: unknown, never a TimeoutError a client would resubmit.
  mock.script(ORDER, [{ action: "execute-then-hang" }], { method: "POST" });
  const slow = await rejection(f(...order("slow-1", { timeout: 300 })));
  assert.ok(slow instanceof TypeError, String(slow));
  assert.equal(slow.cause.reason, "unknown-outcome");
  assert.equal(wire(ORDER, "POST"), 2);
});

test("a 5xx to an order is an unknown outcome with its response; a 429 to an order is retried", async () => {
  mock.script(ORDER, [{ action: "execute-then-500" }], { method: "POST" });
  const f = client().asFetch({ describe: describeOrder });
  const error = await rejection(f(...order("five-1")));
  assert.equal(error.cause.reason, "unknown-outcome");
  assert.equal(error.cause.response?.status, 500);
  mock.script(ORDER, [{ status: 429, retryAfter: 0 }], { method: "POST" });
  const res = await f(...order("four-1"));
  assert.equal(res.status, 200);
  assert.equal(mock.orders.get("four-1")?.status, "FILLED");
});

test("a banned scope refuses before sending: a TypeError whose cause says why; the 418 itself resolved", async () => {
  mock.script(TICKER, [{ status: 418, retryAfter: 60 }]);
  const f = client({ budget: new Budget() }).asFetch();
  const banned = await f(`${mock.url}${TICKER}`);
  assert.equal(banned.status, 418);
  const refused = await rejection(f(`${mock.url}${TICKER}`));
  assert.ok(refused instanceof TypeError);
  assert.equal(refused.cause.reason, "banned");
  assert.match(refused.cause.message, /banned/);
  assert.equal(wire(TICKER), 1);
});

test("a network error rejects as fetch does: a TypeError, its cause the RetryError with the platform's error", async () => {
  mock.script(TICKER, [{ action: "reset" }, { action: "reset" }, { action: "reset" }]);
  const error = await rejection(client().asFetch()(`${mock.url}${TICKER}`));
  assert.ok(error instanceof TypeError);
  assert.equal(error.cause.reason, "attempts");
  const sent = error.cause.records.filter((r) => r.decision === "sent");
  assert.equal(sent.length, 3);
  assert.match(sent.at(-1).error, /fetch failed/);
  assert.equal(wire(TICKER), 3);
});

test("an Idempotency-Key header is the key, and the POST is retried as idempotent", async () => {
  mock.script("/api/v3/transfer", [{ status: 503 }, { status: 200, body: { ok: 1 } }], { method: "POST" });
  const records = [];
  const f = client().asFetch({ onAttempt: (r) => records.push(r) });
  const res = await f(`${mock.url}/api/v3/transfer`, { method: "POST", headers: { "Idempotency-Key": "tx-7" }, body: "{}" });
  assert.equal(res.status, 200);
  assert.equal(wire("/api/v3/transfer", "POST"), 2);
  assert.deepEqual(records.filter((r) => r.decision === "sent").map((r) => [r.key, r.operation]), [["tx-7", "idempotent"], ["tx-7", "idempotent"]]);
});

test("describe wins over the defaults, policies merge by field, and it may read the body that is then still sent", async () => {
  mock.script(ORDER, [{ status: 503 }], { method: "POST" });
  const seen = [];
  const f = client().asFetch({
    policy: { maxAttempts: 1, baseDelayMs: 5 },
    operation: "order",
    describe: async (request) => {
      const body = JSON.parse(await request.text());
      seen.push(body.newClientOrderId);
      return { key: body.newClientOrderId, operation: "idempotent", policy: { maxAttempts: 2 } };
    },
  });
  const res = await f(...order("desc-1"));
  assert.equal(res.status, 200);
  assert.deepEqual(seen, ["desc-1"]);
  // idempotent (describe) over order (defaults): the 503 was retried; maxAttempts 2 from describe.
  assert.equal(wire(ORDER, "POST"), 2);
  assert.equal(JSON.parse(mock.requests({ path: ORDER, method: "POST" })[1].body).newClientOrderId, "desc-1");
});

test("a describe that hangs is cut by init.timeout; one that throws rejects with its error; bad defaults throw at once", async () => {
  const hung = client().asFetch({ describe: () => new Promise(() => {}) });
  const error = await rejection(hung(`${mock.url}${TICKER}`, { timeout: 200 }));
  assert.equal(error.name, "TimeoutError");
  const thrower = client().asFetch({ describe: () => { throw new RangeError("no such symbol") } });
  assert.equal((await rejection(thrower(`${mock.url}${TICKER}`))).message, "no such symbol");
  assert.throws(() => client().asFetch({ describe: 5 }), /asFetch: defaults\.describe must be a function, not number/);
  assert.throws(() => client().asFetch("x"), /asFetch: defaults must be an object/);
  const badOption = await rejection(client().asFetch({ weight: -1 })(`${mock.url}${TICKER}`));
  assert.ok(badOption instanceof RangeError || badOption instanceof TypeError);
  assert.match(badOption.message, /weight/);
  assert.equal(wire(TICKER), 0);
});

test("a bad URL rejects with a TypeError as fetch does, before anything is sent", async () => {
  const error = await rejection(client().asFetch()("http://exa mple.com:99999/"));
  assert.ok(error instanceof TypeError);
});

test("a per-call onAttempt sees a successful call's records; the client's still does", async () => {
  const clientSeen = [];
  const callSeen = [];
  const c = new RetryClient({ policy: fast, onAttempt: (r) => clientSeen.push(r) });
  mock.script(TICKER, [{ status: 503 }]);
  await c.fetch(`${mock.url}${TICKER}`, undefined, { onAttempt: (r) => callSeen.push(r) });
  assert.equal(callSeen.length, 2);
  assert.deepEqual(callSeen, clientSeen);
  callSeen[0].attempt = 99; // each observer has its own copy
  assert.equal(clientSeen[0].attempt, 1);
  await assert.rejects(c.fetch(`${mock.url}${TICKER}`, undefined, { onAttempt: 5 }), /onAttempt must be a function/);
});
