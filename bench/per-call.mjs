// Per-call work in Node, without the network: each library wraps an instant stub fetch, so what is
// left is the library's own work per call. Two paths:
//   * success: the stub answers 200 at once;
//   * retry:   the stub answers 503, 503, then 200 — every library configured with zero backoff —
//              so one call is three attempts and two retry decisions.
// Every call's body is read by the caller (`await res.text()`), in every row, the floor included.
//
// The stub: `() => Promise.resolve(new Response("ok", { status }))`, a fresh Response per attempt. A
// pre-built Response handed out as `.clone()` would be cheaper to write but not cheaper to run: each
// clone tees the original's body stream, the original keeps one branch and is cloned again, so the
// chain grows with every call (~110 bytes stay reachable per clone) and a clone plus its read costs
// more than a new Response plus its read (~41 against ~25 µs, measured here). A fresh `new
// Response("ok")` costs the same at every call, and the floor row (the stub alone, body read) is
// exactly that cost, to subtract.
//
// Calls are awaited one after the other; every YIELD_EVERY (100) calls the loop yields to the event
// loop (setImmediate), every row alike (see lib/ops.mjs): Node 20's Request keeps ~1.1 KB until a
// finalizer task runs, which a loop of bare awaits never lets happen. Median µs per call over
// interleaved rounds, wall time and the process's CPU time (steadier when other work shares the
// machine's cores).
import pRetry, { AbortError } from "p-retry";
import ky from "ky";
import { ConstantBackoff, handleAll, retry } from "cockatiel";
import { Budget, RetryClient } from "../js/node.js";
// The strict-CSP entry: the same core as JavaScript (binaryen wasm2js), for its cost per call.
import { Budget as CspBudget, RetryClient as CspClient } from "../js/csp.js";
import { compareAsyncOps, YIELD_EVERY } from "./lib/ops.mjs";
import { telemetryRows } from "./lib/telemetry-rows.mjs";
import { loadFloor } from "./floor.mjs";

// The floor of the package's shape (bench/floor.mjs, bench/floor/driver.js over the core's
// abi-fetch exports): set by measurePerCall before the rows are made.
let shape = null;
let shapeError = "the floor was not built";
const shapeRow = (id, name, config, make) => ({ id, name, config, make: (send) => {
  if (!shape) throw new Error(shapeError);
  return make(send);
} });

const URL_ = "http://127.0.0.1:9/api/v3/time"; // never dialled: the stub answers
/** Issue 24 (as issue 9): at most 15 µs of own work per successful call over the bare stub. */
export const TARGET_US = 15;
/** Issue 31: a successful call over the stub takes at most p-retry's time (same run) + 10 µs. */
export const OVER_P_RETRY_US = 10;
const RETRYABLE = [408, 429, 500, 502, 503, 504];

class HttpStatusError extends Error {
  constructor(status) {
    super(`HTTP ${status}`);
    this.status = status;
  }
}

// The stub of one path. `script` gives the status of the n-th attempt of a call (n from 0); the
// harness calls begin() before each call and check() after it, which throws unless exactly the
// scripted attempts were made and the caller got the 200.
function stubFor(script) {
  let n = 0;
  const fetch = () => Promise.resolve(new Response("ok", { status: script(n++) }));
  return {
    fetch,
    begin: () => (n = 0),
    attempts: () => n,
  };
}
const successScript = () => 200;
const retryScript = (n) => (n < 2 ? 503 : 200);

// p-retry's documented shape: the wrapped call throws on a retryable status (draining the body).
const pRetryCall = (send, options) =>
  pRetry(async () => {
    const res = await send(URL_);
    if (!res.ok) {
      await res.text();
      if (RETRYABLE.includes(res.status)) throw new HttpStatusError(res.status);
      throw new AbortError(new HttpStatusError(res.status));
    }
    return res;
  }, options);

