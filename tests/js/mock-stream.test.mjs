// Self-test for the mock exchange's WebSocket endpoint (tests/js/mock-stream.mjs): ws clients
// against the real server on 127.0.0.1, each behaviour checked with the server-side logs.
// Run: node --test tests/js/mock-stream.test.mjs
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { startMockExchange } from "./mock-exchange.mjs";

const TICK_MS = 20;
const root = fileURLToPath(new URL("../../", import.meta.url));

let mock;
before(async () => {
  mock = await startMockExchange({ port: 0 });
});
after(() => mock.close());
beforeEach(() => {
  mock.reset();
  mock.streams.setTickMs(TICK_MS);
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, what, ms = 2000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** One connection attempt: { kind: "open", ws } | { kind: "refused", status, headers } | { kind: "error", error }. */
function connect(path, options = {}) {
  const ws = new WebSocket(mock.url.replace(/^http/, "ws") + path, options);
  ws.received = [];
  ws.on("message", (data) => ws.received.push(JSON.parse(String(data))));
  ws.closed = new Promise((resolve) => ws.once("close", resolve)); // resolves with the close code
  return new Promise((resolve) => {
    ws.once("open", () => resolve({ kind: "open", ws }));
    ws.once("unexpected-response", (req, res) => {
      resolve({ kind: "refused", status: res.statusCode, headers: res.headers });
      res.resume();
      ws.terminate(); // ws leaves an unexpected response to its listener to abort
    });
    ws.on("error", (error) => resolve({ kind: "error", error }));
  });
}

const ticks = (ws) => ws.received.filter((m) => m.e === "trade");
const lastEntry = () => mock.streams.connections().at(-1);

test("an accepted connection is logged with its query; other paths echo, ping gets pong", async () => {
  const { kind, ws } = await connect("/ws/echo?symbol=BTCUSDT");
  assert.equal(kind, "open");
  assert.equal(mock.streams.openCount(), 1);
  ws.send(JSON.stringify({ hello: 1 }));
  ws.send(JSON.stringify({ method: "ping", id: 7 }));
  await until(() => ws.received.length === 2, "the echo and the pong");
  assert.deepEqual(ws.received, [{ hello: 1 }, { result: "pong", id: 7 }]);

  ws.close(1000);
  assert.equal(await ws.closed, 1000);
  await until(() => mock.streams.connections()[0].closeCode !== null, "the server-side close");
  const [entry] = mock.streams.connections({ path: "/ws/echo" });
  assert.deepEqual({ ...entry, at: 0, closedAt: 0 }, {
    id: entry.id, path: "/ws/echo", query: { symbol: "BTCUSDT" }, at: 0, outcome: "accepted", status: 101, closedAt: 0, closeCode: 1000, closeReason: "",
  });
  assert.ok(entry.at > 1e12 && !Number.isInteger(entry.at), "Unix ms, high resolution");
  assert.ok(entry.closedAt > entry.at);
  const sent = mock.streams.messages({ path: "/ws/echo" });
  assert.deepEqual(sent.map((m) => [m.connection, m.data]), [[entry.id, '{"hello":1}'], [entry.id, '{"method":"ping","id":7}']]);
  assert.ok(sent[0].at >= entry.at && sent[1].at >= sent[0].at);
  assert.deepEqual(mock.streams.messages({ path: "/other" }), []);
  assert.equal(mock.streams.openCount(), 0);
  assert.equal(mock.stats().total, 0, "upgrades are not in the HTTP log");
});

test("scripted refusals are consumed in order per path, with status and Retry-After, then accept", async () => {
  mock.streams.script("/ws/ticker", [
    { action: "refuse", status: 503, retryAfter: 2 },
    { action: "refuse", status: 429, retryAfter: "1" },
    { action: "refuse", status: 418 },
  ]);
  const other = await connect("/ws/other");
  assert.equal(other.kind, "open", "another path's upgrades take nothing from this queue");
  other.ws.close();

  const seen = [];
  for (let i = 0; i < 3; i++) {
    const r = await connect("/ws/ticker");
    seen.push([r.kind, r.status, r.headers["retry-after"]]);
  }
  assert.deepEqual(seen, [["refused", 503, "2"], ["refused", 429, "1"], ["refused", 418, undefined]]);
  const opened = await connect("/ws/ticker");
  assert.equal(opened.kind, "open", "the queue is empty: the default accept");
  opened.ws.close();

  const log = mock.streams.connections({ path: "/ws/ticker" });
  assert.deepEqual(log.map((e) => [e.outcome, e.status]), [["refused", 503], ["refused", 429], ["refused", 418], ["accepted", 101]]);
  assert.deepEqual(log.map((e) => e.id), [...log.map((e) => e.id)].sort((a, b) => a - b));
  await until(() => mock.streams.connections().every((e) => e.closedAt !== null), "every socket to close");
  assert.equal(log[0].closeCode, null);
});

test("behaviours are validated: a TypeError names the bad field", () => {
  const bad = [
    [[{ action: "explode" }], /behaviours\[0\]\.action/],
    [[{}, { action: "refuse", status: 101 }], /behaviours\[1\]\.status/],
    [[{ action: "refuse", status: 503, retryAfter: "1\r\nX-Evil: 1" }], /behaviours\[0\]\.retryAfter/],
    [[{ action: "accept", closeAfterMs: -1 }], /behaviours\[0\]\.closeAfterMs/],
    [[{ action: "accept", closeCode: 1006 }], /behaviours\[0\]\.closeCode/],
    [[{ action: "accept", silentAfterMs: "soon" }], /behaviours\[0\]\.silentAfterMs/],
    [[{ action: "hang", status: 503 }], /behaviours\[0\]\.status is not a field of action "hang"/],
    [[{ action: "accept", closeAfter: 5 }], /behaviours\[0\]\.closeAfter is not a field/],
    [[null], /behaviours\[0\] must be an object/],
  ];
  for (const [behaviours, message] of bad) assert.throws(() => mock.streams.script("/ws/ticker", behaviours), { name: "TypeError", message });
  assert.throws(() => mock.streams.script("ws", []), { name: "TypeError", message: /path/ });
  assert.throws(() => mock.streams.script("/ws", {}), { name: "TypeError", message: /behaviours/ });
  assert.throws(() => mock.streams.refuseFor(-5), { name: "TypeError", message: /ms/ });
  assert.throws(() => mock.streams.refuseFor(100, { status: 99 }), { name: "TypeError", message: /status/ });
  assert.throws(() => mock.streams.dropAll(1005), { name: "TypeError", message: /code/ });
  assert.throws(() => mock.streams.silence("yes"), { name: "TypeError", message: /on/ });
  assert.throws(() => mock.streams.setTickMs(0), { name: "TypeError", message: /ms/ });
});

test("hang never answers the upgrade; reset destroys the socket at once", async () => {
  mock.streams.script("/ws/ticker", [{ action: "hang" }, { action: "reset" }]);
  const attempt = connect("/ws/ticker", { handshakeTimeout: 300 });
  await until(() => mock.streams.connections().length === 1, "the upgrade to arrive");
  await sleep(50);
  assert.deepEqual([lastEntry().outcome, lastEntry().closedAt], ["hung", null], "still unanswered, still open");
  const hung = await attempt;
  const gaveUp = performance.timeOrigin + performance.now();
  assert.equal(hung.kind, "error");
  assert.match(hung.error.message, /handshake has timed out/);
  await until(() => mock.streams.connections()[0].closedAt !== null, "the hung socket to close");
  const [h] = mock.streams.connections();
  assert.deepEqual([h.outcome, h.status, h.closeCode], ["hung", null, null]);
  assert.ok(h.closedAt >= gaveUp, "closed when the client gave up");

  const reset = await connect("/ws/ticker");
  assert.equal(reset.kind, "error");
  assert.match(reset.error.code ?? reset.error.message, /ECONNRESET|socket hang up/);
  const r = lastEntry();
  assert.deepEqual([r.outcome, r.status], ["reset", null]);
  assert.equal(mock.streams.openCount(), 0);
});

test("one shared ticker: every connection gets the same seq, and a swap of connections loses none", async () => {
  const a = (await connect("/ws/ticker")).ws;
  await until(() => ticks(a).length >= 2, "ticks on the first connection");
  const b = (await connect("/ws/ticker")).ws;
  await until(() => ticks(b).length >= 3, "ticks on the second connection");
  a.close(1000); // make-before-break: b was open before a closed
  await a.closed;
  await until(() => ticks(b).length >= 6, "more ticks on the second connection");
  b.close(1000);

  const tick = ticks(a)[0];
  assert.deepEqual(Object.keys(tick), ["e", "s", "p", "seq", "T"]);
  assert.deepEqual([tick.e, tick.s, typeof tick.seq, Number.isInteger(tick.T)], ["trade", "BTCUSDT", "number", true]);
  assert.match(tick.p, /^\d+\.\d{2}$/);
  const bySeq = new Map(ticks(b).map((t) => [t.seq, t]));
  const shared = ticks(a).filter((t) => bySeq.has(t.seq));
  assert.ok(shared.length >= 2, "both saw the ticks while both were open");
  for (const t of shared) assert.deepEqual(t, bySeq.get(t.seq), "the same tick, not just the same number");
  const seen = [...new Set([...ticks(a), ...ticks(b)].map((t) => t.seq))].sort((x, y) => x - y);
  assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => seen[0] + i), "no gap in seq");
  assert.equal(seen[0], 1, "seq starts at 1 after reset()");
});

