// Every promise settles by its deadline, whatever the platform does: a fetch that ignores its
// signal, a body that never ends, a store that never answers, another owner's lease. The
// deadline is fixed when client.fetch() is called.
//
// Bounds: how late a call may settle is judged against a control in the same run, not against a
// fixed number of milliseconds, which a busy machine overruns (a 2 000-call run once settled
// 173 ms past its deadline, over a fixed bound of 160 ms). The control is a plain
// setTimeout(due + MARGIN) armed beside the call on the next turn of the event loop, once the call
// has armed its own timers; the call must settle before it fires. The event loop runs timers in
// the order they fall due, and no timer fires in the middle of the call's own work, so however
// late a loaded machine makes both, a call settled by its own timer comes first, and a call that
// waits for anything else (the platform, a later timer) comes after. MARGIN covers the rounding
// of the call's timers to whole milliseconds. The point is that nothing waits for the platform,
// which would take forever or seconds. (How late calls settle on an idle machine, as a
// distribution, is bench/deadlines.mjs's business.)
// Run: node scripts/build.mjs --quiet && node --test tests/js/deadlines.test.mjs
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { RetryClient, RetryError } from "../../js/node.js";
import { startMockExchange } from "./mock-exchange.mjs";

const MARGIN = 20;
const MANY_MARGIN = 100;
const TICKER = "/api/v3/ticker";
const ORDER = "/api/v3/order";
const never = () => new Promise(() => {});

let mock;
before(async () => {
  mock = await startMockExchange({ port: 0 });
  // One call and one plain fetch first, untimed: the first call of a process compiles its way
  // through the shell and Node's fetch, tens of milliseconds of work and hundreds on a loaded
  // machine, enough for a 300 ms deadline to pass before anything is sent. That is cold start
  // (bench/cold-start.mjs), not what these tests are about.
  await new RetryClient({ fetch: never, policy: { maxAttempts: 1, attemptTimeoutMs: 20, deadlineMs: 20 } }).fetch(`${mock.url}${TICKER}`).catch(() => {});
  await (await fetch(`${mock.url}${TICKER}`)).arrayBuffer();
});
after(async () => mock?.close());
beforeEach(() => mock.reset());

/**
 * Arms the control for a wait of `dueMs` that begins at `from` (a performance.now() reading, by
 * default now): on the next turn of the event loop, behind the timers the call has armed by then,
 * a plain setTimeout(dueMs + MARGIN). (Armed a turn late, it also forgives the call's own timers
 * being armed late, when a loaded machine stalls the call before it gets that far.) `fired`
 * resolves with the instant it fired.
 */
function arm(dueMs, from = performance.now()) {
  const fired = nextTurn().then(() => new Promise((resolve) => setTimeout(() => resolve(performance.now()), dueMs + MARGIN)));
  return { from, dueMs, fired };
}

/** The wait `control` stood beside ended at `at` (a performance.now() reading): before its control fired. */
async function assertOnTime(control, at, what = "the call") {
  const firedAt = await control.fired;
  const past = (t) => `${(t - control.from - control.dueMs).toFixed(1)} ms`;
  assert.ok(at <= firedAt, `${what} settled ${past(at)} past its due time, after a plain setTimeout(${control.dueMs} + ${MARGIN}) armed beside it, which fired ${past(firedAt)} past it`);
}

/**
 * Calls `run()`, which must reject with a RetryError, beside a control for `dueMs` after the call
 * (none without `dueMs`); returns the error, how long the call took, when it settled and the control.
 */
async function timed(run, dueMs) {
  const started = performance.now();
  const settled = (async () => run())().then(
    () => assert.fail("expected a rejection"),
    (error) => ({ error, at: performance.now() }),
  );
  const control = dueMs === undefined ? undefined : arm(dueMs, started);
  const { error, at } = await settled;
  assert.ok(error instanceof RetryError, `expected a RetryError, got ${error}`);
  return { error, ms: at - started, at, control };
}

const lastSent = (records) => records.filter((r) => r.decision === "sent").at(-1);

test("a fetch that ignores its signal and never settles: the call ends at its deadline, pending 'response'", async () => {
  const client = new RetryClient({ fetch: never, policy: { attemptTimeoutMs: 10_000, deadlineMs: 30_000 } });
  // A call deadline shorter than the attempt timeout cuts the attempt to it (no RangeError).
  const { error, ms, at, control } = await timed(() => client.fetch(`${mock.url}${TICKER}`, undefined, { deadlineMs: 300 }), 300);
  assert.ok(ms >= 300 - 1, `settled after ${ms.toFixed(1)} ms, before its deadline`);
  await assertOnTime(control, at);
  assert.equal(error.reason, "deadline");
  const sent = lastSent(error.records);
  assert.deepEqual([sent.outcome, sent.pending], ["timeout", "response"]);
  assert.match(error.message, /the response was still pending/);
});

