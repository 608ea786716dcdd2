// (c3) A reconnect storm on loopback. <clients> clients of one library are connected to one server;
// the server then drops every connection at once (destroys each TCP socket, as a crashed or
// restarted server would) and answers every handshake with HTTP 503 for <refusalMs>, then accepts
// again. The server — in this process; the clients are in a child process of their own
// (lib/reconnect-child.mjs) — counts every connection attempt with its timestamp and reports, per
// library: attempts in the busiest second after the drop, attempts until 99 % are back, and the
// time from the drop until 99 % are back (capped at <capMs>). Each library with its own defaults;
// one library at a time.
//
// Also: memory per open client (JS heap, + wasm memory for retryline) in the same child, run with
// --expose-gc; and the per-message cost over a bare ws socket (a child with one connection per
// contender; the server sends <messages> messages in all to each, in interleaved rounds).
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { versionOf } from "./lib/versions.mjs";

const childEntry = fileURLToPath(new URL("./lib/reconnect-child.mjs", import.meta.url));

/** The budget shared by every client of the "retryline, one shared budget" row. */
export const SHARED_BUDGET = { capacity: 50, refillPerSecond: 100 };
const BACK_SHARE = 0.99;

export const reconnectVariants = [
  {
    id: "ws",
    name: "bare ws (no reconnection; the memory floor)",
    server: "ws",
    storm: false,
    config: "new WebSocket(url) (ws)",
  },
  {
    id: "reconnecting-websocket",
    name: "reconnecting-websocket",
    server: "ws",
    config: "new ReconnectingWebSocket(url, [], { WebSocket }) — WebSocket: ws's; nothing else set",
  },
  {
    id: "partysocket",
    name: "partysocket",
    server: "ws",
    config: 'new (await import("partysocket/ws")).default(url, [], { WebSocket }) — WebSocket: ws\'s; nothing else set',
  },
  {
    id: "socket.io-client",
    name: "socket.io-client",
    server: "socket.io",
    config: "io(url, { forceNew: true }) — forceNew so each client has its own connection (io() otherwise shares one Manager, one connection, per URL); " +
      "default transports (HTTP long-polling first, then the upgrade to WebSocket, which engine.io-client makes with ws)",
  },
  {
    id: "retryline-private",
    name: "retryline, private budgets",
    server: "ws",
    config: "new RetryClient().stream(url, { WebSocket }) per client (each its own default Budget, nothing shared; the client kept as long as its stream) — WebSocket: ws's; default policy",
  },
  {
    id: "retryline-shared",
    name: "retryline, one shared budget",
    server: "ws",
    config: `new RetryClient({ budget }).stream(url, { WebSocket }) per client, the same budget = new Budget({ capacity: ${SHARED_BUDGET.capacity}, refillPerSecond: ${SHARED_BUDGET.refillPerSecond} }) for all (its default retry quota; each client kept as long as its stream) — WebSocket: ws's; default policy`,
  },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const REFUSAL = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/**
 * A server on 127.0.0.1 that counts connection attempts and can drop everyone and refuse
 * handshakes. kind "ws": a ws WebSocketServer (defaults, noServer), every upgrade an attempt.
 * kind "socket.io": a socket.io Server (defaults) on the http server, every engine.io handshake
 * (a request or upgrade under /socket.io/ without a `sid`) an attempt; the rest (polls, the upgrade
 * of a session to WebSocket) passes untouched. `onMessages(id, ws)`: connections to /messages/<id>
 * (ws only) are handed over instead of counted.
 */
async function startServer(kind, { onMessages } = {}) {
  const http = createServer();
  const sockets = new Set(); // every TCP connection, to drop them all at once
  http.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("close", () => sockets.delete(socket));
  });
  const state = { refusing: false, attempts: [], refused: 0, dropAt: null, live: 0, fresh: 0, waiters: [] };
  const opened = () => {
    const fresh = state.dropAt !== null;
    state.live += 1;
    if (fresh) state.fresh += 1;
    for (const w of state.waiters) if (state.fresh >= w.target && !w.done) (w.done = true, w.resolve(performance.now()));
    return () => {
      state.live -= 1;
      if (fresh) state.fresh -= 1;
    };
  };
  let io = null;
  let wss = null;

  if (kind === "ws") {
    const { WebSocketServer } = await import("ws");
    wss = new WebSocketServer({ noServer: true });
    http.on("request", (req, res) => (res.writeHead(404), res.end()));
    http.on("upgrade", (req, socket, head) => {
      const messages = onMessages && req.url.startsWith("/messages/");
      if (!messages) state.attempts.push(performance.now());
      if (state.refusing && !messages) {
        state.refused += 1;
        socket.end(REFUSAL);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on("error", () => {});
        if (messages) return onMessages(req.url.slice("/messages/".length), ws);
        ws.once("close", opened());
      });
    });
  } else {
    const { Server } = await import("socket.io");
    io = new Server(http);
    io.on("connection", (socket) => socket.once("disconnect", opened()));
    // socket.io's engine took the http server's "request" and "upgrade" events: put the gate in front.
    const handlers = { request: http.listeners("request"), upgrade: http.listeners("upgrade") };
    http.removeAllListeners("request");
    http.removeAllListeners("upgrade");
    const handshake = (req) => req.url.startsWith("/socket.io/") && !new URL(req.url, "http://x").searchParams.has("sid");
    http.on("request", (req, res) => {
      if (handshake(req)) {
        state.attempts.push(performance.now());
        if (state.refusing) {
          state.refused += 1;
          res.writeHead(503, { connection: "close", "content-length": 0 });
          res.end();
          return;
        }
      }
      for (const h of handlers.request) h.call(http, req, res);
    });
    http.on("upgrade", (req, socket, head) => {
      if (handshake(req)) {
        state.attempts.push(performance.now());
        if (state.refusing) {
          state.refused += 1;
          socket.end(REFUSAL);
          return;
        }
      }
      for (const h of handlers.upgrade) h.call(http, req, socket, head);
    });
  }
  // A backlog that holds a whole storm's SYNs (the default is 511).
  await new Promise((resolve) => http.listen({ host: "127.0.0.1", port: 0, backlog: 4096 }, resolve));
  const { port } = http.address();
  return {
    url: kind === "ws" ? `ws://127.0.0.1:${port}` : `http://127.0.0.1:${port}`,
    state,
    /** Drops every connection (TCP sockets destroyed) and starts refusing handshakes with 503. */
    drop() {
      state.refusing = true;
      state.dropAt = performance.now();
      state.fresh = 0;
      for (const socket of sockets) socket.destroy();
      return state.dropAt;
    },
    accept() {
      state.refusing = false;
    },
    /** Resolves with the time at which `target` connections made since the drop are open at once. */
    back(target) {
      return new Promise((resolve) => {
        if (state.fresh >= target) return resolve(performance.now());
        state.waiters.push({ target, resolve, done: false });
      });
    },
    async close() {
      state.refusing = true;
      for (const socket of sockets) socket.destroy();
      wss?.close();
      if (io) await io.close(); // closes the http server too
      else await new Promise((resolve) => http.close(resolve));
    },
  };
}

