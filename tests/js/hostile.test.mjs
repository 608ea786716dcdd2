// Hostile input at every public entry point: getters and Proxy traps that throw, revoked
// proxies, thenables, Response look-alikes, stores and signals that misbehave. Each is tried
// 10 000 times; afterwards ordinary calls still work — on the same client and on a new one —
// and the wasm memory has not grown with the number of hostile calls.
//
// The wasm imports nothing, so no JavaScript runs while it is on the stack and no exception can
// unwind through it; what remains to prove is that every hostile call is caught by the glue and
// frees what it took in the instance. The API is assembled over an instance of the test's own
// (as js/node.js assembles its own), so that instance's memory is what is measured.
// Run: node scripts/build.mjs --quiet && node --test tests/js/hostile.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { setImmediate as tick } from "node:timers/promises";
import { assemble } from "../../js/api/assemble.js";
import { coordinator } from "../../js/platform/coordinator.js";
import { load } from "../../js/api/server-modules.js";
import { hostileFetches, hostileOptions, hostileStores, hostileQueries, throwing, revoked } from "./support/hostile.mjs";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL("../../pkg/server.wasm", import.meta.url))), {});
const { RetryClient, RetryError, Budget, replay } = assemble(instance, { sharing: { coordinator }, load });
const wasm = instance.exports;
const ROUNDS = 10_000;
const BATCH = 1000;
const URL_OK = "http://127.0.0.1:9/ok";

const unhandled = [];
const onRejection = (reason) => unhandled.push(reason);
const onException = (error) => unhandled.push(error);
before(() => {
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
});
after(() => {
  process.off("unhandledRejection", onRejection);
  process.off("uncaughtException", onException);
});

/** Wasm memory, after a full collection (finalizers free what JavaScript dropped). */
async function footprint() {
  for (let i = 0; i < 6; i++) {
    gc();
    await tick();
  }
  return { memory: wasm.memory.buffer.byteLength };
}

/** Runs `call` `times` times (async calls in concurrent batches); every call must end in `check`. */
async function hammer(what, call, check, times = ROUNDS) {
  for (let done = 0; done < times; done += BATCH) {
    const results = await Promise.allSettled(Array.from({ length: BATCH }, () => Promise.resolve().then(call)));
    for (const r of results) check(r, what);
    // Callbacks JavaScript owns are freed when it collects them: collect, so that the peak
    // is one batch, whatever the collector would have chosen.
    gc();
    await tick();
  }
}

const ok = () => new Response("ok", { status: 200 });
const stubFetch = async () => ok();

/**
 * Runs every case once as a warm-up batch (the peak of concurrent calls sets the memory the
 * module keeps), measures, runs the remaining rounds, measures again: what is freed after each
 * call keeps the footprint flat; what leaks grows it with the number of calls.
 */
async function flat(cases) {
  for (const run of cases) await run(BATCH);
  const before = await footprint();
  for (const run of cases) await run(ROUNDS - BATCH);
  const after = await footprint();
  const grew = after.memory - before.memory;
  // Slack: one 64 KiB page of allocator fragmentation; a leak of even 16 bytes a call would be 3 pages here.
  assert.ok(grew <= 64 * 1024, `wasm memory grew by ${grew} bytes over ${(ROUNDS - BATCH) * cases.length} hostile calls`);
}

/** An ordinary call on a fresh client, and one on `client`: both must succeed. */
async function stillWorks(client) {
  const fresh = new RetryClient({ fetch: stubFetch });
  assert.equal((await fresh.fetch(URL_OK)).status, 200);
  if (client) assert.equal((await client.fetch(URL_OK, undefined, { policy: { maxAttempts: 1 } })).status, 200);
  assert.equal(replay({ policy: { maxAttempts: 2 }, outcomes: [{ status: 503 }] }).wireRequests, 2);
  new Budget({ capacity: 5, refillPerSecond: 1 }).snapshot();
}

