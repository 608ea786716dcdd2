// close() on a stream (issue 32's defects 2 and 4): stopped when it returns, no connection after
// it, and no timer of ours left to keep Node alive. Judged by the mock's connection log and by a
// child process's exit beside a control timer armed at the close.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient } from "../../js/node.js";

let mock;
let ws;
before(async () => {
  mock = await startMockExchange({ port: 0 });
  ws = mock.url.replace(/^http/, "ws");
});
after(() => mock?.close());
beforeEach(() => mock.reset());

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const closer = fileURLToPath(new URL("./support/stream-closer.mjs", import.meta.url));

test("close() before the first open: stopped when it returns, a stop event, and no connection at the server", async () => {
  const stream = new RetryClient().stream(`${ws}/ws/ticker`, { WebSocket });
  const seen = [];
  stream.addEventListener("state", (e) => seen.push(`state ${e.state}`));
  stream.addEventListener("stop", (e) => seen.push(`stop ${e.reason}`));
  stream.close();
  assert.equal(stream.state, "stopped");
  assert.equal(stream.reason, "aborted");
  assert.deepEqual(seen, ["state stopped", "stop aborted"]);
  await sleep(300);
  assert.equal(mock.streams.connections({ path: "/ws/ticker" }).length, 0, "no connection attempt after close()");
  assert.deepEqual(seen, ["state stopped", "stop aborted"], "nothing after");
});

test("a signal aborted before the stream runs: stopped without a connection attempt", async () => {
  const stream = new RetryClient().stream(`${ws}/ws/ticker`, { WebSocket, signal: AbortSignal.abort() });
  await sleep(300);
  assert.equal(stream.state, "stopped");
  assert.equal(mock.streams.connections({ path: "/ws/ticker" }).length, 0);
});

/** Runs the closer child; resolves with what it printed at exit. */
function runCloser(when) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [closer, `${ws}/ws/ticker`, when], { timeout: 15_000 }, (error, stdout) => {
      if (error) return reject(error);
      resolve(JSON.parse(stdout.trim().split("\n").at(-1)));
    });
  });
}

test("Node exits promptly after close(): no grace timer, backoff timer or uptime check left armed", async () => {
  const open = await runCloser("open");
  assert.ok(open.afterControlMs !== null && open.afterControlMs < 250, `exited ${open.afterCloseMs.toFixed(0)} ms after close(), ${open.afterControlMs?.toFixed(0)} ms after the 300 ms control`);
  assert.equal(mock.streams.connections({ path: "/ws/ticker" }).length, 1);
  mock.reset();
  mock.streams.script("/ws/ticker", [{ action: "refuse", status: 503 }]);
  const waiting = await runCloser("waiting");
  assert.ok(waiting.afterControlMs !== null && waiting.afterControlMs < 250, `exited ${waiting.afterCloseMs.toFixed(0)} ms after close() at "waiting", ${waiting.afterControlMs?.toFixed(0)} ms after the control`);
  assert.equal(mock.streams.connections({ path: "/ws/ticker" }).length, 1, "no attempt after the close");
});

test("close() from a state listener as a reconnect starts: no connection after the stop", async () => {
  mock.streams.script("/ws/ticker", [{ action: "accept", closeAfterMs: 100, closeCode: 1012 }]);
  const stream = new RetryClient({ draws: [200, 200] }).stream(`${ws}/ws/ticker`, { WebSocket, minUptimeMs: 0, policy: { baseDelayMs: 10 } });
  const states = [];
  stream.addEventListener("state", () => {
    states.push(stream.state);
    if (stream.state === "connecting" && states.includes("open")) stream.close();
  });
  for (let i = 0; i < 200 && stream.state !== "stopped"; i++) await sleep(10);
  await sleep(500);
  assert.deepEqual(states, ["open", "waiting", "connecting", "stopped"]);
  assert.equal(mock.streams.connections({ path: "/ws/ticker" }).length, 1, "the server saw the first connection only");
});

test("close(code, reason) reaches the server as given; a code or reason WebSocket refuses is refused at once", async () => {
  const stream = new RetryClient().stream(`${ws}/ws/ticker`, { WebSocket });
  for (let i = 0; i < 300 && stream.state !== "open"; i++) await sleep(10);
  assert.equal(stream.state, "open");
  assert.throws(() => stream.close(1001), { name: "RangeError", message: /code must be 1000 or an integer from 3000 to 4999, got 1001/ });
  assert.throws(() => stream.close(4000, "x".repeat(124)), { name: "RangeError", message: /at most 123 bytes/ });
  assert.throws(() => stream.close(4000, 7), { name: "TypeError", message: /reason must be a string/ });
  assert.equal(stream.state, "open", "a refused close() changes nothing");
  stream.close(4000, "some reason");
  assert.equal(stream.state, "stopped");
  for (let i = 0; i < 300 && mock.streams.connections({ path: "/ws/ticker" })[0]?.closedAt == null; i++) await sleep(10);
  const [connection] = mock.streams.connections({ path: "/ws/ticker" });
  assert.deepEqual([connection.closeCode, connection.closeReason], [4000, "some reason"]);
});

test("a stop code ends the stream with an error that names the server's close: its code and reason", async () => {
  mock.streams.script("/ws/ticker", [{ action: "accept", closeAfterMs: 200, closeCode: 1008, closeReason: "policy violation" }]);
  const stream = new RetryClient().stream(`${ws}/ws/ticker`, { WebSocket, minUptimeMs: 50 });
  let stop = null;
  stream.addEventListener("stop", (e) => (stop = e));
  for (let i = 0; i < 300 && stop === null; i++) await sleep(10);
  assert.equal(stop?.reason, "non-retryable");
  assert.match(stop.error.message, /non-retryable after 0 connection attempts: the server closed the connection with code 1008 \(policy violation\), one of stopCodes: reconnecting cannot help/);
  assert.equal(mock.streams.connections({ path: "/ws/ticker" }).length, 1, "not reconnected");
});

test("a server's close of a healthy connection is told: a close event with its code, reason and wasClean", async () => {
  mock.streams.script("/ws/ticker", [{ action: "accept", closeAfterMs: 300, closeCode: 1012, closeReason: "service restart" }]);
  const stream = new RetryClient({ draws: [5000] }).stream(`${ws}/ws/ticker`, { WebSocket, minUptimeMs: 50 });
  const closes = [];
  stream.addEventListener("close", (e) => closes.push([e.code, e.reason, e.wasClean, stream.state]));
  for (let i = 0; i < 300 && closes.length === 0; i++) await sleep(10);
  stream.close();
  assert.deepEqual(closes, [[1012, "service restart", true, "open"]]);
  assert.equal(mock.streams.connections({ path: "/ws/ticker" })[0].closeCode, 1012);
});
