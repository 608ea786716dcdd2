// A hedged attempt (src/machine/hedge.rs): the request in flight, and after the core's delay with
// no answer a second one; the first usable answer wins and the others are aborted. The core
// decides each hedge (attempts, breaker, holds, deadline, tokens, retry quota) and each outcome.

import { abortWith, send } from "../platform/attempt.js";
import { clear, timer } from "../platform/race.js";
import { SEND, now, report, step } from "./steps.js";

/** The core's code for "nothing now": a hedge refused, or an outcome that waits for another request. */
export const AWAIT = 4;
const HEDGE = Symbol("hedge");

// A page or a worker of one: there the HTTP cache holds a second GET of a URL until the first one
// ends (Chromium's cache lock), so a hedge skips the cache. Not elsewhere: workerd may refuse `cache`.
const BROWSER = typeof window === "object" || typeof importScripts === "function";

/** The call's request, as a hedge sends it. */
function hedgeOf(template) {
  if (!BROWSER) return template;
  return {
    forAttempt(signal) {
      const args = template.forAttempt(signal);
      if (args[1]?.cache !== undefined) return args; // the caller's own cache mode stands
      return [args[0], { ...args[1], cache: "no-store" }];
    },
  };
}

/** Runs the attempt the core just sent, and its hedges, to the core's next action. `begin` sends
 * one request (or returns at once the stop of one that never leaves); `verdict` feeds an outcome. */
export async function hedged(call, delayMs, begin, verdict) {
  const { c } = call;
  const x = c.core.x;
  // The first request's controller must be ours to abort if a hedge wins.
  try {
    call.controller ??= new AbortController();
  } catch {}
  const flights = new Map();
  const first = begin(call, call.n1);
  if (typeof first === "number") return first;
  flights.set(call.n0, { controller: call.controller, result: first });
  let wait = arm(delayMs);
  try {
    for (;;) {
      const racers = [...flights].map(([attempt, f]) => f.result.then((result) => [attempt, result]));
      const next = await Promise.race(wait === null ? racers : [...racers, wait.promise]);
      if (next === HEDGE) {
        wait = await hedge(call, flights);
        continue;
      }
      const [attempt, result] = next;
      flights.delete(attempt);
      x.rl_op_flight(call.op, attempt);
      const action = await verdict(call, result);
      if (action !== AWAIT) return action;
      report(call);
    }
  } finally {
    if (wait !== null) clear(wait.handle);
    // The race is over: the requests still out are aborted (the server sees them go), their answers dropped.
    for (const f of flights.values()) {
      abortWith(f.controller, false);
      f.result.then((result) => result.response?.discard());
    }
  }
}

/** The hedge's timer: a promise that resolves to HEDGE after `ms` (null: no hedge to wait for). */
function arm(ms) {
  if (ms < 0) return null;
  const wait = { handle: null, promise: null };
  wait.promise = new Promise((resolve) => (wait.handle = timer(() => resolve(HEDGE), ms)));
  return wait.handle === null ? null : wait;
}

/** The delay ran out with no answer: the core admits a hedge (under the budget's lock when shared)
 * and it goes; the next hedge's timer, if there is one. */
async function hedge(call, flights) {
  const { c } = call;
  const x = c.core.x;
  const shared = c.budget.shared;
  if (shared !== null) await shared.enter(call);
  const code = step(call, x.rl_op_hedge(call.op, now()));
  const delay = x.rl_op_hedge_delay(call.op);
  if (shared !== null) await shared.leave(call);
  report(call);
  if (code === SEND) {
    let controller = null;
    try {
      controller = new AbortController();
    } catch {}
    const limit = Math.min(call.n1, call.deadline - now());
    const result = send(c.fetch, hedgeOf(call.template), limit, call.signals, call.header, call.readBody, controller, call.waits);
    flights.set(call.n0, { controller, result });
  }
  return arm(delay);
}
