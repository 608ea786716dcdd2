// client.stream in Node with `ws` against the mock exchange's WebSocket endpoint: every claim is
// judged by the server's own log of connection attempts and messages.
import { test, before, after, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startMockExchange } from "./mock-exchange.mjs";
import { Budget, RetryClient } from "../../js/node.js";

let mock;
let ws;
before(async () => {
  mock = await startMockExchange({ port: 0 });
  ws = mock.url.replace(/^http/, "ws");
});
after(() => mock?.close());
beforeEach(() => {
  mock.reset();
  mock.streams.setTickMs(20);
});
// A test that fails midway must not leave its stream reconnecting into the next test's counts.
const opened = [];
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, what, ms = 8000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A stream with its messages, states and records collected; closed by the test. */
function open(client, path, options = {}) {
  const seen = { messages: [], states: [], records: [], stop: null };
  const stream = client.stream(`${ws}${path}`, { WebSocket, onAttempt: (r) => seen.records.push(r), ...options });
  opened.push(stream);
  stream.addEventListener("message", (e) => seen.messages.push(JSON.parse(e.data)));
  stream.addEventListener("state", (e) => seen.states.push(e.state));
  stream.addEventListener("stop", (e) => (seen.stop = e));
  return { stream, seen };
}

const connections = (path = "/ws/ticker") => mock.streams.connections({ path });

test("a drop after the uptime reconnects after the drawn delay, and onOpen resubscribes on every open", async () => {
  // draws fix the jitter: the first reconnect of each outage waits 300 ms.
  const client = new RetryClient({ draws: [300, 300] });
  let opens = 0;
  const onOpen = (socket) => {
    opens++;
    socket.send(JSON.stringify({ method: "SUBSCRIBE", params: ["btcusdt@trade"], id: opens }));
  };
  const { stream, seen } = open(client, "/stream", { minUptimeMs: 100, onOpen });
  await until(() => seen.messages.some((m) => m.e === "trade"), "ticks after the subscription");
  await sleep(150);
  mock.streams.dropAll(1012);
  const dropAt = performance.timeOrigin + performance.now();
  await until(() => seen.records.length === 2, "the reconnect, up its minimum uptime");
  const [, second] = mock.streams.connections({ path: "/stream" });
  const gap = second.at - dropAt;
  assert.ok(gap >= 290, `reconnected ${gap.toFixed(0)} ms after the drop, before the 300 ms drawn`);
  const subscriptions = mock.streams.messages({ path: "/stream" }).filter((m) => JSON.parse(m.data).method === "SUBSCRIBE");
  assert.deepEqual(subscriptions.map((m) => m.connection), mock.streams.connections({ path: "/stream" }).map((c) => c.id));
  assert.equal(stream.state, "open");
  const sent = seen.records.filter((r) => r.decision === "sent");
  assert.deepEqual(sent.map((r) => [r.operation, r.status, r.reason]), [["stream", 101, "success"], ["stream", 101, "success"]]);
  assert.equal(sent[1].sampledDelayMs, 300);
  stream.close();
  assert.equal(seen.stop.reason, "aborted");
  await until(() => mock.streams.openCount() === 0, "the socket closed");
});

test("it gives up after maxAttempts, and a refused upgrade's Retry-After is kept", async () => {
  mock.streams.script("/ws/ticker", [{ action: "refuse", status: 429, retryAfter: 1 }, { action: "refuse", status: 503 }, { action: "refuse", status: 503 }]);
  const client = new RetryClient();
  const { seen } = open(client, "/ws/ticker", { policy: { maxAttempts: 3, baseDelayMs: 50 } });
  await until(() => seen.stop !== null, "the stop", 10_000);
  assert.equal(seen.stop.reason, "attempts");
  assert.ok(seen.stop.error.message.includes("attempts"), seen.stop.error.message);
  const log = connections();
  assert.equal(log.length, 3, "three connection attempts reached the server");
  assert.ok(log[1].at - log[0].at >= 1000, `the second came ${(log[1].at - log[0].at).toFixed(0)} ms after a Retry-After of 1 s`);
  // A record carries the wait that preceded its attempt: the second says it kept a Retry-After.
  assert.equal(seen.records[0].status, 429);
  assert.equal(seen.records[1].retryAfter, "seconds");
  assert.deepEqual(seen.states.at(-1), "stopped");
});

