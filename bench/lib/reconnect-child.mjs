// Child process of bench/reconnect-storm.mjs: the clients, in a process of their own, so that the
// server's timestamps (taken in the benchmark's process) never wait on the clients' event loop.
// Prints one JSON object per line on stdout; exits when its stdin ends (the benchmark stopped or
// died) or reads "stop".
//
//   node --expose-gc reconnect-child.mjs storm <library> <clients> <url> <connectTimeoutMs> <budget JSON>
//     Opens a warm-up of 10 clients and closes them, gc, measures (the baseline); opens <clients>
//     clients of one library (batches of 50, a yield after each) and waits until every one is
//     open; gc, measures again: {"type":"open", …heap and wasm memory before and after}. Then only
//     holds them, while the server drops and refuses them; on "report" it prints what the clients
//     themselves saw (streams stopped, errors nobody listened to).
//
//   node reconnect-child.mjs messages <url> <messagesPerRound>
//     One connection per contender (bare ws, reconnecting-websocket, partysocket, a retryline
//     stream) at <url>/<id>; "ready" when all are open. The server then sends <messagesPerRound>
//     messages on one of them at a time; each listener reads `event.data` and counts, and after
//     the last one prints {"type":"round", id, wallMs, cpuUs} from its first message to its last.
import { setImmediate as tick } from "node:timers/promises";
import { createInterface } from "node:readline";

const [mode, ...rest] = process.argv.slice(2);
const print = (object) => process.stdout.write(`${JSON.stringify(object)}\n`);

// A library that lets an 'error' event of its socket reach no listener (ws then throws it) must not
// end the run once its clients are open: such errors are counted and reported. Before that, an
// error ends the child with a message (a top-level await's rejection comes here too).
let uncaught = 0;
let holding = false;
let firstUncaught = null;
const uncaughtMessages = new Map();
process.on("uncaughtException", (error) => {
  if (!holding) {
    print({ type: "error", message: String(error?.stack ?? error).split("\n").slice(0, 3).join(" / ") });
    process.exit(1);
  }
  uncaught += 1;
  firstUncaught ??= String(error?.stack ?? error).split("\n").slice(0, 6).join(" / ");
  const message = String(error?.message ?? error).slice(0, 120);
  uncaughtMessages.set(message, (uncaughtMessages.get(message) ?? 0) + 1);
});

// retryline's wasm memory: caught at WebAssembly.Instance before js/node.js is imported (as
// lib/memory-child.mjs does; the entry exports no handle on its instance).
const instances = [];
const OriginalInstance = WebAssembly.Instance;
function CatchingInstance(module, imports) {
  const instance = new OriginalInstance(module, imports);
  instances.push(instance);
  return instance;
}
CatchingInstance.prototype = OriginalInstance.prototype;
WebAssembly.Instance = CatchingInstance;
const wasmBytes = () => instances.reduce((sum, i) => sum + (i.exports?.memory instanceof WebAssembly.Memory ? i.exports.memory.buffer.byteLength : 0), 0);

const { WebSocket } = await import("ws");

/**
 * Each library, with its own defaults: only the URL, ws as its WebSocket where it takes one, and
 * (socket.io-client) a connection of its own per client are set. `create(url)` returns the
 * client; `onOpen(client, f)` calls f each time it is open; `onStop(client, f)` if it gives up for
 * good (retryline's "stop"; the peers never give up by default).
 */
async function library(id, budgetOptions) {
  const events = {
    onOpen: (socket, f) => socket.addEventListener("open", () => f()),
    onStop: () => {},
    close: (socket) => socket.close(),
  };
  switch (id) {
    case "ws":
      return {
        ...events,
        create(url) {
          const socket = new WebSocket(url);
          socket.addEventListener("error", () => {});
          return socket;
        },
      };
    case "reconnecting-websocket": {
      const { default: ReconnectingWebSocket } = await import("reconnecting-websocket");
      return { ...events, create: (url) => new ReconnectingWebSocket(url, [], { WebSocket }) };
    }
    case "partysocket": {
      const { default: PartySocketWS } = await import("partysocket/ws");
      return { ...events, create: (url) => new PartySocketWS(url, [], { WebSocket }) };
    }
    case "socket.io-client": {
      const { io } = await import("socket.io-client");
      return {
        create: (url) => io(url, { forceNew: true }),
        onOpen: (socket, f) => socket.on("connect", () => f()),
        onStop: () => {},
        close: (socket) => socket.disconnect(),
      };
    }
    case "retryline-private":
    case "retryline-shared": {
      const { RetryClient, Budget } = await import("../../js/node.js");
      if (typeof new RetryClient().stream !== "function") return { unavailable: "not available in this build" };
      const budget = id === "retryline-shared" ? new Budget(budgetOptions) : undefined;
      // Each client is kept as long as its stream, as `const client = new RetryClient(); client.stream(…)`
      // in a module would: a stream whose client was collected has been seen to break at its next decision.
      const kept = [];
      return {
        create(url) {
          const client = budget ? new RetryClient({ budget }) : new RetryClient();
          kept.push(client);
          return client.stream(url, { WebSocket });
        },
        onOpen: (stream, f) => stream.addEventListener("state", (event) => event.state === "open" && f()),
        onStop: (stream, f) => stream.addEventListener("stop", (event) => f(String(event.reason))),
        close: (stream) => stream.close(),
      };
    }
    default:
      throw new Error(`unknown library ${id}`);
  }
}

