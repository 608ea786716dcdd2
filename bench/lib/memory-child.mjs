// Child process of bench/memory.mjs (run with --expose-gc): memory per pending operation of one
// library. Usage: node --expose-gc memory-child.mjs <id> <calls> <batch>; prints one JSON line.
//
// The fetch stub never settles until released: every call stays pending at its fetch. Calls are
// issued in batches of <batch>, with a yield to the event loop after each (so finalizer tasks run,
// as they would in a live service), until <calls> are pending at once. Then: gc, measure, release
// every stub with a 200 "ok" (each caller reads the body), gc, measure; and a second burst the same
// way, to see whether the wasm memory grown by the first is reused.
//
// retryline's wasm memory: the exported `memory` of the instance js/node.js makes at import
// (`new WebAssembly.Instance(module, {})`, pkg/server.wasm), caught by wrapping
// WebAssembly.Instance/instantiate before the entry is imported; or the entry's own `memory`
// export, should it ever have one. The entry exports no handle on its instance, and the core
// imports nothing, so nothing else can reach it.
import { setImmediate as tick } from "node:timers/promises";

const [id, callsArg = "100000", batchArg = "100", burstsArg = "2"] = process.argv.slice(2);
const CALLS = Number(callsArg);
const BATCH = Number(batchArg);
const URL_ = "http://127.0.0.1:9/pending";
const HOUR = 3_600_000; // timeouts that exist (their timers are part of the cost) but never fire here

if (typeof globalThis.gc !== "function") throw new Error("run with --expose-gc");

// Catch any wasm instance created from here on.
const instances = [];
const OriginalInstance = WebAssembly.Instance;
function CatchingInstance(module, imports) {
  const instance = new OriginalInstance(module, imports);
  instances.push(instance);
  return instance;
}
CatchingInstance.prototype = OriginalInstance.prototype;
WebAssembly.Instance = CatchingInstance;
for (const name of ["instantiate", "instantiateStreaming"]) {
  const original = WebAssembly[name];
  if (typeof original !== "function") continue;
  WebAssembly[name] = async (...args) => {
    const result = await original.apply(WebAssembly, args);
    instances.push(result instanceof OriginalInstance ? result : result.instance);
    return result;
  };
}

let resolvers = [];
const stub = () => new Promise((resolve) => resolvers.push(resolve));

let wasmMemory = null;
let memoryVia = null;
let call;
let findMemory = () => true;

if (id === "retryline" || id === "retryline-platform") {
  const entry = await import("../../js/node.js");
  // retryline-platform: the default configuration, the platform's fetch (the stub as globalThis.fetch).
  if (id === "retryline-platform") globalThis.fetch = stub;
  const policy = { attemptTimeoutMs: HOUR, deadlineMs: HOUR };
  const client = new entry.RetryClient(id === "retryline" ? { fetch: stub, policy } : { policy });
  call = () => client.fetch(URL_);
  // Looked up after the warm-up too, in case the module is instantiated at the first call.
  findMemory = () => {
    const isMemory = (m) => m instanceof WebAssembly.Memory;
    const memories = [...new Set(instances.map((i) => i?.exports?.memory).filter(isMemory))];
    const candidates = [
      ["the entry's export `memory`", () => entry.memory],
      [`the instance js/node.js made (caught at WebAssembly.Instance; ${instances.length} instance(s) made)`, () => (memories.length === 1 ? memories[0] : undefined)],
    ];
    for (const [via, get] of candidates) {
      let m;
      try {
        m = get();
      } catch {}
      if (isMemory(m)) {
        wasmMemory = m;
        memoryVia = via;
        return true;
      }
    }
    if (memories.length > 1) throw new Error(`${memories.length} wasm memories were made: which is retryline's?`);
    return false;
  };
} else if (id === "p-retry") {
  const { default: pRetry } = await import("p-retry");
  call = () => pRetry(async () => {
    const res = await stub(URL_);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res;
  }, { retries: 2 });
} else if (id === "ky") {
  const { default: ky } = await import("ky");
  // ky's default 10 s timeout would fire during a burst: an hour keeps its timer without firing.
  const api = ky.create({ fetch: stub, timeout: HOUR });
  call = () => api.get(URL_);
} else if (id === "stub") {
  call = () => stub(URL_);
} else {
  throw new Error(`unknown contender ${id}`);
}
async function settle() {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await tick(); // lets finalizer (FinalizationRegistry) tasks run
  }
}