const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** A client child: JSON lines in, commands out; killed after `timeoutMs`, and with the benchmark. */
function startChild(args, { timeoutMs, log }) {
  const proc = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  children.add(proc);
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  let err = "";
  proc.stderr.on("data", (d) => (err = (err + d).slice(-2000)));
  proc.stdin.on("error", () => {});
  const queue = [];
  const waiting = [];
  let exited = null;
  createInterface({ input: proc.stdout }).on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      log(`    child: ${line.slice(0, 200)}`);
      return;
    }
    const i = waiting.findIndex((w) => w.types.includes(message.type));
    if (i >= 0) waiting.splice(i, 1)[0].resolve(message);
    else queue.push(message);
  });
  const done = new Promise((resolve) => proc.once("exit", (code, signal) => {
    clearTimeout(timer);
    children.delete(proc);
    exited = `exited with ${code ?? signal}${err.trim() ? `: ${err.trim().split("\n").slice(-3).join(" / ")}` : ""}`;
    for (const w of waiting.splice(0)) w.reject(new Error(exited));
    resolve();
  }));
  return {
    /** The next message of one of these types (queued ones first). */
    next(types, ms) {
      const i = queue.findIndex((m) => types.includes(m.type));
      if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0]);
      if (exited) return Promise.reject(new Error(exited));
      return new Promise((resolve, reject) => {
        const w = { types, resolve: (m) => (clearTimeout(t), resolve(m)), reject: (e) => (clearTimeout(t), reject(e)) };
        const t = setTimeout(() => {
          waiting.splice(waiting.indexOf(w), 1);
          reject(new Error(`no ${types.join("/")} from the client process in ${ms} ms`));
        }, ms);
        waiting.push(w);
      });
    },
    send: (line) => proc.stdin.write(`${line}\n`),
    async stop() {
      proc.stdin.end();
      const force = setTimeout(() => proc.kill("SIGKILL"), 3_000);
      await done;
      clearTimeout(force);
    },
  };
}