function rejectedWith(errorClass, pattern) {
  return (r, what) => {
    assert.equal(r.status, "rejected", `${what}: must reject`);
    assert.ok(r.reason instanceof errorClass, `${what}: ${r.reason?.constructor?.name}: ${r.reason?.message}`);
    if (pattern) assert.match(r.reason.message, pattern, what);
  };
}

const threw = rejectedWith;

test("hostile options: every throw while reading them is a TypeError naming the field, 10 000 times each", async () => {
  const cases = hostileOptions().map(([what, options, field]) => (times) =>
    hammer(what, () => new RetryClient(options), threw(TypeError, new RegExp(`RetryClient: ${field.replace(/[.[\]]/g, "\\$&")}`)), times));
  const budgetOf = (value) => ({ budget: value });
  const real = new Budget();
  cases.push(
    (times) => hammer("budget look-alike", () => new RetryClient(budgetOf({ __retrylineBudget: real.__retrylineBudget })), threw(TypeError, /budget must be a Budget/), times),
    async (times) => {
      Object.prototype.__retrylineBudget = real.__retrylineBudget;
      try {
        await hammer("polluted prototype", () => new RetryClient(budgetOf({})), threw(TypeError, /budget must be a Budget/), times);
        await hammer("Budget prototype without a pointer", () => new RetryClient(budgetOf(Object.create(Budget.prototype))), threw(TypeError, /budget/), times);
      } finally {
        delete Object.prototype.__retrylineBudget;
      }
    },
    (times) => hammer("Budget getter", () => new Budget({ get capacity() { throw new Error("cap") } }), threw(TypeError, /Budget: options\.capacity could not be read: Error: cap/), times),
    (times) => hammer("Budget revoked proxy", () => new Budget(revoked()), threw(TypeError, /Budget: options could not be read/), times),
    (times) => hammer("Budget scope getter", () => new Budget({ scopes: { a: throwing() } }), threw(TypeError, /Budget: options\.scopes\.a\.x could not be read/), times),
    (times) => hammer("replay getter", () => replay({ outcomes: [{ get status() { throw new Error("s") } }] }), threw(TypeError, /replay: spec\.outcomes\[0\]\.status could not be read/), times),
    (times) => hammer("replay revoked", () => replay(revoked()), threw(TypeError, /replay: spec could not be read/), times),
    (times) => hammer("replay endless array", () => replay({ draws: new Proxy([], { get: (t, k) => (k === "length" ? 2 ** 32 - 1 : 0) }) }), threw(TypeError, /replay: draws/), times),
  );
  await flat(cases);
  assert.equal(new RetryClient({ budget: real, fetch: stubFetch }) instanceof RetryClient, true, "the real budget is still accepted");
  await stillWorks(new RetryClient({ fetch: stubFetch }));
});

test("hostile call options and inputs reject (never throw, never hang), 10 000 times each", async () => {
  const client = new RetryClient({ fetch: stubFetch });
  const cases = [
    ["options getter", () => client.fetch(URL_OK, undefined, { get key() { throw new Error("k") } }), TypeError, /fetch options: key could not be read: Error: k/],
    ["options revoked", () => client.fetch(URL_OK, undefined, revoked()), TypeError, /fetch options: options/],
    ["signal look-alike", () => client.fetch(URL_OK, undefined, { signal: Object.create(AbortSignal.prototype) }), TypeError, /fetch options: signal/],
    ["signal whose aborted getter throws", () => client.fetch(URL_OK, undefined, { signal: Object.defineProperty(new AbortController().signal, "aborted", { get() { throw new Error("a") } }) }), TypeError, /fetch options: signal\.aborted could not be read: Error: a/],
    ["policy proxy trap", () => client.fetch(URL_OK, undefined, { policy: new Proxy({}, { ownKeys() { throw new Error("keys") } }) }), TypeError, /fetch options: policy could not be read/],
    ["init getter", () => client.fetch(URL_OK, { get method() { throw new Error("m") } }), Error, /m/],
    ["input toString", () => client.fetch({ toString() { throw new Error("url") } }), Error, /url/],
  ];
  await flat(cases.map(([what, call, errorClass, pattern]) => (times) => hammer(what, call, rejectedWith(errorClass, pattern), times)));
  await stillWorks(client);
  assert.deepEqual(unhandled, []);
});

