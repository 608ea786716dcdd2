// Fleets on one Redis (issue 22): grants a second and time per call for 1, 4 and 16 Node processes
// limiting one scope together, retryline's `new Budget({ redis })` beside bottleneck's Redis
// clustering in the same run, each also without Redis (its local limiter) for the added cost.
// Limits never bind (a million a second): what is timed is keeping them. Each process runs 4
// concurrent loops for 2 s against a fetch that answers at once. A real redis-server on loopback
// (support/redis-server.mjs). Standalone probe, not part of `npm run bench`: node bench/fleet.mjs
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startRedis } from "../tests/js/support/redis-server.mjs";

const MS = 2000;
const LANES = 4;
const child = fileURLToPath(new URL("./lib/fleet-child.mjs", import.meta.url));
const run = (job) => new Promise((resolve, reject) =>
  execFile(process.execPath, [child, JSON.stringify(job)], { timeout: 60_000 }, (error, out, err) => (error ? reject(new Error(err || error.message)) : resolve(JSON.parse(out)))));

async function fleet(n, lib, redis, share) {
  const startAt = Date.now() + 1000 + 150 * n; // every process connected and warm first
  const results = await Promise.all(Array.from({ length: n }, () => run({ lib, redis, share, ms: MS, lanes: LANES, startAt })));
  const calls = results.reduce((s, r) => s + r.calls, 0);
  const mean = results.reduce((s, r) => s + r.meanUs * r.calls, 0) / calls;
  const sharing = results.map((r) => r.sharing);
  const says = [...new Set(sharing)].map((s) => `${sharing.filter((x) => x === s).length}× ${s}`).join(", ");
  const refused = results.reduce((s, r) => s + Object.values(r.refused).reduce((a, b) => a + b, 0), 0);
  return { perSecond: Math.round((calls * 1000) / MS), meanUs: Math.round(mean), p99Us: Math.max(...results.map((r) => r.p99Us)), sharing: says, refused };
}

const us = (x) => (x >= 1000 ? `${(x / 1000).toFixed(1)} ms` : `${x} µs`);
const redis = await startRedis();
try {
  console.log(`| processes | library | grants / s, Redis | per call, Redis (mean / p99) | grants / s, local | added per call | sharing at the end | refused |\n|--:|---|--:|---|--:|--:|---|--:|`);
  for (const n of [1, 4, 16]) {
    for (const lib of ["retryline", "bottleneck"]) {
      const shared = await fleet(n, lib, redis.url, `bench-${lib}-${n}`);
      const local = await fleet(n, lib, null, `bench-${lib}-${n}`);
      console.log(`| ${n} | ${lib} | ${shared.perSecond} | ${us(shared.meanUs)} / ${us(shared.p99Us)} | ${local.perSecond} | ${us(Math.max(0, shared.meanUs - local.meanUs))} | ${shared.sharing} | ${shared.refused} |`);
    }
  }
} finally {
  await redis.close();
}
