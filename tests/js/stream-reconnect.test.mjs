// reconnect(), URL and protocols providers, and sends the pace held when a connection drops (issue
// 32), in Node with `ws` against the mock exchange: every claim judged by the server's own log of
// connections and messages, and each wall-clock bound against a control timer armed in the run.
import { test, before, after, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, RetryError } from "../../js/node.js";

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
const opened = [];
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const connections = (path = "/ws/ticker") => mock.streams.connections({ path });

async function until(check, what, ms = 8000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A stream with what it tells collected; closed after the test. */
function open(url, options = {}, client = new RetryClient()) {
  const seen = { messages: 0, states: [], records: [], stop: null, unsent: [], errors: [] };
  const stream = client.stream(url, { WebSocket, onAttempt: (r) => seen.records.push(r), ...options });
  opened.push(stream);
  stream.addEventListener("message", () => seen.messages++);
  stream.addEventListener("state", (e) => seen.states.push(e.state));
  stream.addEventListener("stop", (e) => (seen.stop = e));
  stream.addEventListener("unsent", (e) => seen.unsent.push({ data: e.data, why: e.why }));
  stream.addEventListener("error", (e) => seen.errors.push(e.error));
  return { stream, seen };
}

/** Resolves after `ms`, with the instant it fired: the control a wall-clock bound is judged against. */
const control = (ms) => new Promise((resolve) => setTimeout(() => resolve(performance.now()), ms));

test("reconnect() closes the live connection with the caller's code and reason and reconnects at once, not after a backoff", async () => {
  // A backoff of the default kind would wait at least 2.5 s (equal jitter over 5 s).
  const { stream, seen } = open(`${ws}/ws/ticker`, { minUptimeMs: 0, policy: { baseDelayMs: 5000 } });
  await until(() => seen.messages > 0, "the first ticks");
  const controlled = control(1000);
  stream.reconnect(4000, "new token");
  assert.equal(stream.state, "connecting", "connecting when reconnect() returns");
  await until(() => connections().length === 2 && stream.state === "open", "the second connection");
  const reopenedAt = performance.now();
  assert.ok(reopenedAt < (await controlled), "the second connection opened before the 1 s control fired");
  const [first] = connections();
  await until(() => connections()[0].closeCode !== null, "the first connection's close at the server");
  assert.deepEqual([connections()[0].closeCode, connections()[0].closeReason], [4000, "new token"]);
  assert.equal(first.outcome, "accepted");
});

test("reconnect() after a stop code begins the stream again, its listeners kept", async () => {
  mock.streams.script("/ws/ticker", [{ action: "accept", closeAfterMs: 100, closeCode: 1008, closeReason: "bad subscription" }]);
  const { stream, seen } = open(`${ws}/ws/ticker`, { minUptimeMs: 0 });
  await until(() => seen.stop !== null, "the stop");
  assert.equal(stream.state, "stopped");
  assert.equal(stream.reason, "non-retryable");
  const before = seen.messages;
  stream.reconnect();
  assert.equal(stream.state, "connecting");
  assert.equal(stream.reason, undefined, "no reason while it runs again");
  await until(() => stream.state === "open" && seen.messages > before + 2, "ticks on the new connection, to the same listener");
  assert.equal(connections().length, 2, "the server saw one new connection");
});

test("reconnect() while the scope is banned throws a RetryError naming the ban, and changes nothing", async () => {
  mock.streams.script("/ws/ticker", [{ action: "refuse", status: 418, retryAfter: "60" }]);
  const { stream, seen } = open(`${ws}/ws/ticker`, { minUptimeMs: 0 });
  await until(() => stream.state === "waiting", "the wait of the ban");
  let thrown;
  try {
    stream.reconnect();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof RetryError, `a RetryError, got ${thrown}`);
  assert.equal(thrown.reason, "banned");
  assert.match(thrown.message, /reconnect refused: its scope http:\/\/127\.0\.0\.1:\d+ is banned for \d+ ms more \(by the 418 to GET ws:\/\/127\.0\.0\.1:\d+\/ws\/ticker at .*Z, until .*Z\)/);
  assert.equal(stream.state, "waiting");
  await sleep(200);
  assert.equal(connections().length, 1, "no connection after the refused reconnect");
  assert.equal(seen.errors.length, 0);
});

test("reconnect() after close() throws, and nothing connects", async () => {
  const { stream } = open(`${ws}/ws/ticker`, { minUptimeMs: 0 });
  await until(() => stream.state === "open", "open");
  stream.close();
  assert.throws(() => stream.reconnect(), /reconnect after close\(\): a closed stream is over for good/);
  assert.throws(() => stream.reconnect(1001), RangeError, "a code WebSocket refuses is a RangeError");
  await sleep(200);
  assert.equal(connections().length, 1);
});

test("a URL provider gives each attempt's URL (async, a fresh token each time); one that throws or hangs fails only that attempt", async () => {
  let n = 0;
  const tokens = open(async () => `${ws}/ws/ticker?token=t${++n}`, { scope: "https://exchange.test", minUptimeMs: 0 });
  await until(() => tokens.stream.state === "open", "the first open");
  assert.equal(tokens.stream.url, `${ws}/ws/ticker?token=t1`);
  tokens.stream.reconnect();
  await until(() => connections().length === 2 && tokens.stream.state === "open", "the second open");
  assert.deepEqual(connections().map((c) => c.query.token), ["t1", "t2"]);
  tokens.stream.close();
  mock.reset();

  let calls = 0;
  const flaky = open(
    () => {
      calls++;
      if (calls === 1) throw new Error("the token service is down");
      if (calls === 2) return new Promise(() => {}); // hangs: the connect timeout ends the attempt
      return `${ws}/ws/ticker`;
    },
    { scope: "https://exchange.test", minUptimeMs: 0, policy: { baseDelayMs: 10, attemptTimeoutMs: 300 } },
    new RetryClient({ draws: [10, 10, 10] }),
  );
  await until(() => flaky.stream.state === "open", "the open after two failed attempts");
  const attempts = flaky.seen.records.filter((r) => r.decision === "sent");
  assert.deepEqual(attempts.map((r) => r.attempt), [1, 2, 3]);
  assert.match(attempts[0].error, /the url provider failed: Error: the token service is down/);
  assert.match(attempts[1].error, /no connection within 300 ms/);
  assert.equal(attempts[2].reason, "success");
  assert.equal(connections().length, 1, "the server saw only the attempt that had a URL");
});

test("a URL provider needs a scope, and a value that is no ws: URL fails its attempt, naming it", async () => {
  assert.throws(() => new RetryClient().stream(() => `${ws}/ws/ticker`, { WebSocket }), /a url given as a function needs options\.scope/);
  const { stream, seen } = open(() => "ftp://nowhere", { scope: "https://exchange.test", policy: { maxAttempts: 1 } });
  await until(() => seen.stop !== null, "the stop");
  assert.equal(stream.reason, "attempts");
  assert.match(seen.records[0].error, /the url provider's value must be a ws:, wss:, http: or https: URL, got ftp:/);
});

test("a protocols provider is asked on each attempt; the server's choice is the connection's protocol", async () => {
  let asked = 0;
  let protocol;
  const { stream } = open(`${ws}/ws/ticker`, {
    minUptimeMs: 0,
    protocols: async () => (++asked, ["v2.retryline"]),
    onOpen: (socket) => void (protocol = socket.protocol),
  });
  await until(() => stream.state === "open", "open");
  stream.reconnect();
  await until(() => connections().length === 2 && stream.state === "open", "the second open");
  assert.equal(asked, 2);
  assert.equal(protocol, "v2.retryline");
});

test("sends the pace still holds when the connection drops are told as unsent, and never reach the next connection", async () => {
  const { stream, seen } = open(`${ws}/echo`, { minUptimeMs: 0, sendPerSecond: 1, policy: { baseDelayMs: 10 } }, new RetryClient({ draws: [10] }));
  await until(() => stream.state === "open", "open");
  for (const data of ["a", "b", "c"]) stream.send(data);
  await until(() => mock.streams.messages({ path: "/echo" }).length === 1, "the first send at the server");
  mock.streams.dropAll(1012);
  await until(() => seen.unsent.length === 2, "two unsent events");
  assert.deepEqual(seen.unsent.map((u) => u.data), ["b", "c"]);
  assert.match(seen.unsent[0].why, /its connection closed before the pace let it go/);
  await until(() => connections("/echo").length === 2 && stream.state === "open", "the reconnect");
  await sleep(1200);
  assert.deepEqual(mock.streams.messages({ path: "/echo" }).map((m) => m.data), ["a"], "b and c never went");
  const dropped = seen.records.find((r) => r.dropped !== null);
  assert.match(dropped?.dropped ?? "", /closed after \d+ ms up, code 1012/, "the reconnect's record says how the connection before it ended");
});
