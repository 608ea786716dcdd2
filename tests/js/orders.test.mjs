// Orders: unknown outcomes, reconciliation, and state that survives a restart (the reference
// article's acceptance list), against the loopback mock exchange.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { fileStore } from "./support/file-store.mjs";
import { RetryClient, RetryError } from "../../js/node.js";
import { orderStatuses } from "../../js/profiles/binance-spot.js";

const ORDER = "/api/v3/order";
const worker = fileURLToPath(new URL("./support/keyed-worker.mjs", import.meta.url));
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

const submit = (client, id, options = {}) =>
  client.fetch(`${mock.url}${ORDER}?symbol=BTCUSDT&signature=s3cr3t`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-MBX-APIKEY": "k3y" },
    body: JSON.stringify({ newClientOrderId: id, side: "BUY", quantity: "1" }),
  }, { operation: "order", key: id, ...options });

/** The caller's status lookup: the exchange's order endpoint, mapped to evidence. */
const statusQuery = (id) => async ({ signal }) => {
  const res = await fetch(`${mock.url}${ORDER}?origClientOrderId=${id}`, { signal });
  const body = await res.json();
  if (res.ok) return { FILLED: "filled", NEW: "open", CANCELED: "canceled", REJECTED: "rejected" }[body.status] ?? "partially-filled";
  if (body.code === -2013) return "not-found";
  throw new Error(`status query failed: ${res.status}`);
};

const orderRequests = () => mock.requests({ path: ORDER, method: "POST" }).length;

test("1. an order executed with its response dropped ends unknown, is reconciled to its fill, and is never resubmitted", async () => {
  const store = new Map();
  const client = new RetryClient({ store, policy: { attemptTimeoutMs: 2000 } });
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const error = await rejection(submit(client, "cid-1"));
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "unknown-outcome");
  assert.equal(error.key, "cid-1");
  assert.equal(orderRequests(), 1, "the server received exactly one order");
  assert.equal(mock.orders.get("cid-1")?.status, "FILLED", "and executed it");
  assert.ok(store.has("retryline:cid-1"), "the unknown outcome was written before the promise settled");

  const again = await rejection(submit(client, "cid-1"));
  assert.equal(again.reason, "unknown-outcome");
  assert.match(again.message, /reconcile/);
  assert.equal(orderRequests(), 1, "a second fetch with the key sent nothing");

  const result = await client.reconcile("cid-1", statusQuery("cid-1"));
  assert.deepEqual({ resolved: result.resolved, state: result.state, escalated: result.escalated }, { resolved: true, state: "filled", escalated: false });
  assert.equal(result.records.at(-1).evidence, "filled");
  assert.equal(result.records.at(-1).operation, "read");
  assert.equal(store.has("retryline:cid-1"), false, "resolved: the key is released");
  assert.equal(orderRequests(), 1, "reconciliation never resubmits");

  // Records explain the traffic and the account state, redacted.
  const text = JSON.stringify([error.records, result.records]);
  assert.ok(!text.includes("s3cr3t") && !text.includes("k3y"), text);
  assert.equal(error.records[0].outcome, "network-error");
  assert.equal(error.records[0].reason, "unknown-outcome");
  assert.match(error.records[0].url, /signature=REDACTED/);
});

test("1a. a keyless POST whose outcome is unknown says nothing can reconcile it, and what to do instead", async () => {
  const client = new RetryClient({ policy: { attemptTimeoutMs: 2000 } });
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const error = await rejection(client.fetch(`${mock.url}${ORDER}`, { method: "POST", body: "{}" }));
  assert.equal(error.reason, "unknown-outcome");
  assert.equal(error.key, undefined);
  assert.match(error.message, /without a key nothing can reconcile it: check by your own means/);
  assert.doesNotMatch(error.message, /reconcile it,|client\.reconcile/);
  assert.equal(orderRequests(), 1, "sent once");
  // Through asFetch, the same: no advice that cannot be followed.
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const thrown = await rejection(client.asFetch()(`${mock.url}${ORDER}`, { method: "POST", body: "{}" }));
  assert.ok(thrown instanceof TypeError, String(thrown));
  assert.match(thrown.message, /outcome is unknown: do not send it again/);
  assert.match(thrown.cause.message, /nothing can reconcile it/);
  assert.doesNotMatch(thrown.cause.message, /client\.reconcile/);
  assert.equal(orderRequests(), 2);
});

test("1b. a 5xx or a timed-out order is unknown too; not-found is not proof and keeps querying", async () => {
  const client = new RetryClient({ store: new Map(), policy: { attemptTimeoutMs: 300 } });
  mock.script(ORDER, [{ action: "execute-then-hang" }], { method: "POST" });
  assert.equal((await rejection(submit(client, "cid-hang"))).reason, "unknown-outcome");
  assert.equal(orderRequests(), 1);
  // The status endpoint first says it does not know the order, then reports the fill.
  mock.script(ORDER, [{ status: 400, body: { code: -2013, msg: "Order does not exist." } }], { method: "GET" });
  const result = await client.reconcile("cid-hang", statusQuery("cid-hang"), { policy: { baseDelayMs: 10, maxDelayMs: 10 } });
  assert.deepEqual(result.records.filter((r) => r.decision === "sent").map((r) => r.evidence), ["not-found", "filled"]);
  assert.equal(result.resolved, true);
  assert.equal(orderRequests(), 1);
});