async function settle() {
  for (let i = 0; i < 4; i++) {
    globalThis.gc?.();
    await tick(); // lets finalizer tasks run
  }
}
const memory = () => ({ heapUsed: process.memoryUsage().heapUsed, wasm: wasmBytes() });

/** Opens `n` clients in batches of 50 (a yield after each); resolves when all are open or after `timeoutMs`. */
async function openMany(lib, url, n, timeoutMs, stops) {
  const clients = [];
  let opened = 0;
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    let first = true;
    const client = lib.create(url);
    lib.onOpen(client, () => {
      if (first && (first = false, ++opened === n)) resolveAll();
    });
    lib.onStop(client, (reason) => stops.set(reason, (stops.get(reason) ?? 0) + 1));
    clients.push(client);
    if (i % 50 === 49) await tick();
  }
  let timer;
  await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  return { clients, opened: () => opened, connectMs: performance.now() - started };
}

function commands(handlers) {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => handlers[line.trim()]?.());
  lines.on("close", () => process.exit(0));
}

if (mode === "storm") {
  const [id, clientsArg, url, timeoutArg, budgetArg = "{}"] = rest;
  const n = Number(clientsArg);
  const lib = await library(id, JSON.parse(budgetArg));
  if (lib.unavailable) {
    print({ type: "unavailable", reason: lib.unavailable });
    process.exit(0);
  }
  // A shell whose stream() exists but whose wasm has no streams throws at the first call.
  try {
    lib.close(lib.create(url));
  } catch (error) {
    print({ type: "unavailable", reason: `not available in this build (${error.message})` });
    process.exit(0);
  }
  const stops = new Map();
  // Warm-up: code compiled and lazily made state in place before the baseline.
  const warm = await openMany(lib, url, 10, Number(timeoutArg), new Map());
  for (const c of warm.clients) lib.close(c);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await settle();
  const before = memory();
  const run = await openMany(lib, url, n, Number(timeoutArg), stops);
  await settle();
  const after = memory();
  holding = true;
  print({ type: "open", clients: n, opened: run.opened(), connectMs: run.connectMs, before, after, warmupOpened: warm.opened() });
  commands({
    report: () => print({ type: "report", stopped: Object.fromEntries(stops), uncaught, uncaughtMessages: Object.fromEntries(uncaughtMessages), firstUncaught, clients: run.clients.length }),
    stop: () => process.exit(0),
  });
} else if (mode === "messages") {
  const [url, perRoundArg] = rest;
  const perRound = Number(perRoundArg);
  const ids = ["ws", "reconnecting-websocket", "partysocket", "retryline-private"];
  const unavailable = {};
  const waiting = [];
  const keep = [];
  let sink = null;
  for (const id of ids) {
    const lib = await library(id);
    if (lib.unavailable) {
      unavailable[id] = lib.unavailable;
      continue;
    }
    // The same listener body for every contender: read event.data, count, time the round.
    let count = 0;
    let wall0 = 0;
    let cpu0 = null;
    const onMessage = (event) => {
      sink = event.data;
      if (count === 0) {
        wall0 = performance.now();
        cpu0 = process.cpuUsage();
      }
      if (++count === perRound) {
        const wallMs = performance.now() - wall0;
        const cpu = process.cpuUsage(cpu0);
        count = 0;
        print({ type: "round", id, messages: perRound, wallMs, cpuUs: cpu.user + cpu.system, lastLength: typeof sink === "string" ? sink.length : sink?.byteLength ?? null });
      }
    };
    let socket;
    try {
      socket = lib.create(`${url}/${id}`);
    } catch (error) {
      unavailable[id] = `not available in this build (${error.message})`;
      continue;
    }
    waiting.push(new Promise((resolve) => lib.onOpen(socket, resolve)));
    socket.addEventListener("message", onMessage);
    keep.push(socket);
  }
  await Promise.all(waiting);
  holding = true;
  print({ type: "ready", unavailable });
  commands({ stop: () => process.exit(0) });
} else {
  throw new Error(`unknown mode ${mode}`);
}