/** The most attempts in any window of `windowMs` (sliding). */
function busiest(times, windowMs) {
  let peak = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= windowMs) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}

async function stormRun(v, settings, log) {
  const { clients, refusalMs, holdMs, capMs, connectTimeoutMs } = settings;
  const server = await startServer(v.server);
  const child = startChild(
    ["--expose-gc", childEntry, "storm", v.id, String(clients), server.url, String(connectTimeoutMs), JSON.stringify(SHARED_BUDGET)],
    { timeoutMs: 2 * connectTimeoutMs + holdMs + capMs + 60_000, log },
  );
  const row = { id: v.id, name: v.name, config: v.config, clients };
  try {
    const first = await child.next(["unavailable", "open", "error"], 2 * connectTimeoutMs + 30_000);
    if (first.type === "unavailable") return { ...row, unavailable: first.reason };
    if (first.type === "error") return { ...row, error: first.message };
    row.connectMs = first.connectMs;
    row.memory = {
      heapPerClient: (first.after.heapUsed - first.before.heapUsed) / clients,
      wasmPerClient: (first.after.wasm - first.before.wasm) / clients,
      before: first.before,
      after: first.after,
    };
    if (first.opened < clients) return { ...row, error: `only ${first.opened} of ${clients} connected in ${connectTimeoutMs / 1000} s` };
    if (v.storm === false) return row;

    await sleep(holdMs);
    const liveBefore = server.state.live;
    const target = Math.ceil(BACK_SHARE * clients);
    const dropAt = server.drop();
    const accepting = setTimeout(() => server.accept(), refusalMs);
    let capTimer;
    const backAt = await Promise.race([server.back(target), new Promise((resolve) => (capTimer = setTimeout(() => resolve(null), capMs)))]);
    clearTimeout(capTimer);
    clearTimeout(accepting);
    const endAt = backAt ?? dropAt + capMs;
    // The busiest second is looked for until a second after 99 % are back (the stragglers' attempts
    // still count there); the total only until 99 % are back.
    if (backAt !== null) await sleep(Math.max(0, backAt + 1000 - performance.now()));
    const observed = server.state.attempts.filter((t) => t >= dropAt && t <= (backAt === null ? endAt : backAt + 1000));
    const attempts = observed.filter((t) => t <= endAt);
    const perSecond = [];
    for (const t of attempts) {
      const s = Math.floor((t - dropAt) / 1000);
      while (perSecond.length <= s) perSecond.push(0);
      perSecond[s] += 1;
    }
    child.send("report");
    const report = await child.next(["report"], 10_000).catch((e) => ({ error: e.message }));
    Object.assign(row, {
      liveBeforeDrop: liveBefore,
      target,
      backMs: backAt === null ? null : backAt - dropAt,
      backAtEnd: server.state.fresh,
      attemptsUntilBack: attempts.length,
      attemptsPerClient: attempts.length / clients,
      busiestSecond: busiest(observed, 1000),
      refused: server.state.refused,
      perSecond,
      clientsSaw: report,
    });
    return row;
  } catch (error) {
    return { ...row, error: error.message };
  } finally {
    await child.stop();
    await server.close();
  }
}

const PAYLOAD = JSON.stringify({ e: "trade", s: "BTCUSDT", t: 1718000000000, p: "64012.10", q: "0.00125", m: true });

/** `count` unmasked text frames of PAYLOAD in one buffer (payload < 126 bytes: a 2-byte header). */
function frames(count) {
  const body = Buffer.from(PAYLOAD);
  const frame = Buffer.concat([Buffer.from([0x81, body.length]), body]);
  const all = Buffer.allocUnsafe(frame.length * count);
  for (let i = 0; i < count; i++) frame.copy(all, i * frame.length);
  return all;
}