test("an outage longer than deadlineMs ends with deadline", async () => {
  mock.streams.script("/ws/ticker", Array.from({ length: 20 }, () => ({ action: "hang" })));
  const client = new RetryClient();
  const { seen } = open(client, "/ws/ticker", { policy: { deadlineMs: 1200, attemptTimeoutMs: 300, baseDelayMs: 50, maxDelayMs: 100 } });
  await until(() => seen.stop !== null, "the stop", 10_000);
  assert.equal(seen.stop.reason, "deadline");
  const log = connections();
  assert.ok(log.length >= 2 && log.length <= 4, `${log.length} attempts within 1.2 s of 300 ms each`);
  assert.ok(log.at(-1).at - log[0].at < 1200, "none began past the deadline");
});

test("a 418 from a REST call in the same scope holds the reconnect until the ban ends", async () => {
  const client = new RetryClient();
  const { stream, seen } = open(client, "/ws/ticker", { minUptimeMs: 0, policy: { baseDelayMs: 10 } });
  await until(() => seen.messages.length > 0, "ticks");
  mock.script("/api/v3/ticker/price", [{ status: 418, retryAfter: 2 }]);
  await client.fetch(`${mock.url}/api/v3/ticker/price`).catch((e) => assert.equal(e.reason, "banned"));
  const bannedAt = mock.requests({ path: "/api/v3/ticker/price" })[0].respondedAtMs;
  mock.streams.dropAll(1012);
  await until(() => connections().length === 2, "the reconnect", 10_000);
  // Its record comes once the client has the connection open (the server may see it first).
  await until(() => seen.records.filter((r) => r.decision === "sent").length === 2, "the reconnect's record", 10_000);
  const wait = connections()[1].at - bannedAt;
  assert.ok(wait >= 1990, `reconnected ${wait.toFixed(0)} ms after a 2 s ban`);
  const held = seen.records.filter((r) => r.decision === "sent").at(-1);
  assert.ok(held.providerWaitMs >= 1500, JSON.stringify(held));
  stream.close();
});

test("a silent connection goes stale, then is replaced; messages make it fresh again", async () => {
  mock.streams.script("/ws/ticker", [{ action: "accept", silentAfterMs: 200 }]);
  const client = new RetryClient();
  const { stream, seen } = open(client, "/ws/ticker", { minUptimeMs: 50, staleAfterMs: 300, reconnectAfterStaleMs: 700, policy: { baseDelayMs: 10 } });
  await until(() => seen.states.includes("stale"), "stale");
  assert.ok(stream.staleForMs >= 0 && stream.lastMessageAt !== null);
  await until(() => connections().length === 2, "the replacement", 10_000);
  await until(() => connections()[0].closedAt !== null, "the old socket closed");
  const [, second] = connections();
  // The silence, by the server's clocks: from the last tick before the replacement began to its start
  // (ticks sent on the replacement before the old socket's close are not the old one's silence;
  // a tick's T is whole ms, so one in the replacement's first ms may read as before it).
  const lastTick = Math.max(...seen.messages.filter((m) => m.T !== undefined && m.seq !== undefined).map((m) => m.T).filter((t) => t < Math.floor(second.at)));
  assert.ok(second.at - lastTick >= 700 - 20, `replaced after ${(second.at - lastTick).toFixed(0)} ms of silence, not the 700 ms`);
  await until(() => stream.state === "open" && seen.messages.length > 20, "fresh again");
  assert.deepEqual(seen.records.map((r) => [r.decision, r.status]), [["sent", 101], ["sent", 101]]);
  stream.close();
});

test("rotation opens the next connection before the old one closes: no gap in seq", async () => {
  const client = new RetryClient();
  const { stream, seen } = open(client, "/ws/ticker", { minUptimeMs: 50, rotateAfterMs: 400 });
  await until(() => connections().length >= 3, "two rotations", 10_000);
  await sleep(100);
  stream.close();
  const log = connections();
  for (let i = 1; i < log.length; i++) {
    assert.ok(log[i].at < (log[i - 1].closedAt ?? Infinity), `connection ${i + 1} began before ${i} closed`);
  }
  const seqs = [...new Set(seen.messages.map((m) => m.seq))].sort((a, b) => a - b);
  for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, `a gap after seq ${seqs[i - 1]}`);
  assert.equal(stream.state, "stopped");
});