test("setTickMs changes the ticker's period", async () => {
  mock.streams.setTickMs(100);
  const { ws } = await connect("/ws/ticker");
  await until(() => ticks(ws).length >= 3, "three ticks", 3000);
  ws.close();
  const [t1, , t3] = ticks(ws);
  assert.ok(t3.T - t1.T >= 180, `two periods of 100 ms, got ${t3.T - t1.T}`);
});

test("/stream sends ticks only after SUBSCRIBE, acknowledged with its id", async () => {
  const { ws } = await connect("/stream");
  await sleep(TICK_MS * 4);
  assert.deepEqual(ws.received, [], "nothing before SUBSCRIBE");
  ws.send(JSON.stringify({ method: "SUBSCRIBE", params: ["btcusdt@trade"], id: 1 }));
  await until(() => ticks(ws).length >= 2, "ticks after SUBSCRIBE");
  assert.deepEqual(ws.received[0], { result: null, id: 1 });
  ws.send(JSON.stringify({ method: "ping", id: 2 }));
  await until(() => ws.received.some((m) => m.result === "pong"), "the pong");
  assert.deepEqual(ws.received.find((m) => m.id === 2), { result: "pong", id: 2 });
  ws.close();
  assert.equal(mock.streams.messages({ path: "/stream" })[0].data, '{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":1}');
});

