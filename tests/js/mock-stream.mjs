// The mock exchange's WebSocket endpoint: every upgrade on its http server is logged and answered
// as scripted (accept, refuse, hang, reset), so stream tests assert with server-side counts and
// timestamps. One shared ticker numbers every tick (seq), so a client that swapped connections
// can be checked for gaps. Wired in by tests/js/mock-exchange.mjs (mock.streams).
import { STATUS_CODES } from "node:http";
import { WebSocket, WebSocketServer } from "ws";

const TICKER_PATH = "/ws/ticker"; // ticks from the first moment
const COMBINED_PATH = "/stream"; // Binance combined-stream flavour: ticks after SUBSCRIBE
const RAW_PATH = "/ws"; // Binance raw-stream flavour, subscribed by message: the same ticks after SUBSCRIBE
const subscribable = (path) => path === COMBINED_PATH || path === RAW_PATH;
const CONTROL_PREFIX = "/__mock/streams/";
const DEFAULT_TICK_MS = 50;
const FIELDS = {
  accept: ["action", "closeAfterMs", "closeCode", "closeReason", "silentAfterMs"],
  refuse: ["action", "status", "retryAfter"],
  hang: ["action"],
  reset: ["action"],
};
const OUTCOMES = { accept: "accepted", refuse: "refused", hang: "hung", reset: "reset" };

// High-resolution Unix ms, like the HTTP log of the mock exchange.
const nowMs = () => performance.timeOrigin + performance.now();