/** The contenders of each path: { id, name, config, make(send) → () => Promise<Response> }. */
export const perCallContenders = {
  success: [
    { id: "stub", name: "bare stub", config: "stub(url)", make: (send) => () => send(URL_) },
    { id: "retryline", name: "retryline", config: "new RetryClient({ fetch: stub })", make: (send) => {
      const client = new RetryClient({ fetch: send });
      return () => client.fetch(URL_);
    } },
    // The default configuration: the platform's fetch (here the stub installed as globalThis.fetch),
    // which is handed a bare URL as it is, with no Request of retryline's.
    { id: "retryline-platform", name: "retryline, the platform's fetch", config: "globalThis.fetch = stub; new RetryClient()", make: (send) => {
      const client = new RetryClient();
      return () => ((globalThis.fetch = send), client.fetch(URL_));
    } },
    ...telemetryRows(RetryClient, URL_, {}),
    { id: "retryline-csp", name: "retryline/csp (the core as JavaScript)", config: "new RetryClient({ fetch: stub }) from retryline/csp", make: (send) => {
      const client = new CspClient({ fetch: send });
      return () => client.fetch(URL_);
    } },
    // What no shell of the package's shape goes below: fetch raced with a timer that aborts its
    // AbortController (no core); the call's machine driven around a bare fetch (no timer, no
    // AbortController); and the least driver of the machine, which has both.
    shapeRow("shape-timeout", "floor: fetch raced with a timer and its AbortController (no core)", "bench/floor/driver.js attempt(stub, url, 10 000)",
      (send) => async () => shape.attempt(send, URL_, 10_000).then(([, res]) => res)),
    shapeRow("shape-core", "floor: the call's machine around fetch (no timer, no AbortController)", "bench/floor/driver.js client({}, {}, { bare: true })(stub, url)",
      (send) => {
        const get = shape.client({}, {}, { bare: true });
        return () => get(send, URL_);
      }),
    shapeRow("shape-decided", "floor of the shape: the call's machine + a minimal JS driver", "bench/floor/driver.js client()(stub, url)",
      (send) => {
        const get = shape.client();
        return () => get(send, URL_);
      }),
    { id: "ky", name: "ky", config: "ky.create({ fetch: stub }).get(url)", make: (send) => {
      const api = ky.create({ fetch: send });
      return () => api.get(URL_);
    } },
    { id: "p-retry", name: "p-retry + stub", config: "pRetry(() => stub(url) /* throws on 5xx */, { retries: 2 })", make: (send) => () => pRetryCall(send, { retries: 2 }) },
    { id: "cockatiel", name: "cockatiel", config: "retry(handleAll.orWhenResult(5xx…), { maxAttempts: 2, backoff: new ConstantBackoff(0) }).execute(() => stub(url))", make: (send) => {
      const policy = retry(handleAll.orWhenResult((r) => RETRYABLE.includes(r.status)), { maxAttempts: 2, backoff: new ConstantBackoff(0) });
      return () => policy.execute(() => send(URL_));
    } },
  ],
  retry: [
    { id: "stub", name: "bare stub × 3", config: "3 × stub(url), each body read", make: (send) => async () => {
      await (await send(URL_)).text();
      await (await send(URL_)).text();
      return send(URL_);
    } },
    { id: "retryline", name: "retryline", timer: "none at 0 ms (its own scheduling)",
      config: "new RetryClient({ fetch: stub, budget: new Budget({ retryQuota: false }), policy: { baseDelayMs: 0, maxDelayMs: 0 } })",
      make: (send) => {
        // The retry quota is off: with it (the default), 2 retries per call spend it in ~55 calls and
        // retryline then (rightly) stops retrying, which is not the path measured here.
        const client = new RetryClient({ fetch: send, budget: new Budget({ retryQuota: false }), policy: { baseDelayMs: 0, maxDelayMs: 0 } });
        return () => client.fetch(URL_);
      } },
    ...telemetryRows(RetryClient, URL_, { budget: () => new Budget({ retryQuota: false }), policy: { baseDelayMs: 0, maxDelayMs: 0 } }),
    { id: "retryline-csp", name: "retryline/csp (the core as JavaScript)", timer: "none at 0 ms (its own scheduling)",
      config: "the same, from retryline/csp",
      make: (send) => {
        const client = new CspClient({ fetch: send, budget: new CspBudget({ retryQuota: false }), policy: { baseDelayMs: 0, maxDelayMs: 0 } });
        return () => client.fetch(URL_);
      } },
    shapeRow("shape-thrice", "floor of the shape: the call's machine + a minimal JS driver", "bench/floor/driver.js client({ policy: { baseDelayMs: 0, maxDelayMs: 0 } }, { retryQuota: false })(stub, url)",
      (send) => {
        const get = shape.client({ policy: { baseDelayMs: 0, maxDelayMs: 0 } }, { retryQuota: false });
        return () => get(send, URL_);
      }),
    { id: "p-retry", name: "p-retry + stub", timer: "none (skips the timer at 0 ms)",
      config: "pRetry(() => stub(url) /* throws on 5xx */, { retries: 2, minTimeout: 0 })",
      make: (send) => () => pRetryCall(send, { retries: 2, minTimeout: 0 }) },
    { id: "ky", name: "ky", timer: "setTimeout(0) per retry (≥ 1 ms in Node)",
      config: "ky.create({ fetch: stub, retry: { limit: 2, delay: () => 0 } }).get(url)",
      make: (send) => {
        const api = ky.create({ fetch: send, retry: { limit: 2, delay: () => 0 } });
        return () => api.get(URL_);
      } },
    { id: "cockatiel", name: "cockatiel", timer: "setTimeout(0) per retry (≥ 1 ms in Node)",
      config: "retry(handleAll.orWhenResult(5xx…), { maxAttempts: 2, backoff: new ConstantBackoff(0) }).execute(() => stub(url))",
      make: (send) => {
        const policy = retry(handleAll.orWhenResult((r) => RETRYABLE.includes(r.status)), { maxAttempts: 2, backoff: new ConstantBackoff(0) });
        return () => policy.execute(() => send(URL_));
      } },
  ],
};

