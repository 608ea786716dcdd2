// (c4) Circuit breakers against an outage that hangs. <reads> concurrent reads, repeated in a
// wave every <everyMs> for <wavesMs>, against a loopback route that hangs (never answers; the
// caller's ~1 s attempt timeout ends each request) for the first <outageMs>, then answers 200.
// The server counts what reached it: requests during the outage, requests in all, and the time
// from the recovery until a request reaches it again (and is answered 200). The callers count
// successes, refusals (refused before sending by an open breaker) and other failures.
// If nobody has succeeded by the end of the waves, the waves go on until someone does or
// <capMs> from the start (a breaker whose half-open time lies beyond the waves would otherwise
// never be seen recovering). One contender at a time, each with a fresh server and a fresh breaker
// shared by all its callers.
import { createServer } from "node:http";
import { circuitBreaker, ConsecutiveBreaker, handleAll, timeout, TimeoutStrategy, wrap, BrokenCircuitError, TaskCancelledError } from "cockatiel";
import CircuitBreaker from "opossum";
import { Budget, RetryClient, RetryError } from "../js/node.js";
import { timeLimit } from "./lib/time-limit.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const BODY = JSON.stringify({ lastUpdateId: 1, bids: [["64000.00", "1.0"]], asks: [["64001.00", "1.0"]] });

async function settle(res) {
  if (res.ok) await res.json();
  else await res.text();
  return res.status;
}

/**
 * The contenders. `create({ reads, attemptTimeoutMs })` → { get(i, url) → "ok" | "refused" | "timeout" | <other>, close() };
 * caller i makes the i-th read of every wave.
 */
export function breakerVariants({ attemptTimeoutMs }) {
  const retryline = (budgetOptions) => ({ reads }) => {
    const budget = new Budget(budgetOptions);
    const clients = Array.from({ length: reads }, () => new RetryClient({ budget, policy: { attemptTimeoutMs } }));
    return {
      async get(i, url) {
        try {
          const status = await settle(await clients[i].fetch(url));
          return status === 200 ? "ok" : `HTTP ${status}`;
        } catch (error) {
          if (!(error instanceof RetryError)) throw error;
          if (error.reason === "circuit-open") return "refused";
          const last = error.records.findLast((r) => r.outcome)?.outcome;
          return `${error.reason}${last ? ` (last attempt: ${last})` : ""}`;
        }
      },
      close: () => clients.forEach((c) => c.free()),
    };
  };
  return [
    {
      id: "retryline-no-breaker",
      name: "retryline, no breaker",
      config: `new RetryClient({ budget, policy: { attemptTimeoutMs: ${attemptTimeoutMs} } }) per caller, budget = new Budget() shared (default policy: 3 attempts, base delay 500 ms; default retry quota)`,
      create: retryline({}),
    },
    {
      id: "retryline-breaker",
      name: "retryline, breaker: true",
      config: `the same with budget = new Budget({ breaker: true }) (defaults: consecutiveFailures 5, failureRatio 0.5 over 10 s with minVolume 10, openMs 5000 doubling with jitter up to 60000, probes 1)`,
      create: retryline({ breaker: true }),
    },
    {
      id: "cockatiel",
      name: "cockatiel circuitBreaker + timeout",
      config: `wrap(circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }), timeout(${attemptTimeoutMs}, TimeoutStrategy.Cooperative)) ` +
        `.execute(({ signal }) => fetch(url, { signal })), one policy shared by all callers — set: halfOpenAfter (required, no default) 10 000, ConsecutiveBreaker(5), the timeout; no retries (cockatiel's breaker has none)`,
      create: () => {
        const policy = wrap(
          circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
          timeout(attemptTimeoutMs, TimeoutStrategy.Cooperative),
        );
        return {
          async get(i, url) {
            try {
              const status = await policy.execute(async ({ signal }) => settle(await fetch(url, { signal })));
              return status === 200 ? "ok" : `HTTP ${status}`;
            } catch (error) {
              if (error instanceof BrokenCircuitError) return "refused";
              // The cooperative timeout aborts fetch's signal: fetch rejects with its AbortError.
              if (error instanceof TaskCancelledError || error?.name === "AbortError") return "timeout";
              return error?.name ?? String(error);
            }
          },
          close() {},
        };
      },
    },
    {
      id: "opossum",
      name: "opossum",
      config: `new CircuitBreaker((url) => fetch(url).then(read body), { timeout: ${attemptTimeoutMs} }).fire(url), one breaker shared by all callers — set: timeout only ` +
        `(defaults: errorThresholdPercentage 50, resetTimeout 30 000, rollingCountTimeout 10 000, volumeThreshold 0; no abortController, so a timed-out fetch is not aborted and its request stays open at the server); no retries`,
      create: () => {
        const breaker = new CircuitBreaker(async (url) => settle(await fetch(url)), { timeout: attemptTimeoutMs });
        return {
          async get(i, url) {
            try {
              const status = await breaker.fire(url);
              return status === 200 ? "ok" : `HTTP ${status}`;
            } catch (error) {
              if (error?.code === "EOPENBREAKER") return "refused";
              if (error?.code === "ETIMEDOUT") return "timeout";
              return error?.code ?? error?.name ?? String(error);
            }
          },
          close: () => breaker.shutdown(),
        };
      },
    },
  ];
}

