// Fleets that keep one limit (issue 33): 1, 4 and 16 Node processes flooding one scope for 3 s
// through one bucket kept in Redis (10 at once, 5 a second), each with 8 calls in flight, with both
// cores kept busy by two spin loops. Redis up; slow (DEBUG SLEEP 0.6 s twice); down (killed 1 s
// in, back after the flood). retryline beside bottleneck's clustering and rate-limiter-flexible (with
// the in-memory insurance limiter its docs advise for outages), in one run; requests counted at a
// loopback server. Standalone: node bench/fleet-limits.mjs [--idle] (writes nothing).
import { execFile, spawn } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { startRedis } from "../tests/js/support/redis-server.mjs";

const MS = 3000;
const LANES = 8;
const [CAPACITY, PER_SECOND] = [10, 5];
// What one bucket lets through in MS, tokens being spent within 200 ms of their grant (the README's bound).
const ALLOWED = Math.floor(CAPACITY + (PER_SECOND * (MS + 200)) / 1000);
const LIBS = ["retryline", "bottleneck", "rate-limiter-flexible"];
const child = fileURLToPath(new URL("./lib/fleet-limit-child.mjs", import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const received = [];
const server = createServer((req, res) => {
  received.push(Date.now());
  res.end("ok");
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/api/v3/ticker/price`;

const run = (job) => new Promise((resolve, reject) =>
  execFile(process.execPath, [child, JSON.stringify(job)], { timeout: 120_000 }, (error, out, err) => (error ? reject(new Error(err || error.message)) : resolve(JSON.parse(out)))));
/** redis-cli without blocking this process's event loop (the counting server runs on it): its output. */
const cli = (port, ...args) => new Promise((resolve) => {
  const p = spawn("redis-cli", ["-p", String(port), ...args], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  p.stdout.on("data", (d) => (out += d));
  p.once("close", () => resolve(out));
});
/** Scripts Redis ran (EVAL and EVALSHA) since the last reset, and their mean time (INFO commandstats). */
async function scripts(port) {
  const stats = await cli(port, "INFO", "commandstats");
  const rows = [...stats.matchAll(/cmdstat_(evalsha|eval):calls=(\d+),usec=(\d+)/g)];
  const calls = rows.reduce((s, r) => s + Number(r[2]), 0);
  return { calls, usPer: calls ? rows.reduce((s, r) => s + Number(r[3]), 0) / calls : 0 };
}

/** What reached the server from `n` processes of `lib` during the flood, Redis doing `scenario`. */
async function flood(n, lib, scenario, redis, id) {
  const startAt = Date.now() + 2000 + 400 * n; // every process started (a busy machine's Node takes a while)
  const share = `limits-${id}`;
  const fleet = Promise.all(Array.from({ length: n }, () => run({ lib, url, redis: redis.url, share, ms: MS, lanes: LANES, startAt })));
  await sleep(startAt - Date.now());
  await cli(redis.port, "CONFIG", "RESETSTAT");
  const first = received.length;
  if (scenario === "slow") {
    await sleep(500);
    await cli(redis.port, "DEBUG", "SLEEP", "0.6");
    await sleep(600);
    await cli(redis.port, "DEBUG", "SLEEP", "0.6");
  } else if (scenario === "down") {
    // Back only after the flood: a restarted Redis is empty, and its fresh bucket would count here.
    await sleep(1000);
    await redis.kill();
    await sleep(startAt + MS + 100 - Date.now());
    await redis.restart();
  }
  const results = await fleet;
  const redisSaw = scenario === "up" ? await scripts(redis.port) : null;
  const sent = received.slice(first).filter((at) => at < startAt + MS).length;
  const errors = results.reduce((s, r) => s + r.errors, 0);
  const sharings = results.map((r) => r.sharing);
  const sharing = [...new Set(sharings)].map((s) => `${sharings.filter((x) => x === s).length}× ${s}`).join(", ");
  return { sent, errors, sharing, redisSaw };
}

const idle = process.argv.includes("--idle");
const spins = idle ? [] : [0, 1].map(() => spawn(process.execPath, ["-e", "const end = Date.now() + 900000; while (Date.now() < end) {}"], { stdio: "ignore" }));
const redis = await startRedis();
try {
  console.log(`Machine ${idle ? "idle" : "busy (two spin loops)"}; allowed over ${MS / 1000} s: ${ALLOWED} (10 + 5 × 3.2); Redis slow or down: plus one share per process.\n`);
  console.log(`| processes | Redis | ${LIBS.map((l) => `${l}: at the server (calls failed)`).join(" | ")} | retryline's sharing (and Redis's count, when up) |\n|--:|---|${LIBS.map(() => "--:|").join("")}---|`);
  let id = 0;
  for (const n of [1, 4, 16]) {
    for (const scenario of ["up", "slow", "down"]) {
      const cells = [];
      let sharing = "";
      for (const lib of LIBS) {
        const r = await flood(n, lib, scenario, redis, `${++id}-${Date.now()}`);
        cells.push(`${r.sent} (${r.errors})`);
        if (lib === "retryline") sharing = r.sharing + (r.redisSaw ? `; Redis ran ${Math.round(r.redisSaw.calls / (MS / 1000))} scripts/s, ${r.redisSaw.usPer.toFixed(0)} µs each` : "");
      }
      // A slow Redis is an outage to a process whose visit it does not answer in time: the same bound.
      const bound = scenario === "up" ? ALLOWED : `${ALLOWED} + ${n} × ${Math.ceil(CAPACITY / n)}`;
      console.log(`| ${n} | ${scenario} (allowed ${bound}) | ${cells.join(" | ")} | ${sharing} |`);
    }
  }
} finally {
  spins.forEach((s) => s.kill());
  await redis.close();
  server.close();
}