async function messageCost({ messages, rounds }, log) {
  const perRound = Math.round(messages / rounds);
  const sockets = new Map();
  const server = await startServer("ws", { onMessages: (id, ws) => sockets.set(id, ws) });
  const child = startChild([childEntry, "messages", `${server.url}/messages`, String(perRound)], { timeoutMs: 180_000, log });
  const burst = frames(perRound);
  const names = { ws: "bare ws", "reconnecting-websocket": "reconnecting-websocket", partysocket: "partysocket", "retryline-private": "retryline stream" };
  const configs = {
    ws: 'socket.addEventListener("message", listener) on new WebSocket(url) (ws)',
    "reconnecting-websocket": "the same listener on new ReconnectingWebSocket(url, [], { WebSocket })",
    partysocket: 'the same listener on new (await import("partysocket/ws")).default(url, [], { WebSocket })',
    "retryline-private": 'the same listener on new RetryClient().stream(url, { WebSocket }) (its "message" event)',
  };
  try {
    const ready = await child.next(["ready", "error"], 30_000);
    if (ready.type === "error") throw new Error(ready.message);
    const ids = Object.keys(names).filter((id) => !ready.unavailable[id]);
    const samples = Object.fromEntries(ids.map((id) => [id, []]));
    // Round −1 warms every contender up (compiled code, buffers) and is not counted.
    for (let r = -1; r < rounds; r++) {
      // Interleaved, each round in a rotated order, so a slow phase of the machine is shared.
      const order = ids.map((_, i) => ids[(i + r + ids.length) % ids.length]);
      for (const id of order) {
        const ws = sockets.get(id);
        // One write of pre-built frames (ws's socket; its own sender is idle), so the server does not pace
        // the client: each round measures the client's own work. ws.send per message if that is missing.
        if (ws._socket?.write) ws._socket.write(burst);
        else for (let i = 0; i < perRound; i++) ws.send(PAYLOAD);
        const round = await child.next(["round"], 60_000);
        if (round.id !== id) throw new Error(`round for ${round.id}, expected ${id}`);
        if (round.lastLength !== PAYLOAD.length) throw new Error(`${id}: the last message read had length ${round.lastLength}, not ${PAYLOAD.length}`);
        if (r >= 0) samples[id].push(round);
      }
    }
    const rows = Object.keys(names).map((id) => {
      if (ready.unavailable[id]) return { id, name: names[id], config: configs[id], unavailable: ready.unavailable[id] };
      const list = samples[id];
      const n = list.reduce((s, x) => s + x.messages - 1, 0); // first message to last: messages − 1 intervals per round
      const wallMs = list.reduce((s, x) => s + x.wallMs, 0);
      const cpuUs = list.reduce((s, x) => s + x.cpuUs, 0);
      const perMsg = list.map((x) => (x.wallMs * 1000) / (x.messages - 1));
      return { id, name: names[id], config: configs[id], messages: perRound * rounds, usPerMessage: (wallMs * 1000) / n, cpuUsPerMessage: cpuUs / n, roundsUs: [Math.min(...perMsg), Math.max(...perMsg)] };
    });
    const floor = rows.find((r) => r.id === "ws");
    for (const r of rows) {
      if (r.usPerMessage === undefined || !floor) continue;
      r.usOverWs = r.usPerMessage - floor.usPerMessage;
      r.cpuUsOverWs = r.cpuUsPerMessage - floor.cpuUsPerMessage;
    }
    return { perRound, rounds, payloadBytes: PAYLOAD.length, rows };
  } catch (error) {
    return { perRound, rounds, payloadBytes: PAYLOAD.length, error: error.message, rows: [] };
  } finally {
    await child.stop();
    await server.close();
  }
}

export async function measureReconnectStorm({ clients = 1000, refusalMs = 5000, holdMs = 6000, capMs = 120_000, connectTimeoutMs = 60_000, messages = 100_000, rounds = 5, log = () => {} } = {}) {
  const settings = { clients, refusalMs, holdMs, capMs, connectTimeoutMs, messages, rounds, backShare: BACK_SHARE, sharedBudget: SHARED_BUDGET };
  const rows = [];
  for (const v of reconnectVariants) {
    log(`  ${v.name}: ${clients} clients${v.storm === false ? " (memory only)" : ""}`);
    const started = performance.now();
    const row = await stormRun(v, settings, log);
    row.seconds = (performance.now() - started) / 1000;
    rows.push(row);
    if (row.unavailable) log(`  ${v.name}: ${row.unavailable}`);
    else if (row.error) log(`  ${v.name}: ${row.error}`);
    else if (v.storm !== false) {
      log(`  ${v.name}: busiest second ${row.busiestSecond}, ${row.attemptsUntilBack} attempts, ` +
        `${row.backMs === null ? `not back in ${capMs / 1000} s` : `99 % back after ${(row.backMs / 1000).toFixed(1)} s`}`);
    }
  }
  const floor = rows.find((r) => r.id === "ws" && r.memory);
  for (const r of rows) if (r.memory && floor) r.memory.overWs = r.memory.heapPerClient + r.memory.wasmPerClient - floor.memory.heapPerClient;
  log(`  per-message cost: ${messages} messages per contender in ${rounds} rounds`);
  const perMessage = await messageCost({ messages, rounds }, log);
  const versions = Object.fromEntries(["ws", "reconnecting-websocket", "partysocket", "socket.io", "socket.io-client"].map((p) => [p, versionOf(p)]));
  return { settings, rows, perMessage, versions };
}
