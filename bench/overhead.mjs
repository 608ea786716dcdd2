// (a) Overhead per successful request: sequential GETs that succeed at once, through each
// library, against the mock exchange in its own process. Rounds are interleaved (each round
// runs every library in a rotated order) so that slow phases of a shared machine spread over
// all of them instead of landing on one.
import { contenders } from "./lib/contenders.mjs";
import { summarize } from "./lib/stats.mjs";

export async function measureOverhead(mock, { requests = 2000, rounds = 5, warmup = 200, log = () => {} } = {}) {
  const perRound = Math.ceil(requests / rounds);
  const runs = contenders.map((c) => ({
    contender: c,
    get: c.create({ attempts: 3, baseDelayMs: 100 }).get,
    url: `${mock.url}/api/v3/time/${c.id}`,
    path: `/api/v3/time/${c.id}`,
    samplesMs: [],
    busyMs: 0,
    serverRequests: 0,
  }));

  async function send(run) {
    const started = performance.now();
    const res = await run.get(run.url);
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${run.contender.name}: expected 200, got ${JSON.stringify(res)}`);
    return ms;
  }

  log(`  warm-up: ${warmup} requests each`);
  for (const run of runs) for (let i = 0; i < warmup; i++) await send(run);
  await mock.reset();

  for (let round = 0; round < rounds; round++) {
    const order = runs.map((_, i) => runs[(i + round) % runs.length]);
    for (const run of order) {
      const started = performance.now();
      for (let i = 0; i < perRound; i++) run.samplesMs.push(await send(run));
      run.busyMs += performance.now() - started;
    }
    // The server's own count: a library that sent more than one request per call would show here.
    for (const run of runs) run.serverRequests += (await mock.requests(run.path)).length;
    await mock.reset();
    log(`  round ${round + 1}/${rounds}: ${perRound} requests each`);
  }

  const baseline = summarize(runs[0].samplesMs);
  return runs.map((run) => {
    const s = summarize(run.samplesMs);
    return {
      id: run.contender.id,
      name: run.contender.name,
      config: run.contender.config({ attempts: 3, baseDelayMs: 100 }),
      requests: s.count,
      serverRequests: run.serverRequests,
      medianMs: s.medianMs,
      p99Ms: s.p99Ms,
      meanMs: s.meanMs,
      requestsPerSecond: s.count / (run.busyMs / 1000),
      medianOverFetchMs: s.medianMs - baseline.medianMs,
    };
  });
}
