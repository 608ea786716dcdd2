// One process of a fleet (tests/js/fleet.test.mjs, bench/fleet.mjs): its own Budget, kept in Redis
// unless `redis` is null, and its own client. The job comes as JSON in argv[2]; the result is one
// line of JSON on stdout. "flood" sends as fast as the budget lets it for `ms` (`inFlight` calls at
// a time), "once" sends one.
import { Budget, RetryClient, RetryError } from "../../../js/node.js";

const job = JSON.parse(process.argv[2]);
const budget = new Budget({ ...job.limits, share: job.share, ...(job.redis ? { redis: job.redis } : {}) });
const client = new RetryClient({ budget, policy: job.policy });
// The fleet starts together (its connections made meanwhile), as processes already running would.
if (job.startAt) await new Promise((r) => setTimeout(r, Math.max(0, job.startAt - Date.now())));
const started = performance.now();
process.stderr.write("began\n"); // the test's cue: this process is at work now
// Each request tagged with this process, so that the server's count says who sent what.
const tagged = Object.assign(new URL(job.url), { search: `pid=${process.pid}` }).href;
// The control timer: how late this process's event loop ran, so that a wall-clock bound is judged
// against what the machine allowed in the same run.
let lagMs = 0;
let tick = performance.now();
const control = setInterval(() => {
  const at = performance.now();
  lagMs = Math.max(lagMs, at - tick - 20);
  tick = at;
  note(); // a spell unreachable between two calls' ends is seen too
}, 20);

/** The budget's sharing as it changed: [ms since start, state, wall ms]. */
const sharings = [];
const note = () => {
  const state = budget.sharing;
  if (sharings.at(-1)?.[1] !== state) sharings.push([Math.round(performance.now() - started), state, Date.now()]);
};

async function call() {
  const t0 = performance.now();
  try {
    const response = await client.fetch(tagged);
    await response.arrayBuffer();
    return { ms: performance.now() - t0, status: response.status };
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    return { ms: performance.now() - t0, reason: error.reason };
  }
}

let result;
if (job.mode === "once") {
  const outcome = await call();
  note();
  result = { ...outcome, sharing: budget.sharing, snapshot: budget.snapshot() };
} else {
  const until = started + job.ms;
  const refused = {};
  let sent = 0;
  let longestMs = 0;
  note();
  // `inFlight` calls at a time (default 1), each followed by the next as it settles.
  const loop = async () => {
    while (performance.now() < until) {
      const outcome = await call();
      note();
      longestMs = Math.max(longestMs, outcome.ms);
      if (outcome.reason === undefined) sent++;
      else {
        refused[outcome.reason] = (refused[outcome.reason] ?? 0) + 1;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: job.inFlight ?? 1 }, loop));
  result = { sent, refused, longestMs: Math.round(longestMs), sharing: budget.sharing, sharings };
}
clearInterval(control);
Object.assign(result, { lagMs: Math.round(lagMs), pid: process.pid });
budget.free(); // closes the Redis connection it made, so the process can exit
process.stdout.write(`${JSON.stringify(result)}\n`);