/** A loopback server: requests received before `recoverAt` hang (never answered), later ones get 200 JSON. */
async function startServer() {
  const state = { recoverAt: Infinity, received: [] };
  const sockets = new Set();
  const server = createServer((req, res) => {
    const at = performance.now();
    state.received.push(at);
    req.resume();
    if (at < state.recoverAt) return; // hangs until the caller gives up (or the server closes)
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(BODY) });
    res.end(BODY);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen({ host: "127.0.0.1", port: 0, backlog: 4096 }, resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/api/v3/depth`,
    state,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function run(v, settings, log) {
  const { reads, everyMs, wavesMs, outageMs, capMs, drainMs } = settings;
  const server = await startServer();
  const contender = v.create({ reads, attemptTimeoutMs: settings.attemptTimeoutMs });
  const calls = [];
  const pending = [];
  const t0 = performance.now();
  const recoverAt = t0 + outageMs;
  server.state.recoverAt = recoverAt;
  let firstOkAt = null;
  let waves = 0;
  try {
    for (;;) {
      const at = t0 + waves * everyMs;
      if (at - t0 >= wavesMs && (firstOkAt !== null || at - t0 >= capMs)) break;
      await sleep(Math.max(0, at - performance.now()));
      waves += 1;
      for (let i = 0; i < reads; i++) {
        const startedAt = performance.now();
        pending.push(
          contender.get(i, server.url).then(
            (outcome) => {
              const endedAt = performance.now();
              if (outcome === "ok" && firstOkAt === null) firstOkAt = endedAt;
              calls.push({ startedAt, endedAt, outcome });
            },
            (error) => calls.push({ startedAt, endedAt: performance.now(), outcome: `threw ${error?.message ?? error}` }),
          ),
        );
      }
    }
    const wavesEndedAt = performance.now();
    let drained = true;
    await timeLimit(Promise.all(pending), drainMs, `${v.name}: calls after the last wave`).catch(() => (drained = false));
    const received = server.state.received;
    const afterRecovery = received.filter((t) => t >= recoverAt);
    const outcomes = {};
    for (const c of calls) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1;
    const late = calls.filter((c) => c.startedAt >= recoverAt);
    const row = {
      id: v.id,
      name: v.name,
      config: v.config,
      waves,
      calls: waves * reads,
      settled: calls.length,
      drained,
      wavesMs: wavesEndedAt - t0,
      serverDuringOutage: received.length - afterRecovery.length,
      serverTotal: received.length,
      // Every request after the recovery is answered 200: the first one is the first success at the server.
      serverRecoveryMs: afterRecovery.length ? afterRecovery[0] - recoverAt : null,
      callerRecoveryMs: firstOkAt === null ? null : firstOkAt - recoverAt,
      ok: outcomes.ok ?? 0,
      refused: outcomes.refused ?? 0,
      failedOtherwise: calls.length - (outcomes.ok ?? 0) - (outcomes.refused ?? 0),
      afterRecovery: { calls: late.length, ok: late.filter((c) => c.outcome === "ok").length, refused: late.filter((c) => c.outcome === "refused").length },
      outcomes,
    };
    log(`  ${v.name}: ${row.serverDuringOutage} requests during the outage, ${row.serverTotal} in all; ` +
      `first success at the server ${row.serverRecoveryMs === null ? "never" : `${row.serverRecoveryMs.toFixed(0)} ms`} after the recovery`);
    return row;
  } catch (error) {
    return { id: v.id, name: v.name, config: v.config, error: error.message };
  } finally {
    contender.close();
    await server.close();
  }
}

export async function measureBreaker(settings, { log = () => {} } = {}) {
  const rows = [];
  for (const v of breakerVariants(settings)) rows.push(await run(v, settings, log));
  return { settings, rows };
}