test("hostile fetches and responses: each attempt fails cleanly as a network error or a timeout, 10 000 times each", async () => {
  const cases = hostileFetches().map(([what, fetch, expect]) => {
    // readBody: the hostile bodies are read (by default a response is handed on unread).
    const client = new RetryClient({ fetch, readBody: true, policy: { maxAttempts: 1, attemptTimeoutMs: 30, deadlineMs: 5000 } });
    return (times) => hammer(what, () => client.fetch(URL_OK), (r) => {
      assert.equal(r.status, "rejected", `${what}: resolved`);
      assert.ok(r.reason instanceof RetryError, `${what}: ${r.reason}`);
      const sent = r.reason.records.find((rec) => rec.decision === "sent");
      assert.equal(sent?.outcome, expect.outcome, `${what}: ${JSON.stringify(r.reason.records)}`);
      if (expect.error) assert.match(sent.error, expect.error, what);
      if (expect.pending) assert.equal(sent.pending, expect.pending, what);
    }, times);
  });
  await flat(cases);
  await stillWorks();
  assert.deepEqual(unhandled, []);
});

test("hostile stores: a failing store stops the order unsent with reason store (or deadline), 10 000 times each", async () => {
  const cases = hostileStores().map(([what, store, expect]) => {
    // A store that never settles is cut at the deadline: short, so that 10 000 calls end soon.
    const deadlineMs = expect.reason === "deadline" ? 100 : 5000;
    const client = new RetryClient({ fetch: stubFetch, store, policy: { maxAttempts: 1, attemptTimeoutMs: 30, deadlineMs } });
    let n = 0;
    return (times) => hammer(what, () => client.fetch(URL_OK, { method: "POST" }, { operation: "order", key: `k${n++}` }), (r) => {
      assert.equal(r.status, "rejected", `${what}: resolved`);
      assert.ok(r.reason instanceof RetryError, `${what}: ${r.reason}`);
      assert.equal(r.reason.reason, expect.reason, `${what}: ${r.reason.message}`);
      assert.equal(r.reason.records.filter((rec) => rec.decision === "sent").length, 0, `${what}: the order was sent`);
      assert.match(r.reason.message, expect.message, what);
    }, times);
  });
  await flat(cases);
  await stillWorks();
  assert.deepEqual(unhandled, []);
});

test("hostile reconciliation queries and callbacks: results, never crashes, 10 000 times each", async () => {
  const client = new RetryClient({
    fetch: stubFetch,
    onAttempt: async () => { throw new Error("observer failed") },
    onEscalation: () => ({ then() { throw new Error("thenable") } }),
  });
  const cases = hostileQueries().map(([what, query, expect]) => (times) =>
    hammer(what, () => client.reconcile("k", query, { policy: { maxAttempts: 1, attemptTimeoutMs: 20, deadlineMs: 5000 } }), (r) => {
      if (expect === "rejects") return assert.equal(r.status, "rejected", what);
      assert.equal(r.status, "fulfilled", `${what}: ${r.reason}`);
      assert.equal(r.value.resolved, false, what);
      assert.equal(r.value.escalated, true, what);
    }, times));
  cases.push(
    (times) => hammer("reconcile options getter", () => client.reconcile("k", async () => "filled", { get policy() { throw new Error("p") } }), rejectedWith(TypeError, /reconcile options: policy could not be read/), times),
    (times) => hammer("onAttempt rejecting", () => client.fetch(URL_OK), (r) => assert.equal(r.status, "fulfilled"), times),
  );
  await flat(cases);
  await tick();
  await stillWorks(client);
  assert.deepEqual(unhandled, [], "no rejection escaped from an async onAttempt or onEscalation");
});