test("closeAfterMs closes with closeCode (default 1001); silentAfterMs leaves an open zombie", async () => {
  mock.streams.script("/ws/ticker", [{ action: "accept", closeAfterMs: 100, closeCode: 4000 }, { closeAfterMs: 50 }, { silentAfterMs: 150 }]);
  const first = (await connect("/ws/ticker")).ws;
  const second = (await connect("/ws/ticker")).ws;
  const zombie = (await connect("/ws/ticker")).ws;
  assert.deepEqual(await Promise.all([first.closed, second.closed]), [4000, 1001]);
  await until(() => mock.streams.connections().slice(0, 2).every((e) => e.closeCode !== null), "the server-side closes");
  const [c1, c2] = mock.streams.connections();
  assert.deepEqual([c1.closeCode, c2.closeCode], [4000, 1001]);
  assert.ok(c1.closedAt - c1.at >= 100);

  const silentAt = mock.streams.connections()[2].at + 150;
  await until(() => performance.timeOrigin + performance.now() > silentAt + TICK_MS * 2, "silentAfterMs and a tick in flight");
  const before = ticks(zombie).length;
  assert.ok(before >= 1, "the zombie ticked before it went silent");
  await sleep(TICK_MS * 5);
  assert.equal(ticks(zombie).length, before, "no tick once silent");
  assert.equal(zombie.readyState, WebSocket.OPEN);
  assert.equal(mock.streams.openCount(), 1);
  zombie.send(JSON.stringify({ method: "ping", id: 9 }));
  await until(() => zombie.received.some((m) => m.id === 9), "the zombie still answers pings");
  zombie.close();
});

