// One process of bench/fleet.mjs: `lanes` loops of limited calls for `ms`, through retryline's
// Budget (kept in Redis, or local) or bottleneck (its Redis clustering, or local), to a fetch that
// answers at once, so that only the limiter's cost is timed. Prints { calls, meanUs, p50Us, p99Us, sharing, refused }.
import Bottleneck from "bottleneck";
import { Budget, RetryClient } from "../../js/node.js";

const job = JSON.parse(process.argv[2]);
const answer = async () => new Response("ok");
const HUGE = 1_000_000; // limits that never bind: the cost of keeping them is what is measured

async function limiter() {
  if (job.lib === "retryline") {
    const budget = new Budget({ capacity: HUGE, refillPerSecond: HUGE, share: job.share, ...(job.redis ? { redis: job.redis } : {}) });
    const client = new RetryClient({ budget, fetch: answer, policy: { maxAttempts: 1 } });
    return { call: () => client.fetch("https://exchange.example/api/v3/ticker/price"), close: () => budget.free(), sharing: () => budget.sharing };
  }
  const { hostname, port } = job.redis ? new URL(job.redis) : {};
  const bottleneck = new Bottleneck({
    id: job.share, reservoir: HUGE, reservoirRefreshAmount: HUGE, reservoirRefreshInterval: 1000,
    ...(job.redis ? { datastore: "ioredis", clientOptions: { host: hostname, port: Number(port) }, clearDatastore: false } : {}),
  });
  await bottleneck.ready();
  return { call: () => bottleneck.schedule(answer), close: () => bottleneck.disconnect(), sharing: () => (job.redis ? "redis" : "local") };
}

const lim = await limiter();
await lim.call(); // connected and warm before the fleet starts together
await new Promise((r) => setTimeout(r, Math.max(0, job.startAt - Date.now())));
const times = [];
const refused = {};
const until = performance.now() + job.ms;
const lane = async () => {
  while (performance.now() < until) {
    const t0 = performance.now();
    try {
      await lim.call();
      times.push(performance.now() - t0);
    } catch (error) {
      if (typeof error?.reason !== "string") throw error;
      refused[error.reason] = (refused[error.reason] ?? 0) + 1; // a RetryError: counted, not timed
    }
  }
};
await Promise.all(Array.from({ length: job.lanes }, lane));
times.sort((a, b) => a - b);
const at = (q) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 1000);
const sharing = lim.sharing();
await lim.close();
console.log(JSON.stringify({ calls: times.length, meanUs: Math.round((times.reduce((s, t) => s + t, 0) / times.length) * 1000), p50Us: at(0.5), p99Us: at(0.99), sharing, refused }));
