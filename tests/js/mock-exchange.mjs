// Mock crypto exchange (Binance-flavoured) for retryline integration tests.
// Node 20 built-ins, and ws for the WebSocket endpoint (mock-stream.mjs: mock.streams).
// Listens on 127.0.0.1 only. Run directly for CLI mode:
//   node tests/js/mock-exchange.mjs [--port N]   → prints {"url":"http://127.0.0.1:PORT"}
import http from "node:http";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createMockStreams } from "./mock-stream.mjs";

const HOST = "127.0.0.1";
const ORDER_PATH = "/api/v3/order";
const CONTROL_PREFIX = "/__mock/";
const ACTIONS = new Set(["respond", "hang", "endless", "reset", "execute-then-drop", "execute-then-500", "execute-then-hang"]);

// High-resolution Unix ms, so waits measured between requests are sub-millisecond precise.
const nowMs = () => performance.timeOrigin + performance.now();

export async function startMockExchange({ port = 0 } = {}) {
  const scripts = new Map(); // "METHOD /path" or "* /path" -> queue of behaviours
  const pathWeights = new Map();
  const orders = new Map();
  const sockets = new Set();
  const shutdown = new AbortController(); // cuts pending delayMs timers short on close()
  const streams = createMockStreams();
  let log = [];
  let seq = 0;
  let weight = { minute: -1, used: 0 };

  function script(path, behaviours, { method } = {}) {
    if (typeof path !== "string" || !path.startsWith("/") || path.includes("?")) {
      throw new TypeError(`path must be "/..." without a query, got ${JSON.stringify(path)}`);
    }
    if (!Array.isArray(behaviours)) throw new TypeError("behaviours must be an array");
    for (const b of behaviours) {
      if (b === null || typeof b !== "object") throw new TypeError("each behaviour must be an object");
      const action = b.action ?? "respond";
      if (!ACTIONS.has(action)) throw new TypeError(`unknown action ${JSON.stringify(b.action)}`);
      if (action.startsWith("execute-") && path !== ORDER_PATH) throw new TypeError(`${action} only applies to ${ORDER_PATH}`);
      if (b.status !== undefined && !(Number.isInteger(b.status) && b.status >= 200 && b.status <= 599)) {
        throw new TypeError(`status must be an integer 200-599, got ${JSON.stringify(b.status)}`);
      }
    }
    const key = `${method ? method.toUpperCase() : "*"} ${path}`;
    scripts.set(key, [...(scripts.get(key) ?? []), ...behaviours]);
  }

  function nextBehaviour(method, path) {
    for (const key of [`${method} ${path}`, `* ${path}`]) {
      const queue = scripts.get(key);
      if (queue?.length) return queue.shift();
    }
    return {};
  }

  function setWeight(path, n) {
    if (typeof path !== "string" || !Number.isInteger(n) || n < 0) throw new TypeError("setWeight(path, n) needs a path and an integer n >= 0");
    pathWeights.set(path, n);
  }

  // Like Binance, X-MBX-USED-WEIGHT-1M counts per UTC minute.
  function addWeight(n) {
    const minute = Math.floor(Date.now() / 60_000);
    if (minute !== weight.minute) weight = { minute, used: 0 };
    return (weight.used += n);
  }

  function requestWeight(path, query) {
    const fromQuery = Number(query.weight);
    if (query.weight !== undefined && Number.isInteger(fromQuery) && fromQuery >= 0) return fromQuery;
    return pathWeights.get(path) ?? 1;
  }

  function requests({ path, method } = {}) {
    const m = method?.toUpperCase();
    return structuredClone(log.filter((e) => (!path || e.path === path) && (!m || e.method === m)));
  }

  function stats() {
    const s = { total: log.length, byPath: {}, perSecond: {} };
    for (const e of log) {
      s.byPath[e.path] = (s.byPath[e.path] ?? 0) + 1;
      const second = Math.floor(e.at / 1000);
      s.perSecond[second] = (s.perSecond[second] ?? 0) + 1;
    }
    return s;
  }

  function reset() {
    scripts.clear();
    pathWeights.clear();
    orders.clear(); // clear in place: callers hold a reference to mock.orders
    log = [];
    seq = 0;
    weight = { minute: -1, used: 0 };
    streams.api.reset();
  }

  // Executes once per clientOrderId; a resubmission is refused and counted on the order.
  function execute(entry) {
    let params;
    try {
      params = orderParams(entry);
    } catch (err) {
      return { status: 400, body: { code: -1102, msg: `Malformed order parameters: ${err.message}` } };
    }
    const clientOrderId = String(params.newClientOrderId ?? params.clientOrderId ?? `mock-${randomUUID()}`);
    const existing = orders.get(clientOrderId);
    if (existing) {
      existing.duplicates += 1;
      return { status: 400, body: { code: -2010, msg: "Duplicate order sent." } };
    }
    const order = { clientOrderId, status: "FILLED", executedQty: String(params.quantity ?? "1"), at: Date.now(), duplicates: 0 };
    orders.set(clientOrderId, order);
    return { status: 200, body: { ...order } };
  }

  // The route's own answer, used when a behaviour sets neither status nor body.
  function routeDefault(entry) {
    if (entry.path === ORDER_PATH && entry.method === "POST") return execute(entry);
    if (entry.path === ORDER_PATH && entry.method === "GET") {
      const order = orders.get(entry.query.origClientOrderId);
      return order ? { status: 200, body: { ...order } } : { status: 400, body: { code: -2013, msg: "Order does not exist." } };
    }
    return { status: 200, body: defaultBody(entry) };
  }

  async function handle(req, res) {
    const receivedAtMs = nowMs();
    const at = Date.now();
    const q = req.url.indexOf("?");
    const path = q === -1 ? req.url : req.url.slice(0, q);
    const query = Object.fromEntries(new URLSearchParams(q === -1 ? "" : req.url.slice(q + 1)));
    const counted = req.method !== "OPTIONS" && !path.startsWith(CONTROL_PREFIX);

    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", "Retry-After, Date, X-MBX-USED-WEIGHT-1M, Content-Type");
    res.setHeader("x-mbx-used-weight-1m", addWeight(counted ? requestWeight(path, query) : 0));
    // One request per connection: browsers silently re-send a request whose *reused* keep-alive
    // socket is reset before any response, which would hide reset/drop from the library under test.
    res.setHeader("connection", "close");

    if (req.method === "OPTIONS") return preflight(req, res);
    if (!counted) return control(req, res, path, query);

    const entry = {
      seq: ++seq, method: req.method, path, query, headers: { ...req.headers }, body: "",
      receivedAtMs, respondedAtMs: null, endedAtMs: null, closedAtMs: null, at, outcome: "pending", status: null,
    };
    // When the client let go of the connection (an abort shows here for a hung request).
    req.socket.once("close", () => (entry.closedAtMs = nowMs()));
    log.push(entry);
    try {
      entry.body = await readBody(req);
    } catch {
      return finish(entry, "aborted"); // client went away mid-body
    }

    const b = nextBehaviour(entry.method, path);
    const action = b.action ?? "respond";
    // Decided on receipt, before any delay: the exchange fills the order even if the answer is late or lost.
    let answer;
    if (action.startsWith("execute-")) execute(entry);
    else if (action === "respond") {
      answer = b.status === undefined && b.body === undefined ? routeDefault(entry) : { status: b.status ?? 200, body: b.body ?? defaultBody(entry) };
    }

    if (b.delayMs > 0) await sleep(b.delayMs, undefined, { signal: shutdown.signal });
    if (req.socket.destroyed) return finish(entry, "aborted"); // client gave up during the delay

    switch (action) {
      case "hang":
      case "execute-then-hang":
        entry.outcome = "hung"; // socket stays open until the client gives up or close()
        return;
      case "endless":
        // A 200 whose body begins and never ends.
        entry.outcome = "endless";
        entry.status = 200;
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"price": "');
        return;
      case "reset":
        req.socket.resetAndDestroy(); // TCP RST, like a proxy killing the connection
        return finish(entry, "reset");
      case "execute-then-drop":
        req.socket.destroy(); // plain close with no response, like a crashed upstream
        return finish(entry, "dropped");
      case "execute-then-500":
        answer = { status: 500, body: b.body ?? { code: -1000, msg: "An unknown error occurred while processing the request." } };
    }

    const now = Date.now();
    if (b.retryAfter !== undefined) res.setHeader("retry-after", String(b.retryAfter));
    if (b.retryAfterDateInMs !== undefined) {
      // HTTP-dates have 1 s resolution: round up so the date never undershoots the intended wait.
      res.setHeader("retry-after", new Date(Math.ceil((now + b.retryAfterDateInMs) / 1000) * 1000).toUTCString());
      res.setHeader("date", new Date(now).toUTCString());
    }
    for (const [name, value] of Object.entries(b.headers ?? {})) res.setHeader(name, String(value));
    entry.status = answer.status;
    entry.respondedAtMs = nowMs();
    finish(entry, "responded", entry.respondedAtMs);
    sendJson(res, answer.status, answer.body);
  }

  function preflight(req, res) {
    res.writeHead(204, {
      "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS, HEAD",
      "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "*",
      "access-control-allow-private-network": "true",
    });
    res.end();
  }

  async function control(req, res, path, query) {
    const route = `${req.method} ${path}`;
    try {
      const streamAnswer = await streams.control(req.method, path, query, () => readBody(req));
      if (streamAnswer) return sendJson(res, streamAnswer.status, streamAnswer.body);
      switch (route) {
        case "POST /__mock/script": {
          const { path: p, method, behaviours } = parseJsonObject(await readBody(req));
          script(p, behaviours, { method });
          return sendJson(res, 200, { ok: true });
        }
        case "POST /__mock/weight": {
          const { path: p, weight: n } = parseJsonObject(await readBody(req));
          setWeight(p, n);
          return sendJson(res, 200, { ok: true });
        }
        case "POST /__mock/reset":
          reset();
          return sendJson(res, 200, { ok: true });
        case "GET /__mock/requests":
          return sendJson(res, 200, requests(query));
        case "GET /__mock/stats":
          return sendJson(res, 200, stats());
        case "GET /__mock/orders":
          return sendJson(res, 200, [...orders.values()]);
        default:
          return sendJson(res, 404, { error: `no control route ${route}` });
      }
    } catch (err) {
      return sendJson(res, 400, { error: err.message }); // bad JSON or invalid script: tell the caller, keep serving
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      // Only reached on close() (aborted delay) or an unsendable user header; never crash the process.
      if (!res.headersSent && !req.socket.destroyed) sendJson(res, 500, { error: String(err?.message ?? err) });
    });
  });
  server.on("upgrade", streams.upgrade);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, resolve);
  });

  return {
    url: `http://${HOST}:${server.address().port}`,
    orders,
    script,
    setWeight,
    requests,
    stats,
    reset,
    streams: streams.api,
    close() {
      streams.close();
      shutdown.abort();
      const closed = new Promise((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy(); // hung requests would otherwise keep close() waiting forever
      return closed;
    },
  };
}

function finish(entry, outcome, endedAtMs = nowMs()) {
  entry.outcome = outcome;
  entry.endedAtMs = endedAtMs;
}

function defaultBody(entry) {
  return { ok: true, path: entry.path, seq: entry.seq };
}

function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req) {
  let text = "";
  req.setEncoding("utf8");
  for await (const chunk of req) text += chunk;
  return text;
}

function parseJsonObject(text) {
  const value = JSON.parse(text);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError("body must be a JSON object");
  return value;
}

// Query string, then body (JSON or form-encoded); body wins. fetch(url, {body: string}) sends
// text/plain, so a body starting with "{" is read as JSON whatever its content-type says.
function orderParams(entry) {
  const text = entry.body.trim();
  const isJson = (entry.headers["content-type"] ?? "").includes("json") || text.startsWith("{");
  const fromBody = text === "" ? {} : isJson ? parseJsonObject(text) : Object.fromEntries(new URLSearchParams(text));
  return { ...entry.query, ...fromBody };
}

async function main() {
  const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0-65535, got ${values.port}`);
  const mock = await startMockExchange({ port });
  process.stdout.write(`${JSON.stringify({ url: mock.url })}\n`);
  const stop = async () => {
    await mock.close();
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