test("a body that never ends (and ignores cancellation): cut at the attempt timeout, pending 'body'", async () => {
  // The attempt timeout counts from the attempt's start, when fetch is called: its control is armed then.
  let attempt;
  const endless = async () => ((attempt ??= arm(250)), new Response(new ReadableStream({ pull: never, cancel() {} })));
  // readBody: the attempt timeout covers the body (by default the response is handed on unread).
  const client = new RetryClient({ fetch: endless, readBody: true, policy: { maxAttempts: 1, attemptTimeoutMs: 250, deadlineMs: 5000 } });
  const { error, ms, at } = await timed(() => client.fetch(`${mock.url}${TICKER}`));
  assert.ok(ms >= 250 - 1, `settled after ${ms.toFixed(1)} ms, before its attempt timeout`);
  await assertOnTime(attempt, at);
  assert.equal(error.reason, "attempts");
  assert.deepEqual([lastSent(error.records).outcome, lastSent(error.records).pending], ["timeout", "body"]);
});

test("an arrayBuffer() that never settles on a real server's response: pending 'body'; the server saw one request", async (t) => {
  let respondedAt;
  const stuck = async (req) => {
    const res = await fetch(req);
    respondedAt = performance.now();
    return Object.defineProperty(res, "arrayBuffer", { value: never });
  };
  const client = new RetryClient({ fetch: stuck, readBody: true, policy: { maxAttempts: 1, attemptTimeoutMs: 300, deadlineMs: 300 } });
  const { error, at, control } = await timed(() => client.fetch(`${mock.url}${TICKER}`), 300);
  await assertOnTime(control, at);
  // The server's response comes well before the deadline, and then the body is what was pending;
  // but on a machine so loaded that the in-process server took the whole 300 ms to answer, the
  // record says what was still pending when the deadline's timer fired.
  const pending = lastSent(error.records).pending;
  if (respondedAt !== undefined && respondedAt - control.from < 300 - 1) assert.equal(pending, "body");
  else {
    t.diagnostic(`the server answered ${respondedAt === undefined ? "never" : `${(respondedAt - control.from).toFixed(1)} ms in`}, not before the deadline: pending '${pending}'`);
    if (respondedAt === undefined || respondedAt > at) assert.equal(pending, "response");
  }
  assert.equal(mock.requests({ path: TICKER }).length, 1);
});

test("a store whose get never settles: the call ends at its deadline, nothing sent", async () => {
  const store = { get: never, set() {}, delete() {} };
  const client = new RetryClient({ store, policy: { attemptTimeoutMs: 200, deadlineMs: 400 } });
  const { error, ms, at, control } = await timed(() => client.fetch(`${mock.url}${ORDER}`, { method: "POST" }, { operation: "order", key: "get-hangs" }), 400);
  assert.ok(ms >= 400 - 1, `settled after ${ms.toFixed(1)} ms, before its deadline`);
  await assertOnTime(control, at);
  assert.equal(error.reason, "deadline");
  assert.deepEqual(error.records.map((r) => [r.decision, r.pending]), [["refused", "store-get"]]);
  assert.match(error.message, /the store's get was still pending at the deadline/);
  assert.equal(mock.requests({ path: ORDER }).length, 0, "no order reached the server");
});

test("a store whose set never settles before an order is sent: unsent at the deadline, not an unknown outcome", async () => {
  const store = { get: () => undefined, set: never, delete() {} };
  const client = new RetryClient({ store, policy: { attemptTimeoutMs: 200, deadlineMs: 400 } });
  const { error, at, control } = await timed(() => client.fetch(`${mock.url}${ORDER}`, { method: "POST" }, { operation: "order", key: "set-hangs" }), 400);
  await assertOnTime(control, at);
  assert.equal(error.reason, "deadline");
  assert.deepEqual(error.records.map((r) => [r.attempt, r.decision, r.pending]), [[1, "refused", "store-set"]]);
  assert.equal(mock.requests({ path: ORDER }).length, 0, "the order never left");
});

test("a store whose delete never settles after a fill: the response arrives within one attempt timeout, the record says why", async () => {
  mock.script(ORDER, [{ status: 200, body: { status: "FILLED" } }], { method: "POST" });
  const records = [];
  // The wait for the delete starts when it is called: its control is armed then.
  let deleteCalled;
  const store = { get: () => undefined, set() {}, delete: () => ((deleteCalled ??= arm(300)), never()) };
  const client = new RetryClient({ store, onAttempt: (r) => records.push(r), policy: { attemptTimeoutMs: 300, deadlineMs: 30_000 } });
  const res = await client.fetch(`${mock.url}${ORDER}`, { method: "POST" }, { operation: "order", key: "delete-hangs" });
  const resolvedAt = performance.now();
  assert.equal(res.status, 200, "the fill is reported, not hidden behind the store");
  assert.ok(deleteCalled, "the store's delete was called");
  await assertOnTime(deleteCalled, resolvedAt, "the response");
  assert.match(records.at(-1).storeError, /the store's delete was still pending after an attempt timeout/);
  assert.equal(mock.requests({ path: ORDER }).length, 1);
});

// The timeout only stops a hang (the owner neither sleeping nor settling); it is no timing claim.
test("a live lease that outlives the caller's deadline is refused at once, not waited for", { timeout: 60_000 }, async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 200 }]);
  const store = new Map();
  const policy = { baseDelayMs: 5000, maxDelayMs: 5000, jitter: "none", attemptTimeoutMs: 500, deadlineMs: 30_000 };
  const owner = new RetryClient({ store, policy });
  const first = owner.fetch(`${mock.url}${TICKER}`, undefined, { key: "leased" }).catch((e) => e);
  const sleeping = () => store.has("retryline:leased") && JSON.parse(store.get("retryline:leased")).state.phase.phase === "sleeping";
  // No wall-clock bound on getting there: the owner either goes to sleep or settles without it.
  let ownerSettled = false;
  first.then(() => (ownerSettled = true));
  while (!sleeping()) {
    assert.ok(!ownerSettled, "the owner never slept");
    await new Promise((r) => setTimeout(r, 5));
  }
  const other = new RetryClient({ store, policy });
  // "At once": due at 0 ms, so refused before a plain timer due MARGIN ms after the call (the lease runs ~6 s).
  const { error, at, control } = await timed(() => other.fetch(`${mock.url}${TICKER}`, undefined, { key: "leased", deadlineMs: 1000 }), 0);
  await assertOnTime(control, at, "the refusal");
  assert.match(error.message, /being run by another client/);
  assert.equal(mock.requests({ path: TICKER }).length, 1, "only the owner's first request");
  await first;
});

