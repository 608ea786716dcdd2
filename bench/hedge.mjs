// Hedged reads against a long tail (issue 21): a loopback route answers 98 % of requests after
// 20 ms and 2 % after 1 s (each request draws on its own, from a seeded sequence, so every
// contender meets the same tail). <READS> reads, <LANES> at a time, per contender, one after
// another in one run: p50, p99, p99.9 and max latency at the caller, and the extra requests and
// aborts the server counted. Beside "The Tail at Scale" (Dean and Barroso, 2013: a BigTable
// benchmark's 99.9th percentile cut from 1 800 ms to 74 ms by hedging after 10 ms, for 2 % more
// requests). No JavaScript retry library hedges: the nearest thing is a short attempt timeout and a
// retry, measured too. Standalone probe, not part of `npm run bench`: node bench/hedge.mjs [reads]
import { createServer } from "node:http";
import { Budget, RetryClient } from "../js/node.js";
import { percentile } from "./lib/stats.mjs";

const READS = Number(process.argv[2] ?? 3000);
const LANES = 20;
const FAST_MS = 20;
const SLOW_MS = 1000;
const SLOW_SHARE = 0.02;

/** A seeded sequence in [0, 1) (mulberry32): the same tail for every contender. */
function draws(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function startServer() {
  const counts = { received: 0, aborted: 0 };
  let next = draws(7);
  const server = createServer((req, res) => {
    counts.received += 1;
    req.resume();
    const delay = next() < SLOW_SHARE ? SLOW_MS : FAST_MS;
    const timer = setTimeout(() => res.end('{"price":"64000.00"}'), delay);
    // The client went away first: a hedge's loser, or an attempt its timeout cut.
    res.on("close", () => {
      if (!res.writableFinished) {
        clearTimeout(timer);
        counts.aborted += 1;
      }
    });
  });
  await new Promise((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/api/v3/ticker/price`,
    counts,
    restart() {
      next = draws(7);
      counts.received = counts.aborted = 0;
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

const retryline = (policy) => () => {
  const client = new RetryClient({ budget: new Budget({ retryQuota: false }), policy });
  return { get: async (url) => (await client.fetch(url)).text(), close: () => client.free() };
};

const contenders = [
  { name: "fetch, no retry library", config: "fetch(url)", create: () => ({ get: async (url) => (await fetch(url)).text(), close() {} }) },
  { name: "retryline, no hedge", config: "policy: {}", create: retryline({}) },
  { name: "retryline, timeout 100 ms and retry", config: "policy: { attemptTimeoutMs: 100, baseDelayMs: 0, maxDelayMs: 0, maxAttempts: 3 }", create: retryline({ attemptTimeoutMs: 100, baseDelayMs: 0, maxDelayMs: 0, maxAttempts: 3 }) },
  { name: "retryline, hedgeAfterMs 50", config: "policy: { maxHedges: 1, hedgeAfterMs: 50 }", create: retryline({ maxHedges: 1, hedgeAfterMs: 50 }) },
  { name: 'retryline, hedgeAfterMs "p95"', config: 'policy: { maxHedges: 1, hedgeAfterMs: "p95" }', create: retryline({ maxHedges: 1, hedgeAfterMs: "p95" }) },
];

async function run(contender, server) {
  server.restart();
  const c = contender.create();
  const took = [];
  let n = 0;
  let failed = 0;
  const lane = async () => {
    while (n < READS) {
      n += 1;
      const t = performance.now();
      // A read that fails (three short timeouts in a row) counts, at the time it took to fail.
      await c.get(server.url).catch(() => (failed += 1));
      took.push(performance.now() - t);
    }
  };
  try {
    await Promise.all(Array.from({ length: LANES }, lane));
  } finally {
    c.close();
  }
  await new Promise((r) => setTimeout(r, SLOW_MS + 100)); // the losers' closes reach the server
  took.sort((a, b) => a - b);
  const extra = server.counts.received - took.length;
  return { p50: percentile(took, 50), p99: percentile(took, 99), p999: percentile(took, 99.9), max: took.at(-1), extra, aborted: server.counts.aborted, failed };
}

const server = await startServer();
const ms = (x) => `${x.toFixed(0)} ms`;
try {
  console.log(`${READS} reads per contender, ${LANES} at a time; the route: ${100 - SLOW_SHARE * 100} % at ${FAST_MS} ms, ${SLOW_SHARE * 100} % at ${SLOW_MS} ms; Node ${process.versions.node}\n`);
  console.log("| contender | p50 | p99 | p99.9 | max | extra requests | aborted at the server | failed reads |\n|---|--:|--:|--:|--:|--:|--:|--:|");
  for (const contender of contenders) {
    const r = await run(contender, server);
    const share = `${r.extra} (${((100 * r.extra) / READS).toFixed(1)} %)`;
    console.log(`| ${contender.name} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.p999)} | ${ms(r.max)} | ${share} | ${r.aborted} | ${r.failed} |`);
  }
} finally {
  await server.close();
}
