// (b) Decision cost: computing the delays of one 5-attempt schedule (4 retries; windows
// 500, 1000, 2000, 4000 ms) with no I/O and no timers. Not like for like, and reported so:
// retryline's replay() runs its whole engine (policy validation, admission gate, deadline
// arithmetic, one attempt record per request) and converts JS objects in and out of wasm;
// the peers' functions return bare numbers.
import { replay } from "../js/node.js";
import { ExponentialBackoff, fullJitterGenerator } from "cockatiel";
import { DelayFactory } from "exponential-backoff/dist/delay/delay.factory.js";
import { getSanitizedOptions } from "exponential-backoff/dist/options.js";
import axiosRetry from "axios-retry";
import { compareOps } from "./lib/ops.mjs";

const policy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 4000 };
const failingFive = { policy, outcomes: Array.from({ length: 5 }, () => ({ status: 503 })) };
const succeedingOne = { policy, outcomes: [{ status: 200 }] };
const fullJitterBackoff = new ExponentialBackoff({ initialDelay: 500, maxDelay: 4000, generator: fullJitterGenerator });
const defaultBackoff = new ExponentialBackoff({ initialDelay: 500, maxDelay: 4000 });
const ebOptions = getSanitizedOptions({ startingDelay: 500, maxDelay: 4000, jitter: "full", numOfAttempts: 5 });

function fourDelays(backoff) {
  let b = backoff.next(undefined);
  let sum = b.duration;
  for (let i = 0; i < 3; i++) {
    b = b.next(undefined);
    sum += b.duration;
  }
  return sum;
}

export const cases = [
  {
    id: "retryline-replay-5",
    name: "retryline replay(), 5 attempts all 503",
    computes: "4 full-jitter delays + gate/deadline checks + 5 attempt records, in and out of wasm",
    fn: () => replay(failingFive).records.length,
  },
  {
    id: "retryline-replay-1",
    name: "retryline replay(), 1 attempt 200 (fixed cost)",
    computes: "no delay: the call's fixed cost (spec conversion, engine set-up, 1 record back)",
    fn: () => replay(succeedingOne).records.length,
  },
  {
    id: "cockatiel-full",
    name: "cockatiel ExponentialBackoff, fullJitterGenerator",
    computes: "4 full-jitter delays (numbers only)",
    fn: () => fourDelays(fullJitterBackoff),
  },
  {
    id: "cockatiel-default",
    name: "cockatiel ExponentialBackoff, default (decorrelated)",
    computes: "4 decorrelated-jitter delays (numbers only)",
    fn: () => fourDelays(defaultBackoff),
  },
  {
    id: "exponential-backoff",
    name: "exponential-backoff DelayFactory(…).jitteredDelay",
    computes: "4 full-jitter delays (numbers only; internal module, deep import)",
    fn: () => {
      let sum = 0;
      for (let attempt = 1; attempt <= 4; attempt++) sum += DelayFactory(ebOptions, attempt).jitteredDelay;
      return sum;
    },
  },
  {
    id: "axios-retry",
    name: "axios-retry exponentialDelay(n, undefined, 250)",
    computes: "4 delays 500-4000 ms + 0-20 % (numbers only; no cap option)",
    fn: () => {
      let sum = 0;
      for (let n = 1; n <= 4; n++) sum += axiosRetry.exponentialDelay(n, undefined, 250);
      return sum;
    },
  },
  {
    id: "formula",
    name: "hand-written formula (floor)",
    computes: "4 × Math.random() * Math.min(4000, 500 * 2 ** n)",
    fn: () => {
      let sum = 0;
      for (let n = 0; n < 4; n++) sum += Math.random() * Math.min(4000, 500 * 2 ** n);
      return sum;
    },
  },
];

/** Peers whose delay computation is not reachable from outside. */
export const notComparable = [
  { name: "p-retry", why: "calculateDelay() is internal (not exported)" },
  { name: "ky", why: "the default delay is an internal arrow function; the package's exports map blocks deep imports" },
  { name: "fetch-retry", why: "the delay is the caller's own retryDelay function" },
];

export async function measureDecisions({ rounds = 5, msPerRound = 200 } = {}) {
  return (await compareOps(cases, { rounds, msPerRound })).map((r) => ({
    id: r.id,
    name: r.name,
    computes: r.computes,
    opsPerSecond: r.opsPerSecond,
    nsPerOp: 1e9 / r.opsPerSecond,
    minOps: r.minOps,
    maxOps: r.maxOps,
  }));
}
