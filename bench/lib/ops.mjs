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

/** Awaits an async fn, one call after the other, for about ms milliseconds; returns calls per second. */
async function asyncOpsPerSecond(fn, ms) {
  let calls = 0;
  let elapsed = 0;
  const started = performance.now();
  while (elapsed < ms) {
    consume(await fn());
    calls++;
    if ((calls & 15) === 0) elapsed = performance.now() - started;
  }
  return calls / ((performance.now() - started) / 1000);
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
  return cases.map((c, i) => {
    const sorted = results[i].sort((a, b) => a - b);
    const { fn, ...rest } = c;
    return { ...rest, opsPerSecond: sorted[Math.floor(sorted.length / 2)], minOps: sorted[0], maxOps: sorted.at(-1) };
  });
}

/** Median ops/s of synchronous cases [{ fn, ...labels }]. */
export const compareOps = (cases, { rounds = 5, msPerRound = 200 } = {}) =>
  compare(cases, async (fn, ms) => syncOpsPerSecond(fn, ms), { rounds, msPerRound });

/** Median ops/s of async cases [{ fn, ...labels }], each call awaited before the next. */
export const compareAsyncOps = (cases, { rounds = 5, msPerRound = 200 } = {}) =>
  compare(cases, asyncOpsPerSecond, { rounds, msPerRound });
