// The order lifecycle inside workerd, with retryline's store backed by Durable Object storage.
// Run: node --test tests/js/package/workerd-orders.test.mjs
//
// The npm tarball is installed in a fresh project (pack.mjs) and loaded by workerd with no
// bundler, exactly as in workerd.test.mjs: the capnp config lists the installed package's files
// as modules (workerd-harness.mjs: which files, and how they are named). The worker
// (fixtures/workerd-orders/worker.js) is an ES module worker with a Durable Object class
// `Orders`; its `state.storage` is the RetryClient's store. The worker's fetch handler forwards
// /desk/... to `env.ORDERS.get(env.ORDERS.idFromName("desk"))`, and every /desk request builds a
// NEW RetryClient, so two requests share nothing but the Durable Object's storage.
//
// Storage is `localDisk` (a disk directory in the fresh project), so the test can also stop
// workerd and start a new process on the same directory: the "after a restart" claim, with a new
// isolate, a new wasm instance and a new client, sharing only the on-disk storage.
//
// The tests run in order and build on each other (one order key through its whole life):
//   (1) unknown outcome → stored   (2) refused by a new client   (5) refused after a restart
//   (3) reconciled → filled, key gone   (4) another key: reconciliation escalates, key kept.
//   (6) "not-found" answers are not evidence   (7) reconcile during the flight is refused.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { capnpModules, startPackageInWorkerd, sleep } from "./workerd-harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ORDER = "/api/v3/order";
const ORDER_TEST = "/api/v3/order/test"; // Binance's "test new order": validated, never executed
const UNIQUE_KEY = "retryline-workerd-orders-test";
// Orders: a dropped connection must end the operation at once (unknown outcome, never resent).
const ORDER_POLICY = { baseDelayMs: 10, maxDelayMs: 10, jitter: "none", maxAttempts: 3, attemptTimeoutMs: 2000, deadlineMs: 10000 };
// Reconciliation: small and bounded (the brief's example).
const SMALL_RECONCILE = { maxAttempts: 2, attemptTimeoutMs: 300, baseDelayMs: 10, maxDelayMs: 10, deadlineMs: 5000 };

let rig; // startPackageInWorkerd: { dir, mock, worker, close() }
let diskDir; // <fresh project>/do-storage: the Durable Object localDisk
let mock;
let worker; // the running workerd

