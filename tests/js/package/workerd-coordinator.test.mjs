// Budgets shared across isolates: two worker services of one workerd (two isolates, two wasm
// instances) keep one budget through the package's BudgetCoordinator Durable Object
// (coordinator-rig.mjs); what reaches the mock exchange is counted there. The ban is also shown
// to survive a workerd restart (the Durable Object's storage is on disk).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startCoordinatorRig } from "./coordinator-rig.mjs";
import { sleep } from "./workerd-harness.mjs";
import { busiestSecond } from "../support/windows.mjs";

const limits = { capacity: 10, refillPerSecond: 5 };
const policy = { maxAttempts: 1, deadlineMs: 1500, attemptTimeoutMs: 1000 };
// How old an isolate's news of holds and bans may be when it sends (src/web/coordinator.rs FRESH_MS).
const FRESH_MS = 50;

let rig;
before(async () => {
  rig = await startCoordinatorRig();
}, { timeout: 600_000 }); // includes the wasm build when pkg/ is stale
after(() => rig?.close());

const flood = (worker, path, ms, share) =>
  rig.worker.call(`/${worker}/flood`, { url: rig.mock.url + path, limits, policy, ms, share });
const once = (worker, path, share) => rig.worker.call(`/${worker}/once`, { url: rig.mock.url + path, limits, policy, share });
const calls = (worker, path, share, n, given = limits) =>
  rig.worker.call(`/${worker}/calls`, { url: rig.mock.url + path, limits: given, policy, share, n });

test("two isolates flooding one scope through one coordinator never exceed capacity + one second of refill", { timeout: 60_000 }, async () => {
  const results = await Promise.all([flood("w1", "/co/flood", 3000, "flood"), flood("w2", "/co/flood", 3000, "flood")]);
  assert.deepEqual(results.map((r) => r.sharing), ["coordinator", "coordinator"]);
  const requests = rig.mock.requests({ path: "/co/flood" });
  // 10 at once plus 5 a second: at most 15 in any second (one more for a token that lands on the
  // window's edge); over 3 s, at most 10 + 3 × 5 = 25 in all (+1 for the edge).
  assert.ok(busiestSecond(requests) <= 16, `busiest second: ${busiestSecond(requests)}`);
  assert.ok(requests.length <= 26, `${requests.length} requests`);
  assert.ok(requests.length >= 15, `the bucket was used: ${requests.length}`);
  assert.ok(results.every((r) => r.sent > 0), `both isolates sent: ${results.map((r) => r.sent)}`);
  assert.equal(results.reduce((n, r) => n + r.sent, 0), requests.length);

  // The control: the same isolates, each budget without a coordinator: two buckets' worth goes out.
  const alone = await Promise.all(["w1", "w2"].map((w) =>
    rig.worker.call(`/${w}/flood`, { url: rig.mock.url + "/alone/flood", limits, policy, ms: 1500, alone: true, share: w })));
  assert.ok(busiestSecond(rig.mock.requests({ path: "/alone/flood" })) > 20, `two coordinators, two buckets: ${JSON.stringify(alone)}`);
});

