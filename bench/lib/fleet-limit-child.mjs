// One process of bench/fleet-limits.mjs: `lanes` loops sending to `url` for `ms`, each request let
// through by a limiter kept in Redis: retryline's Budget, bottleneck's clustering, or
// rate-limiter-flexible's RateLimiterRedis with the in-memory insurance its docs advise for Redis
// outages. One bucket for the fleet: 10 at once, 5 a second. Prints { sent, errors, sharing }.
import Bottleneck from "bottleneck";
import Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { Budget, RetryClient, RetryError } from "../../js/node.js";

const job = JSON.parse(process.argv[2]);
const CAPACITY = 10;
const PER_SECOND = 5;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const send = async () => (await fetch(job.url)).arrayBuffer();

/** `{ call() → true if sent, close(), sharing() }` for the job's library. */
async function limiter() {
  const { hostname, port } = new URL(job.redis);
  if (job.lib === "retryline") {
    const budget = new Budget({ capacity: CAPACITY, refillPerSecond: PER_SECOND, share: job.share, redis: job.redis });
    const client = new RetryClient({ budget, policy: { maxAttempts: 1, deadlineMs: 1500, attemptTimeoutMs: 1000 } });
    const call = async () => {
      try {
        await (await client.fetch(job.url)).arrayBuffer();
        return true;
      } catch (error) {
        if (!(error instanceof RetryError)) throw error;
        await sleep(10); // refused before sending: the lane tries again
        return false;
      }
    };
    return { call, close: () => budget.free(), sharing: () => budget.sharing };
  }
  if (job.lib === "bottleneck") {
    // Bottleneck's token bucket: a reservoir of 10, one more every 200 ms up to 10.
    const bottleneck = new Bottleneck({
      id: job.share, reservoir: CAPACITY, reservoirIncreaseAmount: 1, reservoirIncreaseInterval: 1000 / PER_SECOND,
      reservoirIncreaseMaximum: CAPACITY, datastore: "ioredis", clientOptions: { host: hostname, port: Number(port) }, clearDatastore: false,
    });
    bottleneck.on("error", () => {});
    await bottleneck.ready();
    const call = () => bottleneck.schedule(send).then(() => true);
    // At the flood's end the jobs still queued are dropped: they would go out at 5 a second for long after.
    const stop = () => bottleneck.stop({ dropWaitingJobs: true });
    return { call, stop, close: () => bottleneck.disconnect(), sharing: () => "redis" };
  }
  // rate-limiter-flexible: a fixed window of 10 per 2 s (5 a second), the nearest it has to the bucket.
  const redis = new Redis({ host: hostname, port: Number(port), enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 200 });
  redis.on("error", () => {});
  await new Promise((resolve) => redis.once("ready", resolve));
  const insuranceLimiter = new RateLimiterMemory({ points: CAPACITY, duration: CAPACITY / PER_SECOND });
  const rlf = new RateLimiterRedis({
    storeClient: redis, keyPrefix: job.share, points: CAPACITY, duration: CAPACITY / PER_SECOND, rejectIfRedisNotReady: true, insuranceLimiter,
  });
  const call = async () => {
    try {
      await rlf.consume("scope");
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      await sleep(Math.max(10, refusal.msBeforeNext)); // the window's end: the lane tries again
      return false;
    }
    await send();
    return true;
  };
  return { call, close: () => redis.disconnect(), sharing: () => (redis.status === "ready" ? "redis" : "unreachable") };
}

const lim = await limiter();
await sleep(Math.max(0, job.startAt - Date.now()));
let [sent, errors] = [0, 0];
const sharings = new Set([lim.sharing()]);
const watch = setInterval(() => sharings.add(lim.sharing()), 20);
const until = performance.now() + job.ms;
const stopping = sleep(job.ms).then(() => lim.stop?.());
const lane = async () => {
  while (performance.now() < until) {
    try {
      if (await lim.call()) sent++;
    } catch {
      if (performance.now() < until) errors++; // the library failed the call (its Redis was down or slow): nothing sent
      await sleep(10);
    }
  }
};
await Promise.all(Array.from({ length: job.lanes }, lane));
await stopping;
clearInterval(watch);
await lim.close();
console.log(JSON.stringify({ sent, errors, sharing: [...sharings].join("→") }));
