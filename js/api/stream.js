// `client.stream(url, options)`: a WebSocket that reconnects under a policy and the client's
// budget. The stream object is made here, synchronously (options checked, the core's machine
// begun); executor/stream.js, loaded with the first stream, opens the sockets and runs the timers.

import { callback, field, optionKeys, signal, wrongType } from "./invalid.js";
import { familyOf, withFamily } from "./families.js";
import { readProtocols, readUrl } from "../platform/ws-url.js";
import { streamSpans } from "../platform/spans.js";

/** What a family gives a stream's connection attempts: its scope, weight and policy. */
const STREAM_FAMILY_FIELDS = ["scope", "weight", "policy"];

const CONTEXT = "stream options";

/** `heartbeat: { everyMs, message }`: what to send when nothing was heard for everyMs. */
function readHeartbeat(value) {
  if (value === undefined || value === null) return undefined;
  const read = { everyMs: undefined, message: undefined };
  for (const key of optionKeys(CONTEXT, value)) {
    const item = field(CONTEXT, value, key, `heartbeat.${key}`);
    if (key === "everyMs") {
      if (typeof item !== "number" || !(item >= 1) || !Number.isFinite(item)) throw new RangeError(`${CONTEXT}: heartbeat.everyMs must be a number of ms ≥ 1, got ${String(item)}`);
      read.everyMs = item;
    } else if (key === "message") {
      if (typeof item !== "string" && typeof item !== "function") throw wrongType(CONTEXT, "heartbeat.message", "a string or a function", item);
      read.message = item;
    } else throw new TypeError(`${CONTEXT}: heartbeat.${key} is not an option`);
  }
  if (read.everyMs === undefined || read.message === undefined) throw new TypeError(`${CONTEXT}: heartbeat needs everyMs and message`);
  return read;
}

/** `protocols`: a string, an array of strings, or a function giving one per attempt. */
function readProtocolsOption(value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "function") return value;
  return readProtocols(value);
}

/** The WebSocket constructor: the option, or the platform's. */
function readWebSocket(value) {
  if (value !== undefined && value !== null) {
    if (typeof value !== "function") throw wrongType(CONTEXT, "WebSocket", "a WebSocket constructor", value);
    return value;
  }
  let global;
  try {
    global = globalThis.WebSocket;
  } catch {}
  if (typeof global !== "function") throw new TypeError(`${CONTEXT}: WebSocket must be given where the platform has none (Node before 22: WebSocket from the "ws" package)`);
  return global;
}

/** The options the glue reads itself, and `core`: what the core checks (policy, scope, weight, watches). */
export function readStreamOptions(options) {
  const read = { core: {}, WebSocket: undefined, protocols: undefined, onOpen: undefined, resync: undefined, heartbeat: undefined, onAttempt: undefined, signal: undefined, pageSignals: true };
  for (const key of optionKeys(CONTEXT, options)) {
    const value = field(CONTEXT, options, key);
    switch (key) {
      case "WebSocket":
        read.WebSocket = value;
        break;
      case "protocols":
        read.protocols = readProtocolsOption(value);
        break;
      case "pageSignals":
        if (value === undefined || value === null) break;
        if (typeof value !== "boolean") throw wrongType(CONTEXT, "pageSignals", "a boolean", value);
        read.pageSignals = value;
        break;
      case "onOpen":
      case "resync":
      case "onAttempt":
        read[key] = callback(CONTEXT, key, value);
        break;
      case "heartbeat":
        read.heartbeat = readHeartbeat(value);
        break;
      case "signal":
        if (value !== undefined && value !== null) read.signal = signal(CONTEXT, key, value);
        break;
      default:
        read.core[key] = value;
    }
  }
  read.WebSocket = readWebSocket(read.WebSocket);
  return read;
}

/** `close(code, reason)`'s (or `reconnect`'s) arguments, checked as WebSocket's close checks them:
 * `{ code: 0 }` for none. */
function closing(code, reason, method = "close") {
  if (code === undefined && reason === undefined) return { code: 0, reason: undefined };
  if (code === undefined) code = 1000;
  if (!Number.isInteger(code) || (code !== 1000 && (code < 3000 || code > 4999))) {
    throw new RangeError(`stream.${method}: code must be 1000 or an integer from 3000 to 4999, got ${typeof code === "number" ? code : typeof code}`);
  }
  if (reason !== undefined && typeof reason !== "string") throw new TypeError(`stream.${method}: reason must be a string, got ${typeof reason}`);
  if (reason !== undefined && new TextEncoder().encode(reason).length > 123) throw new RangeError(`stream.${method}: reason must be at most 123 bytes (UTF-8)`);
  return { code, reason: reason ?? "" };
}

/** Runs stream `s` on `executor` (executor/stream.js): once. */
function begin(s, executor) {
  s.executor = executor;
  executor.run(s);
}

/** Defines `client.stream` over the entry's `core`; `load()` gives executor/stream.js (a chunk of its
 * own in pages, loaded with the first stream). */