test("dropAll closes every open connection with its code (default 1012), like a server restart", async () => {
  const a = (await connect("/ws/ticker")).ws;
  const b = (await connect("/ws/echo")).ws;
  assert.equal(mock.streams.dropAll(), 2);
  assert.deepEqual(await Promise.all([a.closed, b.closed]), [1012, 1012]);
  const c = (await connect("/stream")).ws;
  assert.equal(mock.streams.dropAll(4001), 1);
  assert.equal(await c.closed, 4001);
  await until(() => mock.streams.connections().every((e) => e.closeCode !== null), "the server-side closes");
  assert.deepEqual(mock.streams.connections().map((e) => e.closeCode), [1012, 1012, 4001]);
  assert.equal(mock.streams.openCount(), 0);
});

test("refuseFor refuses every upgrade on any path until the window ends, without consuming scripts", async () => {
  mock.streams.script("/ws/ticker", [{ action: "refuse", status: 418 }]);
  mock.streams.refuseFor(300, { retryAfter: 1 });
  const inside = [await connect("/ws/ticker"), await connect("/stream")];
  assert.deepEqual(inside.map((r) => [r.kind, r.status, r.headers["retry-after"]]), [["refused", 503, "1"], ["refused", 503, "1"]]);
  mock.streams.refuseFor(150, { status: 429 }); // a later call replaces the window
  const windowEnd = performance.timeOrigin + performance.now() + 150;
  assert.equal((await connect("/ws/echo")).status, 429);
  await until(() => performance.timeOrigin + performance.now() > windowEnd + 5, "the window's end");
  assert.equal((await connect("/ws/ticker")).status, 418, "the script was kept for after the window");
  const opened = await connect("/ws/ticker");
  assert.equal(opened.kind, "open");
  opened.ws.close();
  assert.deepEqual(mock.streams.connections().map((e) => e.status), [503, 503, 429, 418, 101]);
});

test("silence stops ticks to every connection while the ticker counts on", async () => {
  const { ws } = await connect("/ws/ticker");
  await until(() => ticks(ws).length >= 2, "ticks");
  mock.streams.silence();
  await sleep(TICK_MS * 2); // a tick in flight may still land
  const silentFrom = ticks(ws).length;
  await sleep(TICK_MS * 5);
  assert.equal(ticks(ws).length, silentFrom, "no tick while silenced");
  mock.streams.silence(false);
  await until(() => ticks(ws).length > silentFrom, "ticks again");
  ws.close();
  const seqs = ticks(ws).map((t) => t.seq);
  assert.ok(seqs[silentFrom] - seqs[silentFrom - 1] > 3, "the market moved on: a gap a client must resync");
});