test("a 418 answered to one isolate stops both until it expires, with nothing at the server meanwhile", { timeout: 60_000 }, async (t) => {
  rig.mock.script("/co/ban", [{ status: 418, retryAfter: 3 }]);
  const results = await Promise.all([flood("w1", "/co/ban", 4500, "ban"), flood("w2", "/co/ban", 4500, "ban")]);
  const [ban, ...rest] = rig.mock.requests({ path: "/co/ban" });
  assert.equal(ban.status, 418);
  // The isolate that got the 418 tells the coordinator before it goes on; the other hears of it at its
  // next contact, at most FRESH_MS after its last. Until then it may send on its lease: such requests
  // reach the server within FRESH_MS + the round trips' spread (100 ms allowed) of the 418, at most
  // the lease's batch (2 tokens here). After that, nothing until the ban expires (10 ms of slack:
  // wall-clock ms are rounded where the state changes realm).
  const after = rest.map((r) => r.receivedAtMs - ban.respondedAtMs);
  const raced = after.filter((ms) => ms < FRESH_MS + 100);
  t.diagnostic(`after the 418 (ms): ${after.map((ms) => ms.toFixed(1)).join(", ")}`);
  assert.ok(raced.length <= 2, `dispatched before the ban was known: ${raced}`);
  const during = after.filter((ms) => ms >= FRESH_MS + 100 && ms < 3000 - 10);
  assert.deepEqual(during, [], "requests while the ban was in force");
  assert.ok(after.filter((ms) => ms >= 3000).length >= 1, "and sending resumed once it expired");
  assert.ok(results.every((r) => r.refused.banned > 0), `both isolates were refused: ${JSON.stringify(results)}`);
});

test("a ban survives a workerd restart: a new isolate is refused without a request", { timeout: 60_000 }, async () => {
  rig.mock.script("/co/restart", [{ status: 418, retryAfter: 20 }]);
  assert.equal((await once("w1", "/co/restart", "restart")).reason, "banned", "the 418 itself");
  assert.equal((await once("w2", "/co/restart", "restart")).reason, "banned", "the other isolate, at once");
  assert.equal(rig.mock.requests({ path: "/co/restart" }).length, 1);
  await rig.worker.restart();
  const after = await once("w2", "/co/restart", "restart");
  assert.equal(after.reason, "banned");
  assert.ok(after.snapshot[0].banRemainingMs > 10_000, `the ban's end was kept: ${JSON.stringify(after.snapshot)}`);
  await sleep(100);
  assert.equal(rig.mock.requests({ path: "/co/restart" }).length, 1, "nothing reached the server after the restart");
});

test("two isolates see one breaker: opened by one isolate's failures, refusing in both, one probe among them", { timeout: 60_000 }, async () => {
  const breakerLimits = { ...limits, retryQuota: false, breaker: { consecutiveFailures: 3, openMs: 1500, maxOpenMs: 1500 } };
  const path = "/co/breaker";
  rig.mock.script(path, [{ status: 503 }, { status: 503 }, { status: 503 }]);
  const opened = await calls("w1", path, "breaker", 3, breakerLimits);
  assert.deepEqual(opened.outcomes, ["attempts", "attempts", "attempts"]);
  assert.equal(opened.snapshot[0].breaker, "open");
  // The other isolate, with a budget of its own: refused before sending, nothing at the server.
  const refused = await calls("w2", path, "breaker", 3, breakerLimits);
  assert.deepEqual(refused.outcomes, ["circuit-open", "circuit-open", "circuit-open"], JSON.stringify(refused));
  assert.equal(rig.mock.requests({ path }).length, 3);
  // Both half-open once the open time is up: of six calls at once, three in each isolate, one probe goes.
  await sleep(Math.max(0, opened.snapshot[0].breakerOpenUntil - Date.now()) + 100);
  rig.mock.script(path, Array.from({ length: 10 }, () => ({ status: 200, delayMs: 300 })));
  const racing = await Promise.all(["w1", "w2", "w1", "w2", "w1", "w2"].map((w) => calls(w, path, "breaker", 1, breakerLimits)));
  const outcomes = racing.flatMap((r) => r.outcomes);
  assert.equal(rig.mock.requests({ path }).length, 4, `one probe among the isolates: ${outcomes}`);
  assert.deepEqual(outcomes.filter((o) => o !== "circuit-open"), [200], `${outcomes}`);
  // The probe closed it for both: the next calls in either isolate go.
  const closed = await Promise.all(["w1", "w2"].map((w) => calls(w, path, "breaker", 1, breakerLimits)));
  assert.deepEqual(closed.flatMap((r) => r.outcomes), [200, 200]);
  assert.equal(closed[1].snapshot[0].breaker, "closed");
});