function snapshot() {
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss, wasm: wasmMemory ? wasmMemory.buffer.byteLength : 0 };
}

async function burst(n) {
  const calls = new Array(n);
  const started = performance.now();
  const marks = []; // ms to issue each tenth of the burst: shows whether issuing slows as calls pile up
  let mark = started;
  for (let i = 0; i < n; i += BATCH) {
    for (let j = i; j < Math.min(n, i + BATCH); j++) calls[j] = call().then((res) => res.text());
    await tick();
    if ((i + BATCH) % (n / 10) < BATCH) {
      const now = performance.now();
      marks.push(+(now - mark).toFixed(1));
      mark = now;
    }
  }
  for (let k = 0; k < 100 && resolvers.length < n; k++) await tick();
  return { calls, issueMs: performance.now() - started, issueMsPerTenth: marks, reachedFetch: resolvers.length };
}

async function release(calls) {
  const started = performance.now();
  const waiting = resolvers;
  resolvers = [];
  for (const resolve of waiting) resolve(new Response("ok"));
  const bodies = await Promise.all(calls);
  const ok = bodies.filter((b) => b === "ok").length;
  return { releaseMs: performance.now() - started, ok };
}

// Warm-up: code paths compiled and lazily created state in place before the baseline. The wasm
// memory never shrinks, and what the warm-up grew is reused by the burst: its growth is counted from
// its size before the warm-up (when the module is instantiated at import, as it is today).
const foundEarly = findMemory();
const wasmAtStart = wasmMemory ? wasmMemory.buffer.byteLength : 0;
{
  const { calls } = await burst(1000);
  await release(calls);
}
if (!foundEarly && !findMemory()) throw new Error("retryline's wasm memory was not found");
await settle();
const base = { ...snapshot(), ...(foundEarly ? { wasm: wasmAtStart } : {}) };

const first = await burst(CALLS);
await settle();
const pending1 = snapshot();
const released1Info = await release(first.calls);
first.calls = null;
await settle();
const released1 = snapshot();

let second = null;
let pending2 = null;
let released2Info = null;
let released2 = null;
if (Number(burstsArg) >= 2) {
  second = await burst(CALLS);
  await settle();
  pending2 = snapshot();
  released2Info = await release(second.calls);
  second.calls = null;
  await settle();
  released2 = snapshot();
}

const perOp = (from, to) => (to.heapUsed - from.heapUsed + (to.wasm - from.wasm)) / CALLS;
const burstInfo = (b, r) => ({ issueMs: b.issueMs, issueMsPerTenth: b.issueMsPerTenth, reachedFetch: b.reachedFetch, ...r });
process.stdout.write(`${JSON.stringify({
  id,
  calls: CALLS,
  batch: BATCH,
  memoryVia,
  snapshots: { base, pending1, released1, pending2, released2 },
  bursts: [burstInfo(first, released1Info), ...(second ? [burstInfo(second, released2Info)] : [])],
  perPendingBytes: perOp(base, pending1),
  heapPerPendingBytes: (pending1.heapUsed - base.heapUsed) / CALLS,
  wasmPerPendingBytes: (pending1.wasm - base.wasm) / CALLS,
  secondBurstPerPendingBytes: second ? perOp(released1, pending2) : null,
  wasmGrowthSecondBurst: second ? pending2.wasm - released1.wasm : null,
  heapLeftAfterReleaseBytes: (released2 ?? released1).heapUsed - base.heapUsed,
})}\n`);
