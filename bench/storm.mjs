// (c2) A storm: 200 concurrent reads against a route that always answers 503. Each library has
// 3 attempts and a small base delay; the server counts what reached it. retryline runs three
// ways: a client per read with nothing shared (like the peers, whose state is per call), one
// client (its private default Budget carries a retry quota), and a client per read all sharing
// one `new Budget({ capacity: 50, refillPerSecond: 100 })`.
import { Budget } from "../js/node.js";
import { contenders } from "./lib/contenders.mjs";
import { timeLimit } from "./lib/time-limit.mjs";

const CONCURRENT = 200;
const options = { attempts: 3, baseDelayMs: 100 };

function variants() {
  const byId = Object.fromEntries(contenders.map((c) => [c.id, c]));
  const retryline = byId.retryline;
  const peers = contenders.filter((c) => c.id !== "retryline" && (c.retries || c.id === "fetch"));
  return [
    ...peers.map((c) => ({ id: c.id, name: c.name, config: c.config(options), create: () => c.create(options) })),
    {
      id: "retryline-per-request",
      name: "retryline, a client per read, nothing shared",
      config: retryline.config(options),
      create: () => retryline.create({ ...options, clientPerRequest: true }),
    },
    {
      id: "retryline-one-client",
      name: "retryline, one client (default private Budget)",
      config: retryline.config(options),
      create: () => retryline.create(options),
    },
    {
      id: "retryline-shared-budget",
      name: "retryline, a client per read, shared Budget",
      config: `${retryline.config({ ...options, budget: true })} with budget = new Budget({ capacity: 50, refillPerSecond: 100 })`,
      create: () => retryline.create({ ...options, clientPerRequest: true, budget: new Budget({ capacity: 50, refillPerSecond: 100 }) }),
    },
  ];
}

/** Largest number of requests the server received in any 100 ms window. */
function peakPer100Ms(entries) {
  const times = entries.map((e) => e.receivedAtMs).sort((a, b) => a - b);
  let peak = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 100) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}

export async function measureStorm(mock, { log = () => {} } = {}) {
  const rows = [];
  for (const v of variants()) {
    const path = `/api/v3/depth/storm/${v.id}`;
    await mock.script(path, Array.from({ length: CONCURRENT * 5 }, () => ({ status: 503 })));
    const { get } = v.create();
    const url = `${mock.url}${path}`;
    const started = performance.now();
    const results = await timeLimit(
      Promise.all(Array.from({ length: CONCURRENT }, () => get(url).catch((e) => ({ status: null, error: e.message })))),
      60_000,
      `${v.name} storm`,
    );
    const totalMs = performance.now() - started;
    const seen = await mock.requests(path);
    const outcomes = {};
    for (const r of results) {
      const key = `${r.status ?? "no response"}${r.error ? ` (${r.error})` : ""}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    rows.push({
      id: v.id,
      name: v.name,
      config: v.config,
      reads: CONCURRENT,
      serverRequests: seen.length,
      requestsPerRead: seen.length / CONCURRENT,
      peakPer100Ms: peakPer100Ms(seen),
      totalMs,
      outcomes,
    });
    log(`  ${v.name}: ${seen.length} requests in ${totalMs.toFixed(0)} ms`);
    await mock.reset();
  }
  return rows;
}