// As in workerd.test.mjs, plus a Durable Object namespace stored on local disk (created here).
function config(dir) {
  diskDir = join(dir, "do-storage");
  mkdirSync(diskDir, { recursive: true });
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .ordersWorker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
    (name = "do-disk", disk = (path = ${JSON.stringify(diskDir)}, writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const ordersWorker :Workerd.Worker = (
  modules = ${capnpModules(dir, join(here, "fixtures", "workerd-orders", "worker.js"))},
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
  bindings = [ (name = "ORDERS", durableObjectNamespace = "Orders") ],
  durableObjectNamespaces = [ (className = "Orders", uniqueKey = ${JSON.stringify(UNIQUE_KEY)}) ],
  durableObjectStorage = (localDisk = "do-disk"),
);
`;
}

// Calls the worker (POST JSON, or GET without a body); every call has a timeout.
const call = (path, body) => worker.call(path, body);

// ---------------------------------------------------------------------------------------------
// The scenario's vocabulary.

const placeOrder = (key, path = ORDER) => call("/desk/order", {
  key,
  url: mock.url + path,
  body: { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: "1", newClientOrderId: key },
  policy: ORDER_POLICY,
});

/** What `state.storage.get("retryline:<key>")` holds (parsed), and every retryline: key listed. */
async function storage(key) {
  const s = await call(`/desk/storage?key=${encodeURIComponent(key)}`);
  if (s.raw !== null) assert.equal(s.rawType, "string", "the store's values are JSON text");
  return { ...s, saved: s.raw === null ? null : JSON.parse(s.raw) };
}

const orderPosts = () => mock.requests({ path: ORDER, method: "POST" });
const statusQueries = (key) => mock.requests({ path: ORDER, method: "GET" }).filter((r) => r.query.origClientOrderId === key);

/** The worker's answer is a refusal by the library: unknown-outcome, nothing on the wire. */
async function assertRefusedWithoutWire(key, label) {
  const before = mock.requests().length;
  const w = await placeOrder(key);
  await sleep(200); // a request that slipped through would show up here
  assert.equal(w.ok, false, `${label}: the order under ${key} was accepted: ${JSON.stringify(w)}`);
  assert.equal(w.error.reason, "unknown-outcome", `${label}: ${w.error.message}`);
  assert.equal(w.error.instanceofRetryError, true, `${label}: instanceof RetryError inside workerd`);
  assert.equal(mock.requests().length, before, `${label}: the refusal sent requests: ${JSON.stringify(mock.requests().slice(before))}`);
  assert.deepEqual(w.records.filter((r) => r.decision === "sent"), [], `${label}: no attempt was sent`);
  return w;
}

const K1 = "wdo-order-1";
const K2 = "wdo-order-2";

before(async () => {
  ({ mock, worker } = rig = await startPackageInWorkerd(config));
}, { timeout: 600_000 }); // includes the wasm build (and waiting for another one) when pkg/ is stale

after(() => rig?.close());

test("the worker and its Durable Object load the package as shipped; the storage starts empty", async () => {
  assert.deepEqual(await call("/health"), { exports: { RetryClient: "function", RetryError: "function" } });
  const s = await storage(K1);
  assert.equal(s.raw, null);
  assert.deepEqual(s.keys, []);
});

let firstIsolate;

test("(1) execute-then-drop: unknown-outcome after ONE order request; the mock has the fill; DO storage holds retryline:<key>", async () => {
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const w = await placeOrder(K1);
  firstIsolate = w.isolateId;
  assert.equal(w.ok, false, `the dropped order resolved: ${JSON.stringify(w)}`);
  assert.equal(w.error.reason, "unknown-outcome", w.error.message);
  assert.equal(w.error.instanceofRetryError, true);
  assert.equal(w.error.name, "RetryError");
  assert.equal(w.records.filter((r) => r.decision === "sent").length, 1, `one attempt sent: ${JSON.stringify(w.records)}`);

  await sleep(300); // a wrongful resubmission would show up here
  const posts = orderPosts();
  assert.equal(posts.length, 1, "exactly one order request reached the exchange");
  assert.equal(posts[0].outcome, "dropped");
  assert.equal(JSON.parse(posts[0].body).newClientOrderId, K1);
  const fill = mock.orders.get(K1);
  assert.equal(fill?.status, "FILLED", "the exchange executed the order whose answer was lost");
  assert.equal(fill.duplicates, 0);

  const s = await storage(K1);
  assert.deepEqual(s.keys, [`retryline:${K1}`], "state.storage.list({ prefix: 'retryline:' })");
  assert.ok(s.saved, "state.storage.get('retryline:<key>') holds the operation");
  assert.equal(s.saved.state.unresolved, true, `stored state: ${s.raw}`);
  assert.equal(s.saved.state.key, K1);
  assert.equal(s.saved.state.attemptsSent, 1);
  assert.equal(s.saved.escalated, false);

  // localDisk: the Durable Object's data is a file under <disk>/<uniqueKey>/.
  const files = readdirSync(join(diskDir, UNIQUE_KEY));
  assert.ok(files.some((f) => f.endsWith(".sqlite")), `no .sqlite file under the localDisk: ${files}`);
});

test("(2) a NEW RetryClient on a later request, sharing only the DO storage, refuses the key: unknown-outcome, zero requests", async () => {
  const before = await storage(K1);
  const w = await assertRefusedWithoutWire(K1, "second submission, same workerd");
  assert.equal(w.isolateId, firstIsolate, "same workerd process");
  assert.ok(w.clientsCreated > 1, "the refusal came from a client created for this request");
  assert.equal(orderPosts().length, 1);
  const after = await storage(K1);
  assert.equal(after.saved?.state.unresolved, true, "still unresolved after the refusal");
  assert.deepEqual(after.saved.state, before.saved.state, "the refusal did not rewrite the operation");
});

test("(5) after a workerd restart on the same localDisk: the key is still stored and still refused, with zero requests", async () => {
  await worker.restart(); // a new process on the same localDisk: new isolate, new wasm instance
  const s = await storage(K1);
  assert.notEqual(s.isolateId, firstIsolate, "a new workerd process (new isolate, new wasm instance)");
  assert.deepEqual(s.keys, [`retryline:${K1}`], "the stored key survived the restart");
  assert.equal(s.saved.state.unresolved, true);
  const w = await assertRefusedWithoutWire(K1, "second submission after a restart");
  assert.equal(w.clientsCreated, 1, "the first client of the new process refused it");
  assert.equal(orderPosts().length, 1);
  assert.equal(mock.orders.get(K1).duplicates, 0);
});

test("(3) reconcile with the exchange's status endpoint: FILLED → { resolved: true, state: 'filled' }; key deleted; still ONE order request", async () => {
  assert.equal((await storage(K1)).saved?.state.unresolved, true, "precondition: the key is stored, unresolved");
  const w = await call("/desk/reconcile", { key: K1, statusUrl: mock.url + ORDER });
  assert.equal(w.result.key, K1);
  assert.equal(w.result.resolved, true, JSON.stringify(w.result));
  assert.equal(w.result.state, "filled");
  assert.equal(w.result.escalated, false);
  assert.deepEqual(w.escalations, [], "onEscalation is not called for a resolved key");
  assert.equal(w.queries.length, 1, "one status query answered it");
  assert.equal(w.queries[0].signalIsAbortSignal, true, "the query gets an AbortSignal");
  assert.equal(w.queries[0].status, 200);
  const queries = statusQueries(K1);
  assert.equal(queries.length, 1);
  assert.equal(queries[0].status, 200);

  const s = await storage(K1);
  assert.equal(s.raw, null, "the resolved key is gone from state.storage");
  assert.deepEqual(s.keys, []);
  assert.equal(orderPosts().length, 1, "reconciliation never resubmits the order");
  assert.equal(mock.orders.get(K1).duplicates, 0);

  // The key may be used again: it now reaches the wire (Binance's test-order route, which
  // executes nothing), and ends deleted again.
  const again = await placeOrder(K1, ORDER_TEST);
  assert.equal(again.ok, true, JSON.stringify(again.error));
  assert.equal(again.status, 200);
  assert.equal(mock.requests({ path: ORDER_TEST, method: "POST" }).length, 1);
  assert.equal((await storage(K1)).raw, null, "a successful order leaves nothing in the store");
  assert.equal(orderPosts().length, 1);
});

test("(4) status queries that always time out: { resolved: false, escalated: true }, onEscalation called, key kept and still refused, nothing resubmitted", async () => {
  // A second order whose answer is lost.
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const placed = await placeOrder(K2);
  assert.equal(placed.ok, false);
  assert.equal(placed.error.reason, "unknown-outcome", placed.error.message);
  assert.equal(orderPosts().filter((r) => JSON.parse(r.body).newClientOrderId === K2).length, 1);
  assert.equal(mock.orders.get(K2)?.status, "FILLED");

  // Every status query hangs (one behaviour per query the policy allows: none may be left queued
  // for the next test).
  mock.script(ORDER, [{ action: "hang" }, { action: "hang" }], { method: "GET" });
  const t0 = performance.now();
  const w = await call("/desk/reconcile", { key: K2, statusUrl: mock.url + ORDER, policy: SMALL_RECONCILE });
  const elapsed = performance.now() - t0;
  assert.equal(w.result.key, K2);
  assert.equal(w.result.resolved, false, JSON.stringify(w.result));
  assert.equal(w.result.escalated, true, JSON.stringify(w.result));
  assert.deepEqual(w.escalations, [{ key: K2, resolved: false, escalated: true, state: w.result.state }], "onEscalation(result) called once");
  assert.equal(w.queries.length, 2, `maxAttempts 2 → two queries: ${JSON.stringify(w.queries)}`);
  assert.ok(w.queries.every((q) => q.aborted), `each timed-out query's signal was aborted: ${JSON.stringify(w.queries)}`);
  assert.equal(statusQueries(K2).length, 2, "two status requests reached the exchange");
  assert.ok(elapsed >= 600 && elapsed < 5000, `two 300 ms query timeouts took ${elapsed} ms`);

  const s = await storage(K2);
  assert.deepEqual(s.keys, [`retryline:${K2}`], "the escalated key is kept");
  assert.equal(s.saved.state.unresolved, true, s.raw);
  assert.equal(s.saved.escalated, true, `stored escalated flag: ${s.raw}`);

  await assertRefusedWithoutWire(K2, "submission after an escalated reconciliation");
  assert.equal(orderPosts().filter((r) => JSON.parse(r.body).newClientOrderId === K2).length, 1, "no order was resubmitted");
  assert.equal(mock.orders.get(K2).duplicates, 0);
  assert.equal((await storage(K2)).saved?.escalated, true, "still escalated after the refusal");

  // An operator closes it by hand: the key leaves the store.
  const closed = await call("/desk/resolve", { key: K2, state: "canceled" });
  assert.equal(closed.result.resolved, true);
  assert.deepEqual((await storage(K2)).keys, []);
  assert.equal(orderPosts().length, 2, "two orders so far (K1, K2), each sent once");
});

test("(6) 'not-found' is not evidence: the exchange keeps answering -2013 → unresolved, escalated, key kept and refused", async () => {
  const K3 = "wdo-order-3";
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const placed = await placeOrder(K3);
  assert.equal(placed.error?.reason, "unknown-outcome", JSON.stringify(placed));

  // The exchange's order index lags behind its matching engine: "Order does not exist."
  const lagging = { status: 400, body: { code: -2013, msg: "Order does not exist." } };
  mock.script(ORDER, [lagging, lagging], { method: "GET" });
  const w = await call("/desk/reconcile", { key: K3, statusUrl: mock.url + ORDER, policy: SMALL_RECONCILE });
  assert.equal(w.result.resolved, false, JSON.stringify(w.result));
  assert.equal(w.result.state, "not-found");
  assert.equal(w.result.escalated, true, "the policy was exhausted without evidence");
  assert.equal(w.escalations.length, 1);
  assert.equal(w.queries.length, 2, `maxAttempts 2 → two queries: ${JSON.stringify(w.queries)}`);
  assert.ok(w.queries.every((q) => q.status === 400 && !q.aborted), JSON.stringify(w.queries));

  const s = await storage(K3);
  assert.equal(s.saved?.state.unresolved, true, s.raw);
  assert.equal(s.saved.escalated, true, s.raw);
  assert.equal(s.saved.lastEvidence, "not-found", s.raw);
  await assertRefusedWithoutWire(K3, "submission after not-found");
  assert.equal(orderPosts().filter((r) => JSON.parse(r.body).newClientOrderId === K3).length, 1, "no order was resubmitted");
  assert.equal(mock.orders.get(K3).duplicates, 0);

  const closed = await call("/desk/resolve", { key: K3, state: "filled" });
  assert.equal(closed.result.resolved, true);
  assert.deepEqual((await storage(K3)).keys, []);
});

// A reconcile that answered "filled" while another client's order was still in flight used to free
// the key, letting a second submission go out under it. reconcile now refuses a running key, as
// resolve does, and leaves its stored state alone.
test("(7) reconcile while the order is still in flight must not open the key to a second submission", async () => {
  const K4 = "wdo-order-4";
  const postsFor = () => orderPosts().filter((r) => r.body.includes(`"${K4}"`));
  mock.script(ORDER, [{ action: "execute-then-hang" }], { method: "POST" });
  const first = placeOrder(K4); // in flight for attemptTimeoutMs (2 s), then unknown-outcome
  try {
    // Saved "in-flight" before the send; wait until the exchange has received (and executed) it too.
    for (let i = 0; i < 50 && !(postsFor().length === 1 && mock.orders.has(K4)); i++) await sleep(20);
    const running = await storage(K4);
    assert.equal(running.saved?.state.phase?.phase, "in-flight", `precondition: the order is in flight: ${running.raw}`);
    assert.equal(postsFor().length, 1);

    // The exchange already has the fill (executed on receipt), so its status endpoint says FILLED.
    let reconciled;
    try {
      reconciled = (await call("/desk/reconcile", { key: K4, statusUrl: mock.url + ORDER, policy: SMALL_RECONCILE })).result;
    } catch {
      reconciled = null; // refusing a running key is an acceptable answer
    }
    const during = await storage(K4);
    const second = await placeOrder(K4);
    // Both observations in one comparison, so the failure shows the whole story.
    assert.deepEqual({
      storedPhaseAfterReconcile: during.saved?.state.phase?.phase ?? null,
      ordersSentUnderKey: postsFor().length,
    }, {
      storedPhaseAfterReconcile: "in-flight",
      ordersSentUnderKey: 1,
    }, `reconcile answered ${JSON.stringify(reconciled && { resolved: reconciled.resolved, state: reconciled.state })}; `
      + `the second submission ended ${JSON.stringify(second.ok ? { status: second.status } : { reason: second.error.reason, status: second.error.responseStatus })}; `
      + `the exchange counted ${mock.orders.get(K4)?.duplicates} duplicate(s) of ${K4}`);
  } finally {
    const w = await first;
    assert.equal(w.error?.reason, "unknown-outcome", JSON.stringify(w.error));
  }
});
