// Operations per second, over several interleaved rounds: every case runs once per round, in a
// rotated order, so that a slow phase of a shared machine spreads over all of them.

let sink = 0; // results feed this so the JIT cannot drop the work as dead code
const consume = (x) => (sink = (sink + (typeof x === "number" ? x : 1)) % 1e9);

/** Calls a synchronous fn in batches for about ms milliseconds; returns calls per second. */
function syncOpsPerSecond(fn, ms) {
  let batch = 1;
  for (;;) {
    const started = performance.now();
    for (let i = 0; i < batch; i++) consume(fn());
    if (performance.now() - started >= 5) break;
    batch *= 2;
  }
  let calls = 0;
  let elapsed = 0;
  const started = performance.now();
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) consume(fn());
    calls += batch;
    elapsed = performance.now() - started;
  }
  return calls / (elapsed / 1000);
}

// Yielding: a loop that only awaits promises runs entirely in microtasks, so tasks queued meanwhile
// never run — among them the finalizer tasks that free what Node 20's `new Request(…, { signal })`
// keeps (about 1.1 KB each) until then. Without yields, heap and time figures of such code are
// inflated (and a long enough loop runs out of memory). Every async case therefore yields to the
// event loop (a setImmediate) after each batch of YIELD_EVERY calls, every contender alike; the
// yields' own cost (a few µs per batch) is in every row.
export const YIELD_EVERY = 100;
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Awaits an async fn, one call after the other, yielding to the event loop after every `yieldEvery`
 * calls, for about ms milliseconds; returns calls per second and the process's CPU µs per call
 * (process.cpuUsage(): every thread, so GC helpers too; less moved than wall time by other
 * processes on a busy machine).
 */
async function asyncOpsPerSecond(fn, ms, yieldEvery = YIELD_EVERY) {
  let calls = 0;
  let elapsed = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  while (elapsed < ms) {
    for (let i = 0; i < yieldEvery && elapsed < ms; i++) {
      consume(await fn());
      calls++;
      if ((calls & 15) === 0) elapsed = performance.now() - started;
    }
    await yieldToLoop();
    elapsed = performance.now() - started;
  }
  const used = process.cpuUsage(cpu);
  return { ops: calls / (elapsed / 1000), cpuUsPerCall: (used.user + used.system) / calls };
}

async function compare(cases, measure, { rounds, msPerRound }) {
  for (const c of cases) await measure(c.fn, msPerRound / 2); // warm-up: let the JIT settle
  const results = cases.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const i = (k + round) % cases.length;
      results[i].push(await measure(cases[i].fn, msPerRound));
    }
  }
  const mid = (xs) => xs[Math.floor(xs.length / 2)];
  return cases.map((c, i) => {
    const ops = results[i].map((r) => (typeof r === "number" ? r : r.ops)).sort((a, b) => a - b);
    const cpu = results[i].map((r) => r.cpuUsPerCall).filter((x) => typeof x === "number").sort((a, b) => a - b);
    const { fn, ...rest } = c;
    return { ...rest, opsPerSecond: mid(ops), minOps: ops[0], maxOps: ops.at(-1), ...(cpu.length ? { cpuUsPerCall: mid(cpu) } : {}) };
  });
}

/** Median ops/s of synchronous cases [{ fn, ...labels }]. */
export const compareOps = (cases, { rounds = 5, msPerRound = 200 } = {}) =>
  compare(cases, async (fn, ms) => syncOpsPerSecond(fn, ms), { rounds, msPerRound });

/**
 * Median ops/s of async cases [{ fn, ...labels }], each call awaited before the next, with a yield to
 * the event loop after every `yieldEvery` calls (see YIELD_EVERY).
 */
export const compareAsyncOps = (cases, { rounds = 5, msPerRound = 200, yieldEvery = YIELD_EVERY } = {}) =>
  compare(cases, (fn, ms) => asyncOpsPerSecond(fn, ms, yieldEvery), { rounds, msPerRound });