/** The WebSocket side of one mock exchange: { api, upgrade, control, close }. */
export function createMockStreams() {
  const wss = new WebSocketServer({ noServer: true });
  const scripts = new Map(); // path -> queue of behaviours
  const open = new Map(); // connection id -> accepted connection
  const hung = new Set(); // sockets of upgrades never answered
  const timers = new Set();
  let log = [];
  let messageLog = [];
  let nextId = 1; // never reused, even across reset(): late close events must not touch a new connection
  let seq = 0;
  let tickMs = DEFAULT_TICK_MS;
  let ticker = null;
  let silenced = false;
  let refusal = null; // { until, status, retryAfter } of refuseFor()
  let closed = false;

  function later(ms, fn) {
    const timer = setTimeout(() => (timers.delete(timer), fn()), ms);
    timers.add(timer);
    return timer;
  }

  function cancel(timer) {
    clearTimeout(timer);
    timers.delete(timer);
  }

  function script(path, behaviours) {
    checkPath(path);
    if (!Array.isArray(behaviours)) throw new TypeError("behaviours must be an array");
    behaviours.forEach(checkBehaviour);
    scripts.set(path, [...(scripts.get(path) ?? []), ...behaviours]);
  }

  function refuseFor(ms, { status = 503, retryAfter } = {}) {
    checkMs(ms, "ms");
    checkStatus(status, "status");
    if (retryAfter !== undefined) checkRetryAfter(retryAfter, "retryAfter");
    refusal = { until: nowMs() + ms, status, retryAfter };
  }

  function dropAll(code = 1012) {
    checkCloseCode(code, "code");
    const conns = [...open.values()];
    for (const conn of conns) closeWith(conn, code);
    return conns.length;
  }

  function silence(on = true) {
    if (typeof on !== "boolean") throw new TypeError(`on must be a boolean, got ${JSON.stringify(on)}`);
    silenced = on;
  }

  function setTickMs(ms) {
    if (!Number.isInteger(ms) || ms < 1) throw new TypeError(`ms must be an integer >= 1, got ${JSON.stringify(ms)}`);
    tickMs = ms;
    if (ticker) stopTicker(), startTicker();
  }

  const connections = ({ path } = {}) => structuredClone(log.filter((e) => !path || e.path === path));
  const messages = ({ path } = {}) => structuredClone(messageLog.filter((m) => !path || m.path === path));
  const openCount = () => open.size;

  // Ends every connection, hung socket and timer; the scripts and logs are reset()'s to clear.
  function teardown() {
    stopTicker();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const conn of open.values()) conn.ws.terminate();
    open.clear();
    for (const socket of hung) socket.destroy();
    hung.clear();
  }

  function reset() {
    teardown();
    scripts.clear();
    log = [];
    messageLog = [];
    seq = 0;
    tickMs = DEFAULT_TICK_MS;
    silenced = false;
    refusal = null;
  }

  function close() {
    closed = true;
    teardown();
    wss.close();
  }

  function nextBehaviour(path) {
    if (refusal && nowMs() < refusal.until) return { action: "refuse", status: refusal.status, retryAfter: refusal.retryAfter };
    refusal = null;
    return scripts.get(path)?.shift() ?? { action: "accept" };
  }

  /** The http server's "upgrade" listener. */
  function upgrade(req, socket, head) {
    socket.on("error", () => {}); // a client resetting mid-handshake must not crash the mock
    if (closed) return socket.destroy();
    const q = req.url.indexOf("?");
    const path = q === -1 ? req.url : req.url.slice(0, q);
    const query = Object.fromEntries(new URLSearchParams(q === -1 ? "" : req.url.slice(q + 1)));
    const entry = { id: nextId++, path, query, at: nowMs(), outcome: null, status: null, closedAt: null, closeCode: null, closeReason: null };
    log.push(entry);
    socket.once("close", () => (entry.closedAt = nowMs()));
    const b = nextBehaviour(path);
    const action = b.action ?? "accept";
    entry.outcome = OUTCOMES[action];
    switch (action) {
      case "accept":
        return accept(req, socket, head, entry, b);
      case "refuse":
        entry.status = b.status ?? 503;
        return refuse(socket, entry.status, b.retryAfter);
      case "hang":
        return hang(socket);
      case "reset":
        return socket.resetAndDestroy(); // TCP RST, like a proxy killing the connection
    }
  }

  // Reads and drops what the client sends, so its giving up (EOF) is seen and the socket closed.
  function hang(socket) {
    hung.add(socket);
    socket.once("close", () => hung.delete(socket));
    socket.once("end", () => socket.destroy()); // the http server's sockets allow half-open
    socket.resume();
  }

  function accept(req, socket, head, entry, b) {
    // ws answers a malformed handshake itself (405 for a non-GET, else 400) and never calls back.
    entry.outcome = "refused";
    entry.status = req.method === "GET" ? 400 : 405;
    wss.handleUpgrade(req, socket, head, (ws) => {
      entry.outcome = "accepted";
      entry.status = 101;
      onOpen(ws, entry, b);
    });
  }

  function onOpen(ws, entry, b) {
    const conn = { ws, entry, path: entry.path, ticking: entry.path === TICKER_PATH, zombie: false, sentCode: null, timers: [] };
    open.set(entry.id, conn);
    ws.on("error", () => {}); // a bad frame from a client closes that connection only
    ws.on("message", (data, isBinary) => onMessage(conn, data, isBinary));
    ws.on("close", (code, reason) => {
      entry.closeCode = conn.sentCode ?? code; // the code the server chose, whatever the client echoes
      entry.closeReason = conn.sentCode === null ? String(reason ?? "") : null; // the client's, when it closed first
      if (open.get(entry.id) === conn) open.delete(entry.id);
      conn.timers.forEach(cancel);
    });
    if (b.closeAfterMs !== undefined) conn.timers.push(later(b.closeAfterMs, () => closeWith(conn, b.closeCode ?? 1001, b.closeReason)));
    if (b.silentAfterMs !== undefined) conn.timers.push(later(b.silentAfterMs, () => (conn.zombie = true)));
    if (conn.ticking) startTicker();
  }

  function closeWith(conn, code, reason = undefined) {
    conn.sentCode ??= code;
    conn.ws.close(code, reason);
  }

  function onMessage(conn, data, isBinary) {
    if (open.get(conn.entry.id) !== conn) return; // frames still parsed after reset() or close()
    const text = data.toString();
    messageLog.push({ connection: conn.entry.id, path: conn.path, at: nowMs(), data: text });
    const request = parseRequest(text);
    if (request?.method === "ping") return send(conn, { result: "pong", id: request.id });
    if (subscribable(conn.path) && request?.method === "SUBSCRIBE") {
      conn.ticking = true;
      startTicker();
      return send(conn, { result: null, id: request.id });
    }
    if (subscribable(conn.path) && request?.method === "UNSUBSCRIBE") {
      conn.ticking = false;
      return send(conn, { result: null, id: request.id });
    }
    if (conn.path !== TICKER_PATH && !subscribable(conn.path) && conn.ws.readyState === WebSocket.OPEN) {
      conn.ws.send(data, { binary: isBinary }); // any other path is an echo server
    }
  }

  function send(conn, value) {
    if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(JSON.stringify(value));
  }

  // Once started, the market runs on through outages (seq keeps counting) until reset() or close().
  function startTicker() {
    ticker ??= setInterval(tick, tickMs);
  }

  function stopTicker() {
    clearInterval(ticker);
    ticker = null;
  }

  function tick() {
    seq += 1;
    if (silenced) return;
    // T on the log's clock (whole ms, as an exchange's), so a test compares it with connection times.
    const message = JSON.stringify({ e: "trade", s: "BTCUSDT", p: price(seq), seq, T: Math.floor(nowMs()) });
    for (const conn of open.values()) {
      if (conn.ticking && !conn.zombie && conn.ws.readyState === WebSocket.OPEN) conn.ws.send(message);
    }
  }

  /** Answers a /__mock/streams/ control request ({ status, body }), or null for any other path. */
  async function control(method, path, query, readBody) {
    if (!path.startsWith(CONTROL_PREFIX)) return null;
    const route = `${method} ${path.slice(CONTROL_PREFIX.length)}`;
    const body = method === "POST" ? parseBody(await readBody()) : {};
    const ok = (extra) => ({ status: 200, body: { ok: true, ...extra } });
    switch (route) {
      case "POST script":
        return script(body.path, body.behaviours), ok();
      case "POST refuse":
        return refuseFor(body.ms, { status: body.status, retryAfter: body.retryAfter }), ok();
      case "POST drop":
        return ok({ dropped: dropAll(body.code) });
      case "POST silence":
        return silence(body.on), ok();
      case "POST tick":
        return setTickMs(body.ms), ok();
      case "POST reset":
        return reset(), ok();
      case "GET connections":
        return { status: 200, body: connections(query) };
      case "GET messages":
        return { status: 200, body: messages(query) };
      case "GET open":
        return { status: 200, body: { open: openCount() } };
      default:
        return { status: 404, body: { error: `no control route ${method} ${path}` } };
    }
  }

  const api = { script, refuseFor, dropAll, silence, setTickMs, connections, messages, openCount, reset };
  return { api, upgrade, control, close };
}