test("2. reconciliation whose status query times out every time ends unresolved and escalated, never resubmitted", async () => {
  const store = new Map();
  const escalations = [];
  const client = new RetryClient({ store, onEscalation: (e) => escalations.push(e) });
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  assert.equal((await rejection(submit(client, "cid-2"))).reason, "unknown-outcome");
  mock.script("/api/v3/order-status", Array(5).fill({ action: "hang" }));
  const slowQuery = async ({ signal }) => {
    await fetch(`${mock.url}/api/v3/order-status?origClientOrderId=cid-2`, { signal });
    return "filled";
  };
  const policy = { maxAttempts: 3, attemptTimeoutMs: 200, baseDelayMs: 10, maxDelayMs: 20, deadlineMs: 5000 };
  const result = await client.reconcile("cid-2", slowQuery, { policy });
  assert.deepEqual({ resolved: result.resolved, state: result.state, escalated: result.escalated }, { resolved: false, state: null, escalated: true });
  assert.deepEqual(result.records.map((r) => r.outcome), ["timeout", "timeout", "timeout", null]);
  assert.equal(result.records.at(-1).reason, "attempts");
  assert.equal(escalations.length, 1);
  assert.equal(escalations[0].key, "cid-2");
  assert.equal(mock.requests({ path: "/api/v3/order-status" }).length, 3, "three bounded queries");
  const saved = JSON.parse(store.get("retryline:cid-2"));
  assert.equal(saved.escalated, true);
  assert.equal((await rejection(submit(client, "cid-2"))).reason, "unknown-outcome", "still refused");
  assert.equal(orderRequests(), 1, "never resubmitted");

  // An operator who checked the exchange by hand closes it.
  const closed = await client.resolve("cid-2", "canceled");
  assert.deepEqual({ resolved: closed.resolved, state: closed.state }, { resolved: true, state: "canceled" });
  assert.equal(store.has("retryline:cid-2"), false);
});

test("4. two clients sharing a store cannot both submit the same key", async () => {
  const store = new Map();
  const a = new RetryClient({ store });
  const b = new RetryClient({ store });
  mock.script(ORDER, [{ delayMs: 800 }], { method: "POST" }); // executes at once, answers after 0.8 s
  const first = submit(a, "cid-4");
  await new Promise((r) => setTimeout(r, 150));
  const started = performance.now();
  const second = await rejection(submit(b, "cid-4"));
  assert.equal(second.reason, "unknown-outcome");
  assert.match(second.message, /another client/);
  assert.ok(performance.now() - started < 2000, "refused without waiting for the whole order");
  assert.ok((await first).ok);
  assert.equal(orderRequests(), 1, "only A's order reached the server");
  assert.equal(store.has("retryline:cid-4"), false, "a completed order releases its key");

  // And when A's outcome is unknown, B is refused as well, in another client.
  mock.script(ORDER, [{ action: "execute-then-500" }], { method: "POST" });
  assert.equal((await rejection(submit(a, "cid-5"))).reason, "unknown-outcome");
  const refused = await rejection(submit(b, "cid-5"));
  assert.equal(refused.reason, "unknown-outcome");
  assert.equal(refused.records[0].status, 500, "the refusal carries the saved records that explain it");
  assert.equal(orderRequests(), 2);
});

/** Starts the keyed worker; resolves with the process and a line reader. */
function startWorker(file, key, path) {
  const child = spawn(process.execPath, [worker, mock.url, file, key, path], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = [];
  const waiters = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    const parsed = JSON.parse(line);
    lines.push(parsed);
    waiters.splice(0).forEach((w) => w());
  });
  const until = async (predicate, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!lines.some(predicate)) {
      if (Date.now() > deadline) throw new Error(`worker: nothing matched in ${ms} ms: ${JSON.stringify(lines)}`);
      await new Promise((r) => (waiters.push(r), setTimeout(r, 100)));
    }
    return lines.find(predicate);
  };
  return { child, lines, until };
}