test("the deadline counts from the call, not from when the event loop first runs it", async () => {
  const client = new RetryClient({ policy: { attemptTimeoutMs: 100, deadlineMs: 150 } });
  const promise = client.fetch(`${mock.url}${TICKER}`).catch((e) => e);
  const end = performance.now() + 300;
  while (performance.now() < end); // a busy page: 300 ms before the call's first poll
  const error = await promise;
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "deadline");
  assert.equal(error.records[0].decision, "refused");
  assert.equal(mock.requests({ path: TICKER }).length, 0, "nothing was sent after the deadline");
});

test("2 000 concurrent calls on a fetch that never settles all settle by their deadlines", async () => {
  const client = new RetryClient({ fetch: never, policy: { maxAttempts: 1, attemptTimeoutMs: 400, deadlineMs: 400 } });
  const starts = [];
  const calls = Array.from({ length: 2000 }, async () => {
    const started = performance.now();
    starts.push(started);
    await client.fetch(`${mock.url}${TICKER}`).catch(() => {});
    return performance.now();
  });
  // Settling 2 000 calls at once is work of its own, which delays the controls as much as the
  // calls, and while the loop catches up it runs the timers already due in no fixed order among
  // themselves. So each call's control is due MANY_MARGIN after its deadline (the bound of the
  // 100 000-call benchmark, bench/deadlines.mjs), armed on the next turn, once every call has armed
  // its own timers; every call must have settled by the time the last of them fired, plus MARGIN
  // for that order.
  await nextTurn();
  const controls = starts.map((started) => new Promise((resolve) => setTimeout(() => resolve(performance.now()), Math.max(0, started + 400 + MANY_MARGIN - performance.now()))));
  const settled = await Promise.all(calls);
  const fired = await Promise.all(controls);
  const late = settled.map((at, i) => at - starts[i] - 400).sort((a, b) => a - b);
  const controlLate = fired.map((at, i) => at - starts[i] - 400 - MANY_MARGIN).sort((a, b) => a - b);
  const at = (values, q) => values[Math.min(values.length - 1, Math.floor(q * values.length))].toFixed(1);
  const spread = (values) => `p50 ${at(values, 0.5)}, p99 ${at(values, 0.99)}, max ${at(values, 1)}`;
  console.log(`# lateness (ms): calls past their deadlines ${spread(late)}; their controls past theirs ${spread(controlLate)}`);
  const lastSettled = Math.max(...settled);
  const lastFired = Math.max(...fired);
  assert.ok(lastSettled <= lastFired + MARGIN, `the latest call settled ${late.at(-1).toFixed(1)} ms past its deadline, ${(lastSettled - lastFired).toFixed(1)} ms after the last of the plain timers due ${MANY_MARGIN} ms after the deadlines fired (those fired up to ${controlLate.at(-1).toFixed(1)} ms late)`);
});