test("HTTP control endpoints mirror the in-process API, with CORS like the other control routes", async () => {
  const control = (path, body) => fetch(`${mock.url}/__mock/streams/${path}`, body === undefined ? undefined : { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

  const bad = await control("script", "{not json");
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get("access-control-allow-origin"), "*");
  const invalid = await control("script", { path: "/ws/ticker", behaviours: [{ action: "refuse", status: 42 }] });
  assert.deepEqual([invalid.status, (await invalid.json()).error], [400, "behaviours[0].status must be an integer 200-599, got 42"]);
  assert.equal((await control("nope")).status, 404);
  const preflight = await fetch(`${mock.url}/__mock/streams/script`, {
    method: "OPTIONS", headers: { origin: "http://127.0.0.1:9", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
  });
  assert.deepEqual([preflight.status, preflight.headers.get("access-control-allow-origin")], [204, "*"]);

  assert.equal((await control("tick", { ms: 15 })).status, 200);
  assert.equal((await control("script", { path: "/ws/ticker", behaviours: [{ action: "refuse", status: 429, retryAfter: "3" }] })).status, 200);
  const refused = await connect("/ws/ticker");
  assert.deepEqual([refused.status, refused.headers["retry-after"]], [429, "3"]);
  const { ws } = await connect("/ws/ticker?via=http");
  ws.send("hello");
  await until(() => ticks(ws).length >= 2, "ticks");
  assert.deepEqual(await (await control("open")).json(), { open: 1 });
  assert.equal((await control("silence", {})).status, 200, "an empty body means on = true");
  await sleep(30);
  const silentFrom = ticks(ws).length;
  await sleep(60);
  assert.equal(ticks(ws).length, silentFrom);
  assert.equal((await control("silence", { on: false })).status, 200);

  const logged = await (await control("connections?path=/ws/ticker")).json();
  assert.deepEqual(logged.map((e) => [e.outcome, e.status]), [["refused", 429], ["accepted", 101]]);
  assert.deepEqual(logged[1].query, { via: "http" });
  assert.equal((await (await control("connections?path=/stream")).json()).length, 0);
  assert.deepEqual((await (await control("messages?path=/ws/ticker")).json()).map((m) => [m.connection, m.data]), [[logged[1].id, "hello"]]);

  assert.deepEqual(await (await control("drop", "")).json(), { ok: true, dropped: 1 });
  assert.equal(await ws.closed, 1012);
  assert.equal((await control("refuse", { ms: 200, status: 503, retryAfter: 2 })).status, 200);
  const inWindow = await connect("/stream");
  assert.deepEqual([inWindow.status, inWindow.headers["retry-after"]], [503, "2"]);
  assert.equal((await control("reset", "")).status, 200);
  assert.deepEqual(await (await control("connections")).json(), []);
  assert.equal((await connect("/stream")).kind, "open", "reset ended the refuse window");
  assert.equal(mock.stats().total, 0, "control requests are not in the HTTP log");
});

test("mock.reset() also resets the streams: logs, scripts and open connections", async () => {
  mock.streams.script("/ws/ticker", [{ action: "refuse", status: 503 }, { action: "refuse", status: 503 }]);
  await connect("/ws/ticker");
  const { ws } = await connect("/ws/echo");
  mock.reset();
  assert.equal(await ws.closed, 1006, "reset terminates open connections");
  assert.deepEqual([mock.streams.connections(), mock.streams.messages(), mock.streams.openCount()], [[], [], 0]);
  const opened = await connect("/ws/ticker");
  assert.equal(opened.kind, "open", "the rest of the script is gone");
  opened.ws.close();
});

test("close() ends every socket and timer: the process exits by itself", { timeout: 10_000 }, async () => {
  const child = `
    import { startMockExchange } from ${JSON.stringify(new URL("./mock-exchange.mjs", import.meta.url).href)};
    import { WebSocket } from "ws";
    const mock = await startMockExchange();
    mock.streams.script("/ws/ticker", [{ closeAfterMs: 60000, silentAfterMs: 60000 }, { action: "hang" }]);
    const open = (path) => new Promise((resolve) => {
      const ws = new WebSocket(mock.url.replace("http", "ws") + path);
      ws.on("error", () => {});
      ws.on("open", () => resolve(ws));
      ws.on("close", () => resolve(ws));
    });
    const ticker = await open("/ws/ticker");
    (await open("/stream")).send(JSON.stringify({ method: "SUBSCRIBE", params: [], id: 1 }));
    open("/ws/ticker"); // hangs
    while (mock.streams.connections().length < 3) await new Promise((r) => setTimeout(r, 5));
    await new Promise((resolve) => ticker.once("message", resolve));
    mock.streams.refuseFor(60000);
    await mock.close();
    console.log("closed");`;
  const proc = spawn(process.execPath, ["--input-type=module", "-e", child], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  const kill = setTimeout(() => proc.kill("SIGKILL"), 8000);
  const [code, signal] = await once(proc, "exit");
  clearTimeout(kill);
  assert.deepEqual([code, signal, out.trim()], [0, null, "closed"], "exited on its own, nothing left pending");
});