async function measurePath(list, script, attemptsPerCall, { rounds, msPerRound }) {
  const failed = new Map();
  const cases = list.map((c) => {
    const stub = stubFor(script);
    let call;
    try {
      call = c.make(stub.fetch);
    } catch (error) {
      failed.set(c.id, error.message);
      call = () => Promise.reject(error);
    }
    return {
      id: c.id,
      name: c.name,
      config: c.config,
      ...(c.timer ? { timer: c.timer } : {}),
      fn: async () => {
        stub.begin();
        const res = await call();
        const body = await res.text();
        if (res.status !== 200 || body !== "ok" || stub.attempts() !== attemptsPerCall) {
          throw new Error(`${c.name}: expected ${attemptsPerCall} attempts and a 200 "ok", got ${stub.attempts()} and ${res.status} ${JSON.stringify(body)}`);
        }
        return res.status;
      },
    };
  });
  // A contender that fails its first call is left out of the rounds and reported as failed.
  for (const c of cases.filter((c) => !failed.has(c.id))) {
    try {
      await c.fn();
    } catch (error) {
      failed.set(c.id, error.message.split("\n")[0]);
    }
  }
  const measured = await compareAsyncOps(cases.filter((c) => !failed.has(c.id)), { rounds, msPerRound, yieldEvery: YIELD_EVERY });
  const floor = measured.find((r) => r.id === "stub");
  const floorUs = floor ? 1e6 / floor.opsPerSecond : NaN;
  const floorCpuUs = floor?.cpuUsPerCall ?? NaN;
  return cases.map(({ fn, ...c }) => {
    const r = measured.find((m) => m.id === c.id);
    if (!r) return { ...c, error: failed.get(c.id) };
    return {
      ...r,
      usPerCall: 1e6 / r.opsPerSecond,
      usOverFloor: 1e6 / r.opsPerSecond - floorUs,
      cpuUsOverFloor: r.cpuUsPerCall - floorCpuUs,
      // Rounds' range, as µs: the fastest round is the smallest µs.
      usFastest: 1e6 / r.maxOps,
      usSlowest: 1e6 / r.minOps,
    };
  });
}

export async function measurePerCall({ rounds = 5, msPerRound = 300, log = () => {} } = {}) {
  try {
    shape = loadFloor({ log });
  } catch (error) {
    shapeError = `the floor could not be built: ${error.message.split("\n")[0]}`;
    log(`  ${shapeError}`);
  }
  log("  success path");
  // The platform-fetch row installs its stub as globalThis.fetch: the later sections need the real one.
  const platformFetch = globalThis.fetch;
  const success = await measurePath(perCallContenders.success, successScript, 1, { rounds, msPerRound })
    .finally(() => (globalThis.fetch = platformFetch));
  log("  retry path (503, 503, 200; zero backoff)");
  const retried = await measurePath(perCallContenders.retry, retryScript, 3, { rounds, msPerRound });
  return { settings: { rounds, msPerRound, yieldEvery: YIELD_EVERY, stub: 'Promise.resolve(new Response("ok", { status }))' }, success, retry: retried, targetUs: TARGET_US, overPRetryUs: OVER_P_RETRY_US };
}
