// Streams (`client.stream`) in workerd, from the npm tarball installed in a fresh project (as in
// workerd.test.mjs): the worker (fixtures/workerd-stream/worker.js) connects with workerd's global
// WebSocket constructor to the mock exchange's WebSocket endpoint, is dropped, reconnects, and
// answers with what it saw; what reached the server is counted and timed there.
// Run: node --test tests/js/package/workerd-stream.test.mjs
//
// workerd ties a socket and its timers to the request that made them: each scenario runs inside
// one request (a few seconds), the stream closed before the answer.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { capnpModules, startPackageInWorkerd } from "./workerd-harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const POLICY = { baseDelayMs: 100, maxDelayMs: 400, deadlineMs: 60_000, attemptTimeoutMs: 5_000 };
const CAP_MS = 12_000; // the worker answers by then whatever happened (the harness's call waits 20 s)

let rig; // startPackageInWorkerd: { dir, mock, worker, close() }
let mock;
let worker;

function config(dir) {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .streamWorker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const streamWorker :Workerd.Worker = (
  modules = ${capnpModules(dir, join(here, "fixtures", "workerd-stream", "worker.js"))},
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
);
`;
}

before(async () => {
  ({ mock, worker } = rig = await startPackageInWorkerd(config));
}, { timeout: 600_000 }); // includes the wasm build (and waiting for another one) when pkg/ is stale

after(() => rig?.close());
beforeEach(() => mock.reset());

const ws = () => `${mock.url.replace(/^http/, "ws")}/ws/ticker`;
const control = () => `${mock.url}/__mock/streams`;

/** The ticks' seqs are increasing (one ticker numbers them all); the ticks of each connection. */
function checkTicks(w) {
  const seqs = w.ticks.map((t) => t.seq);
  assert.ok(seqs.every((s, i) => i === 0 || s > seqs[i - 1]), `ticks in order: ${seqs.join(",")}`);
  return { first: w.ticks.filter((t) => t.opens === 1), second: w.ticks.filter((t) => t.opens === 2) };
}

test("workerd has the global WebSocket, and the package's streams", async () => {
  assert.deepEqual(await worker.call("/health"), { WebSocket: "function", stream: "function" });
});

test("a stream in workerd ticks, is dropped, retries through refused upgrades and reconnects; the server counts every attempt", { timeout: 60_000 }, async () => {
  const refuseMs = 800;
  const w = await worker.call("/drop", { ws: ws(), control: control(), refuseMs, policy: POLICY, capMs: CAP_MS });
  assert.deepEqual(w.steps, { firstTicks: true, dropped: 1, ticksAgain: true }, JSON.stringify(w));
  const log = mock.streams.connections({ path: "/ws/ticker" });
  const [first, ...rest] = log;
  const last = rest.at(-1);
  const refused = rest.slice(0, -1);
  // At the server: the first connection, dropped with 1012; only refusals, within the refusal's
  // window; then one accepted connection.
  assert.equal(first.outcome, "accepted");
  assert.equal(first.closeCode, 1012);
  assert.equal(last.outcome, "accepted", JSON.stringify(log));
  assert.ok(refused.length >= 1, `retried during the refusal: ${log.map((c) => c.outcome)}`);
  assert.ok(refused.every((c) => c.outcome === "refused" && c.status === 503), JSON.stringify(refused));
  const refusedFrom = refused[0].at;
  assert.ok(refused.every((c) => c.at - refusedFrom < refuseMs + 50), "refused only while the refusal lasted");
  assert.ok(last.at >= first.closedAt, "the new connection came after the old one closed");
  // The worker's view matches: one record per upgrade the server saw, the refused ones as
  // network errors (workerd's WebSocket shows no refused upgrade's status), two opens.
  const sent = w.records.filter((r) => r.decision === "sent");
  assert.equal(sent.length, log.length, `records ${sent.length} vs upgrades at the server ${log.length}: ${JSON.stringify(w.records)}`);
  assert.ok(w.records.every((r) => r.operation === "stream"));
  assert.equal(w.opens, 2);
  assert.deepEqual(w.stops, [{ reason: "aborted", message: null }], "stopped only by the worker's close()");
  assert.equal(w.finalState, "stopped");
  const { first: before, second: after } = checkTicks(w);
  assert.ok(before.length >= 3 && after.length >= 3, `ticks before (${before.length}) and after (${after.length}) the reconnect`);
  // And the ticks the worker got are the ones the server ticked meanwhile (seq is the server's).
  assert.ok(after[0].seq > before.at(-1).seq);
  console.log(`# workerd: ${log.length} upgrades (${refused.length} refused) in ${Math.round(last.at - first.at)} ms; ${w.ticks.length} ticks; worker took ${w.elapsedMs} ms`);
});

test("in workerd, a REST 418 on the stream's scope holds its reconnect until the ban ends (server timestamps)", { timeout: 60_000 }, async () => {
  const banSeconds = 2;
  mock.script("/api/v3/ping", [{ status: 418, retryAfter: banSeconds }]);
  const w = await worker.call("/ban", {
    ws: ws(), control: control(), rest: `${mock.url}/api/v3/ping`, banSeconds, controlTimer: `${mock.url}/control/ban-timer`, policy: POLICY, capMs: CAP_MS,
  });
  assert.deepEqual(w.steps, { firstTicks: true, call: "banned", dropped: 1, ticksAgain: true }, JSON.stringify(w));
  const [ban] = mock.requests({ path: "/api/v3/ping" });
  assert.equal(ban.status, 418);
  const [timer] = mock.requests({ path: "/control/ban-timer" });
  assert.ok(timer, "the worker's control timer reported");
  const log = mock.streams.connections({ path: "/ws/ticker" });
  assert.equal(log.length, 2, `one connection before the drop, one after the ban: ${JSON.stringify(log)}`);
  const [first, second] = log;
  assert.equal(first.closeCode, 1012);
  assert.ok(first.closedAt < ban.respondedAtMs + banSeconds * 1000, "the drop came during the ban");
  // The ban runs from the 418's receipt in the worker, no earlier than the server's answer (10 ms
  // of slack for the clocks' rounding); the reconnect is due then, within the policy's largest
  // backoff (400 ms) and 600 ms of slack of the worker's own timer of the ban's length.
  assert.ok(second.at >= ban.respondedAtMs + banSeconds * 1000 - 10, `reconnected ${Math.round(second.at - ban.respondedAtMs)} ms after the 418, under a ${banSeconds} s ban`);
  assert.ok(second.at <= timer.receivedAtMs + 1000, `reconnected ${Math.round(second.at - timer.receivedAtMs)} ms after the worker's ${banSeconds} s timer fired`);
  assert.equal(second.outcome, "accepted");
  assert.equal(w.opens, 2);
  const { first: before, second: after } = checkTicks(w);
  assert.ok(before.length >= 3 && after.length >= 3, `ticks before (${before.length}) and after (${after.length}) the ban`);
  assert.deepEqual(w.stops, [{ reason: "aborted", message: null }]);
  console.log(`# workerd ban: reconnected ${Math.round(second.at - ban.respondedAtMs)} ms after the 418, ${Math.round(second.at - timer.receivedAtMs)} ms after the worker's timer; worker took ${w.elapsedMs} ms`);
});
