// Drives one call's operation (src/machine.rs through src/abi): the core decides send, sleep or
// stop; this turns each decision into a request, a timer or the call's settling. Every wait after
// the call was prepared — store, lease, request body, fetch, response body — races the deadline.

import { send } from "../platform/attempt.js";
import { CUT, REJECTED } from "../platform/race.js";
import { SEND, SLEEP, STOP, bounds, cause, cutReason, interrupt, now, report, sleep, step, stopped, wall } from "./steps.js";

/** Runs a prepared call to its settling: the successful Response, or a RetryError thrown. */
export async function run(call) {
  const { c } = call;
  const x = c.core.x;
  try {
    // The first step waits for the caller's task to end: the deadline counts from the call, and
    // a request is not sent at once only to leave the process after a busy task has run out its time.
    await null;
    if (call.key !== undefined) {
      call.keyed = await c.load.keyed();
      const refused = await call.keyed.claim(call);
      if (refused !== undefined) throw refused;
      // The store failed before anything was sent: settled without touching it again.
      if (call.reason !== undefined) return settleNow(call);
    }
    // Only a body is read before the first attempt: no race (and no timer) without one.
    if (call.template.hasBody()) {
      const race = bounds(call);
      const [how, value] = await call.template.buffer(race);
      race.end();
      // Reading the body failed: rejected with the platform's own error, as fetch would.
      if (how === REJECTED) throw value;
      if (how === CUT) {
        interrupt(call, cutReason(value), "request-body");
        return await settle(call);
      }
    }
    const shared = c.budget.shared;
    if (shared !== null) await shared.enter(call);
    let action = step(call, x.rl_op_start(call.op, now(), wall()));
    if (shared !== null) await shared.leave(call);
    for (;;) {
      // The last records are reported by settle, once the store has had its say.
      if (action === STOP) return await settle(call);
      report(call);
      // Saved before the request leaves and before each sleep, so a restart resumes from here.
      if (call.key !== undefined && (await call.keyed.save(call))) {
        action = STOP;
        continue;
      }
      if (action !== SEND) action = await sleep(call);
      else {
        const hedgeMs = call.hedges > 0 ? x.rl_op_hedge_delay(call.op) : -1;
        if (hedgeMs >= 0) action = await (await c.load.hedge()).hedged(call, hedgeMs, begin, verdict);
        else {
          // Not an async function of its own: a pending call holds one frame less.
          const sent = begin(call, call.n1);
          action = typeof sent === "number" ? sent : await verdict(call, await sent);
        }
        if (call.shouldRetry !== undefined && (action === SEND || action === SLEEP)) action = await (await c.load.predicate()).asked(call, action);
      }
    }
  } finally {
    x.rl_op_free(call.op);
  }
}

/** One attempt on the wire: its result to come, or at once the stop of one that never leaves. */
function begin(call, timeoutMs) {
  const { c } = call;
  const { core } = c;
  const t = now();
  if (t >= call.deadline) {
    // A slow store ate the time: the attempt never leaves.
    const pending = call.key === undefined ? -1 : core.code.pending["store-set"];
    return step(call, core.x.rl_op_cancel(call.op, t, core.code.reason.deadline, pending));
  }
  return send(c.fetch, call.template, Math.min(timeoutMs, call.deadline - t), call.signals, call.header, call.readBody, call.controller, call.waits);
}

/** The core's verdict on an attempt's result, under the budget's lock when it is shared. */
function verdict(call, result) {
  // One AbortController a call while no attempt had to abort one: attempts that answered are done with it.
  call.controller = result.controller;
  const shared = call.c.budget.shared;
  if (shared === null) return attempted(call, result);
  return (async () => {
    await shared.enter(call);
    const action = attempted(call, result);
    await shared.leave(call);
    return action;
  })();
}

/** The core's verdict on an attempt that came back (under the budget's lock when shared). */
function attempted(call, result) {
  const { c } = call;
  const { core } = c;
  const x = core.x;
  const t = now();
  if (!result.transmitted) return step(call, x.rl_op_cancel(call.op, t, core.code.reason.aborted, -1));
  let error = result.error;
  if (error !== undefined) {
    error = c.redact(error);
    call.lastCause = cause(error);
  }
  if (result.response !== undefined) {
    const earlier = call.lastResponse;
    call.lastResponse = result.response;
    // A fetch that hands back one object for every attempt keeps its body.
    if (earlier !== undefined && earlier.original !== result.response.original) earlier.discard();
  }
  const h = result.head;
  const lengths = core.put(h === undefined ? [undefined, undefined, error, undefined] : [h.retryAfter, h.date, error, h.reset?.[1]]);
  const retryAfter = h !== undefined && h.hidden ? 0xfffffffe : lengths[0];
  const code = x.rl_op_outcome(
    call.op, t, wall(), core.code.observed[result.observed], h === undefined ? 0 : h.status, retryAfter, lengths[1], lengths[2],
    result.pending === undefined ? -1 : core.code.pending[result.pending], h === undefined ? -1 : h.used, -1,
    h?.reset === undefined ? -1 : h.reset[0], lengths[3],
  );
  return step(call, code);
}

/** The operation stopped: its state is finished in the store, its records reported, the call settled. */
async function settle(call) {
  if (call.ownsKey) await call.keyed.finish(call);
  return settleNow(call);
}

/** Stops a prepared call before its first step, nothing sent (what it needed to run came too
 * late: `reason` "deadline" or "aborted"), and settles it. */
export async function stopUnsent(call, reason) {
  try {
    interrupt(call, reason);
    return settleNow(call);
  } finally {
    call.c.core.x.rl_op_free(call.op);
  }
}

/** Reports the last records and settles, without touching the store. */
function settleNow(call) {
  const { c } = call;
  report(call);
  const response = call.lastResponse;
  if (call.reason === "success") return response === undefined ? undefined : response.forCaller(call.signals);
  const { reason, message, records, key } = stopped(call);
  const details = { response: response?.forError((url) => c.redact(url, true)), records };
  if (key !== undefined) details.key = key;
  if (call.lastCause !== undefined) details.cause = call.lastCause;
  throw new c.RetryError(reason, message, details);
}