test("3. a worker killed during a backoff sleep is resumed by another process: same count, same expiry", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "retryline-store-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "store.json");
  mock.script("/resume", [{ status: 503 }, { status: 503 }, { status: 200 }]);

  const first = startWorker(file, "job-3", "/resume");
  await first.until((l) => l.record?.attempt === 1);
  await new Promise((r) => setTimeout(r, 300)); // the state is saved before the sleep starts
  first.child.kill("SIGKILL");
  await new Promise((r) => first.child.once("exit", r));
  const saved = fileStore(file).get("retryline:job-3");
  const { state } = JSON.parse(saved);
  assert.equal(state.phase.phase, "sleeping");
  assert.equal(state.attemptsSent, 1);

  const second = startWorker(file, "job-3", "/resume");
  const done = await second.until((l) => l.done, 15_000);
  assert.equal(done.done, "success");
  const log = mock.requests({ path: "/resume" });
  assert.equal(log.length, 3, "three requests across both processes: maxAttempts, never more");
  for (const request of log) {
    assert.ok(request.receivedAtMs + 1000 <= state.expiresAtWallMs + 50, "every request could finish before the original expiry");
  }
  const attempts = second.lines.filter((l) => l.record?.decision === "sent").map((l) => l.record.attempt);
  assert.deepEqual(attempts, [2, 3], "the second process continued the count");
  assert.equal(fileStore(file).get("retryline:job-3"), undefined, "done: the key is released");
});

test("3b. a worker that wakes after the expiry refuses what no longer fits", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "retryline-store-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "store.json");
  mock.script("/late", [{ status: 503 }, { status: 200 }]);
  const first = startWorker(file, "job-late", "/late");
  await first.until((l) => l.record?.attempt === 1);
  await new Promise((r) => setTimeout(r, 300));
  first.child.kill("SIGKILL");
  await new Promise((r) => first.child.once("exit", r));
  const { state } = JSON.parse(fileStore(file).get("retryline:job-late"));
  // Wake the second worker when less than one attempt timeout is left before the original expiry.
  await new Promise((r) => setTimeout(r, Math.max(0, state.expiresAtWallMs - 500 - Date.now())));
  const second = startWorker(file, "job-late", "/late");
  const done = await second.until((l) => l.done, 10_000);
  assert.equal(done.done, "deadline");
  assert.equal(done.records.at(-1).decision, "refused");
  assert.equal(done.records.at(-1).attempt, 2);
  assert.ok(done.records.at(-1).remainingMs < 1000);
  assert.equal(mock.requests({ path: "/late" }).length, 1, "nothing sent after the restart");
});

test("reconcile takes Binance's own order status through the profile's orderStatuses; an unmapped one is shown", async () => {
  const client = new RetryClient({ store: new Map(), policy: { attemptTimeoutMs: 2000 } });
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  assert.equal((await rejection(submit(client, "cid-binance"))).reason, "unknown-outcome");
  // The exchange's word as it comes: GET /api/v3/order's `status`, read at the server.
  const asItComes = async ({ signal }) => (await (await fetch(`${mock.url}${ORDER}?origClientOrderId=cid-binance`, { signal })).json()).status;
  const result = await client.reconcile("cid-binance", asItComes, { statuses: orderStatuses });
  assert.deepEqual([result.resolved, result.state], [true, "filled"]);
  assert.equal(mock.requests({ path: ORDER, method: "GET" }).length, 1);
  for (const [status, evidence] of Object.entries({ NEW: "open", PARTIALLY_FILLED: "partially-filled", PENDING_CANCEL: "open", EXPIRED: "canceled", EXPIRED_IN_MATCH: "canceled", REJECTED: "rejected", CANCELED: "canceled" })) {
    assert.equal(orderStatuses[status], evidence, status);
  }
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  assert.equal((await rejection(submit(client, "cid-odd"))).reason, "unknown-outcome");
  await assert.rejects(client.reconcile("cid-odd", async () => "HALTED", { statuses: orderStatuses }), { name: "TypeError", message: /got "HALTED": nor a key of options\.statuses \(NEW, PARTIALLY_FILLED/ });
  await assert.rejects(client.reconcile("cid-odd", async () => "FILLED", { statuses: { FILLED: "done" } }), { name: "TypeError", message: /statuses\.FILLED must be one of "filled"/ });
  await assert.rejects(client.reconcile("cid-odd", async () => "FILLED", { statuses: "FILLED" }), { name: "TypeError", message: /statuses must be an object/ });
});

test("reconcile and resolve validate their arguments", async () => {
  const client = new RetryClient();
  await assert.rejects(client.reconcile(42, async () => "filled"), { name: "TypeError", message: /key must be a string/ });
  await assert.rejects(client.reconcile("k", "not a function"), { name: "TypeError", message: /query must be a function/ });
  await assert.rejects(client.reconcile("k", async () => "filled", { policy: { maxAttempts: 0 } }), { name: "RangeError", message: /policy\.maxAttempts/ });
  await assert.rejects(client.reconcile("k", async () => "done"), { name: "TypeError", message: /must resolve to one of "filled".*got "done": map the provider.s statuses/ });
  await assert.rejects(client.resolve("k", "not-found"), { name: "TypeError", message: /state must be one of/ });
  assert.throws(() => new RetryClient({ store: { get() {} } }), { name: "TypeError", message: /store must be an object with get\/set\/delete/ });
});