export function defineStream(core, load) {
  class RetryStream extends EventTarget {
    #s;

    constructor(s) {
      super();
      this.#s = s;
    }

    /** "connecting" | "open" | "stale" | "waiting" | "stopped". */
    get state() {
      return this.#s.state;
    }
    /** The URL it connects to (with a URL provider: the last one it gave, "" before the first;
     * credentials in its query are the caller's to keep out of logs). */
    get url() {
      return this.#s.url ?? "";
    }
    /** When the last message came (Unix ms), or null before the first. */
    get lastMessageAt() {
      return this.#s.lastMessageWall;
    }
    /** How long it has been stale (ms; 0 while fresh). */
    get staleForMs() {
      const since = this.#s.staleSinceWall;
      return since === null ? 0 : Math.max(0, Date.now() - since);
    }
    /** Why it stopped (a RetryReason), once it has. */
    get reason() {
      return this.#s.reason;
    }

    /** Sends on the open connection, paced to `sendPerSecond`. Throws while it is not open. */
    send(data) {
      const s = this.#s;
      if (s.executor === undefined || (s.state !== "open" && s.state !== "stale")) {
        throw new Error(`retryline: stream.send while the stream is ${s.state}: send on an open stream, or subscribe in onOpen, which runs on every connection`);
      }
      s.executor.send(s, 0, data);
    }

    /** Drops the connection (closed with `code` and `reason`, default 1000 "reconnect") and begins a
     * fresh outage at once under the same policy and budget — also after a stop by the policy (a stop
     * code, its attempts or deadline). Throws after close(), and while the stream's scope is banned
     * (a RetryError "banned" naming the ban); then nothing changes. */
    reconnect(code, reason) {
      const s = this.#s;
      const words = closing(code, reason, "reconnect");
      if (s.closed) throw new Error(`retryline: stream.reconnect after close(): a closed stream is over for good; make a new stream`);
      // Not running yet: its first connection is about to be made anyway.
      if (s.executor === undefined) return;
      const refused = s.executor.reconnect(s, words.code, words.reason);
      if (refused !== undefined) throw refused;
    }

    /** Reports a gap (a sequence number skipped): the stream is stale until \`resync\` resolves. */
    gap() {
      const s = this.#s;
      s.executor?.gap(s);
    }

    /** Closes the stream for good: its socket closed (with `code` and `reason`, as WebSocket's
     * close takes them: 1000 or 3000–4999, at most 123 bytes; default 1000 "closed"), its timers
     * cleared, a "stop" with "aborted"; `state` is "stopped" when it returns. */
    close(code, reason) {
      const s = this.#s;
      const words = closing(code, reason);
      s.closed = true;
      if (s.executor !== undefined) return void s.executor.close(s, words.code, words.reason);
      [s.closeRequested, s.closeCode, s.closeReason] = [true, words.code, words.reason];
      // Before its first run: the executor (the entry's own module) runs it now, and it stops at once.
      const executor = load();
      if (typeof executor?.run === "function") begin(s, executor);
    }
  }

  /** `client.stream(url, options)` for a client's internals `c`. */
  function stream(client, c, url, options) {
    // A function gives the URL of each attempt (a fresh token, a fallback host).
    const provider = typeof url === "function" ? url : undefined;
    const href = provider === undefined ? readUrl(url) : undefined;
    const read = readStreamOptions(options);
    if (provider !== undefined && read.core.scope === undefined) {
      throw new TypeError(`stream: a url given as a function needs options.scope (where its holds, bans and tokens apply, e.g. "https://stream.example.com")`);
    }
    const request = { method: "GET", url: href };
    const family = c.families?.length && href !== undefined ? familyOf(c.families, request) : undefined;
    if (family !== undefined) {
      const given = withFamily(family, request, read.core);
      for (const key of STREAM_FAMILY_FIELDS) if (given[key] !== undefined) read.core[key] = given[key];
    }
    if (c.handle === 0 || c.budget.handle === 0) throw new TypeError("stream: the client or its budget was freed");
    const tracer = c.telemetry.tracer?.guard.dropped ? undefined : c.telemetry.tracer;
    const handle = core.streams.begin({
      client: c.handle,
      budget: c.budget.handle,
      now: 0,
      wall: 0,
      onOpen: read.onOpen !== undefined,
      resync: read.resync !== undefined,
      observed: c.onAttempt !== undefined || read.onAttempt !== undefined || tracer !== undefined || c.budget.events.listening,
      heartbeatMs: read.heartbeat?.everyMs ?? 0,
      url: href ?? "",
      options: read.core,
    });
    // The stream holds its client (s.client): a client no one else holds must not be freed under it.
    const spans = tracer === undefined ? undefined : streamSpans(tracer.guard, tracer.tracer, c.redact(href ?? "", true));
    const s = { client, c, handle, url: href, urlProvider: provider, spans, ...read, state: "connecting", reason: undefined, executor: undefined, lastMessageWall: null, staleSinceWall: null, closeRequested: false };
    const target = new RetryStream(s);
    s.target = target;
    Promise.resolve(load()).then(
      (executor) => {
        if (s.executor === undefined) begin(s, executor);
      },
      (error) => {
        s.state = "stopped";
        s.reason = "aborted";
        core.streams.free(s.handle);
        target.dispatchEvent(Object.assign(new Event("stop"), { reason: "aborted", error }));
      },
    );
    return target;
  }

  return stream;
}
