// (f) Deadlines under load: 100 000 concurrent calls whose fetch never settles and ignores
// its signal. Each call must settle by its deadline (fixed when fetch() is called) plus 100 ms;
// this reports how late past its deadline each one settled, as a distribution.
//
// Calls are issued in batches that yield to the event loop between them (as requests arriving
// at a busy service would), until `calls` are pending at once; every deadline then passes while
// all of them are still pending.
//
// Run: node bench/deadlines.mjs [--calls 100000] [--deadline-ms 20000] [--batch 500]
import { parseArgs } from "node:util";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "./lib/ensure-built.mjs";

export async function measureDeadlines({ calls = 100_000, deadlineMs = 20_000, batch = 500, log = () => {} } = {}) {
  const { RetryClient } = await import("../js/node.js");
  const client = new RetryClient({
    fetch: () => new Promise(() => {}),
    policy: { maxAttempts: 1, attemptTimeoutMs: deadlineMs, deadlineMs },
  });
  const lateMs = new Float64Array(calls);
  let settled = 0;
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < calls; i += batch) {
    for (let j = i; j < Math.min(calls, i + batch); j++) {
      const calledAt = performance.now();
      pending.push(client.fetch("http://127.0.0.1:9/never").catch(() => {
        lateMs[j] = performance.now() - calledAt - deadlineMs;
        settled++;
      }));
    }
    await yieldToLoop();
  }
  const issuedMs = performance.now() - started;
  log(`  ${calls} calls issued in ${issuedMs.toFixed(0)} ms; ${settled} settled before the last was issued`);
  await Promise.all(pending);
  const sorted = Array.from(lateMs).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    calls,
    deadlineMs,
    issuedMs,
    lateMs: { min: at(0), p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: at(1) },
    over100: sorted.filter((ms) => ms > 100).length,
    early: sorted.filter((ms) => ms < -1).length,
    heapMb: process.memoryUsage().heapUsed / 1e6,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { calls: { type: "string", default: "100000" }, "deadline-ms": { type: "string", default: "20000" }, batch: { type: "string", default: "500" } },
  });
  await ensureBuilt();
  const r = await measureDeadlines({ calls: Number(values.calls), deadlineMs: Number(values["deadline-ms"]), batch: Number(values.batch), log: console.log });
  const f = (ms) => ms.toFixed(1).padStart(7);
  console.log(`${r.calls} concurrent calls, deadline ${r.deadlineMs} ms, issued over ${r.issuedMs.toFixed(0)} ms`);
  console.log(`settled past the deadline (ms): min ${f(r.lateMs.min)} p50 ${f(r.lateMs.p50)} p90 ${f(r.lateMs.p90)} p99 ${f(r.lateMs.p99)} p99.9 ${f(r.lateMs.p999)} max ${f(r.lateMs.max)}`);
  console.log(`later than deadline + 100 ms: ${r.over100}; earlier than the deadline: ${r.early}; JS heap ${r.heapMb.toFixed(0)} MB`);
}