test("send is paced to sendPerSecond, as the server counts it", async () => {
  const client = new RetryClient();
  const onOpen = (socket) => {
    for (let i = 0; i < 12; i++) socket.send(JSON.stringify({ method: "ping", id: i }));
  };
  const { stream } = open(client, "/ws/ticker", { sendPerSecond: 5, onOpen });
  await until(() => mock.streams.messages({ path: "/ws/ticker" }).length === 12, "every ping", 10_000);
  const at = mock.streams.messages({ path: "/ws/ticker" }).map((m) => m.at);
  for (let i = 5; i < at.length; i++) assert.ok(at[i] - at[i - 5] >= 950, `6 sends within ${(at[i] - at[i - 5]).toFixed(0)} ms`);
  stream.close();
});

test("connection attempts of many streams stay within the scope's bucket", async () => {
  const budget = new Budget({ capacity: 5, refillPerSecond: 5, reserve: 0 });
  const client = new RetryClient({ budget });
  const streams = Array.from({ length: 15 }, () => open(client, "/ws/ticker", { minUptimeMs: 0 }).stream);
  await until(() => connections().length >= 15, "all 15 connected", 15_000);
  const log = connections();
  for (let i = 0; i < log.length; i++) {
    const within = log.filter((c) => c.at >= log[i].at && c.at < log[i].at + 1000).length;
    assert.ok(within <= 5 + 5 + 1, `${within} attempts in a second from attempt ${i + 1}`);
  }
  assert.ok(log.at(-1).at - log[0].at >= 1500, "15 attempts of a 5-token bucket refilling 5/s need at least 2 s");
  for (const s of streams) s.close();
});

test("options are checked like every option surface: a TypeError or RangeError naming the field", () => {
  const client = new RetryClient();
  const url = `${ws}/ws/ticker`;
  assert.throws(() => client.stream(url, { WebSocket, minUptime: 5 }), (e) => e instanceof TypeError && /minUptime/.test(e.message));
  assert.throws(() => client.stream(url, { WebSocket, policy: { maxAttempts: 0 } }), /policy\.maxAttempts/);
  assert.throws(() => client.stream(url, { WebSocket, staleAfterMs: -1 }), (e) => e instanceof RangeError && /staleAfterMs/.test(e.message));
  assert.throws(() => client.stream(url, { WebSocket: 5 }), (e) => e instanceof TypeError && /WebSocket/.test(e.message));
  assert.throws(() => client.stream(url, { WebSocket, heartbeat: { everyMs: 10 } }), /heartbeat needs/);
  assert.throws(() => client.stream(url, { WebSocket, stopCodes: [99] }), /stopCodes\[0\]/);
  assert.throws(() => client.stream("ftp://x", { WebSocket }), /url must be/);
  assert.throws(() => client.stream(url, { WebSocket, get scope() { throw new Error("boom"); } }), /scope could not be read/);
});

test("a hostile WebSocket (a throwing constructor, throwing getters) ends in records, never a crash", async () => {
  let made = 0;
  class Hostile {
    constructor() {
      made++;
      throw new Error("no sockets today");
    }
  }
  const client = new RetryClient();
  const { seen } = open(client, "/ws/ticker", { WebSocket: Hostile, policy: { maxAttempts: 2, baseDelayMs: 10 } });
  await until(() => seen.stop !== null, "the stop");
  assert.equal(seen.stop.reason, "attempts");
  assert.equal(made, 2);
  assert.ok(seen.records[0].error.includes("no sockets today"));
  // The client still works afterwards: the wasm instance was never hurt.
  mock.script("/api/v3/time", [{ status: 200 }]);
  assert.equal((await client.fetch(`${mock.url}/api/v3/time`)).status, 200);
});

test("the URL in records is redacted", async () => {
  const client = new RetryClient();
  const { stream, seen } = open(client, "/ws/ticker?listenKey=abc123&symbol=btc", { minUptimeMs: 0 });
  await until(() => seen.records.length > 0, "a record");
  assert.ok(!seen.records[0].url.includes("abc123"), seen.records[0].url);
  stream.close();
});

test("a stream holds its client: garbage collection of a client no one else holds does not break it", async () => {
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  const seen = { opens: 0, stop: null };
  const stream = new RetryClient().stream(`${ws}/ws/ticker`, { WebSocket, minUptimeMs: 0, policy: { baseDelayMs: 20 } });
  opened.push(stream);
  stream.addEventListener("state", (e) => e.state === "open" && seen.opens++);
  stream.addEventListener("stop", (e) => (seen.stop = e));
  await until(() => seen.opens === 1, "the first open");
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
  mock.streams.dropAll(1012);
  await until(() => seen.opens === 2 || seen.stop !== null, "the reconnect");
  assert.equal(seen.stop, null, `stopped: ${seen.stop?.reason} ${seen.stop?.error}`);
  assert.equal(connections().length, 2);
  stream.close();
});