// The upgrade is answered by hand: no http.ServerResponse exists for an upgrade request.
function refuse(socket, status, retryAfter) {
  const body = JSON.stringify({ code: status, msg: STATUS_CODES[status] ?? "Refused" });
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Refused"}`,
    "Connection: close",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(retryAfter === undefined ? [] : [`Retry-After: ${retryAfter}`]),
  ];
  socket.once("finish", () => socket.destroy());
  socket.end(`${headers.join("\r\n")}\r\n\r\n${body}`);
}

// A deterministic walk, so runs are reproducible; 2 decimals like a Binance price string.
function price(n) {
  return (65_000 + 120 * Math.sin(n / 7) + (n % 13)).toFixed(2);
}

function parseRequest(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

// An empty body means "all defaults", so POST /__mock/streams/drop needs no body.
function parseBody(text) {
  if (text.trim() === "") return {};
  const value = JSON.parse(text);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError("body must be a JSON object");
  return value;
}

function checkPath(path) {
  if (typeof path !== "string" || !path.startsWith("/") || path.includes("?")) {
    throw new TypeError(`path must be "/..." without a query, got ${JSON.stringify(path)}`);
  }
}

function checkBehaviour(b, i) {
  const at = `behaviours[${i}]`;
  if (b === null || typeof b !== "object" || Array.isArray(b)) throw new TypeError(`${at} must be an object`);
  const action = b.action ?? "accept";
  const fields = Object.hasOwn(FIELDS, action) ? FIELDS[action] : null;
  if (!fields) throw new TypeError(`${at}.action must be one of ${Object.keys(FIELDS).join(", ")}, got ${JSON.stringify(b.action)}`);
  for (const key of Object.keys(b)) {
    if (!fields.includes(key)) throw new TypeError(`${at}.${key} is not a field of action "${action}"`);
  }
  if (b.closeAfterMs !== undefined) checkMs(b.closeAfterMs, `${at}.closeAfterMs`);
  if (b.silentAfterMs !== undefined) checkMs(b.silentAfterMs, `${at}.silentAfterMs`);
  if (b.closeCode !== undefined) checkCloseCode(b.closeCode, `${at}.closeCode`);
  if (b.status !== undefined) checkStatus(b.status, `${at}.status`);
  if (b.retryAfter !== undefined) checkRetryAfter(b.retryAfter, `${at}.retryAfter`);
}

function checkMs(ms, field) {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) throw new TypeError(`${field} must be a number of ms >= 0, got ${JSON.stringify(ms)}`);
}

// 101 would be an upgrade; anything 200-599 is an answer a client must treat as a refusal.
function checkStatus(status, field) {
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new TypeError(`${field} must be an integer 200-599, got ${JSON.stringify(status)}`);
}

// The value goes into a raw header line: no CR/LF may smuggle in another header.
function checkRetryAfter(value, field) {
  const ok = (typeof value === "number" && Number.isFinite(value) && value >= 0) || (typeof value === "string" && value !== "" && !/[\r\n]/.test(value));
  if (!ok) throw new TypeError(`${field} must be seconds (a number >= 0 or a one-line string), got ${JSON.stringify(value)}`);
}

// The codes a server may send in a close frame (RFC 6455 §7.4, as ws checks them).
function checkCloseCode(code, field) {
  const ok = Number.isInteger(code) && ((code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code)) || (code >= 3000 && code <= 4999));
  if (!ok) throw new TypeError(`${field} must be a WebSocket close code (1000-1014 but 1004-1006, or 3000-4999), got ${JSON.stringify(code)}`);
}
