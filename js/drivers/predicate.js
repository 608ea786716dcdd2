// Asks the caller's `policy.shouldRetry` about a retry the core has admitted: it may stop it (a
// false, or a throw), never widen it; the wait for its answer is bounded by the call's deadline.

import { FULFILLED, REJECTED } from "../platform/race.js";
import { describe } from "../platform/describe.js";
import { bounds, now, step } from "./steps.js";

/** The action to take after the predicate: the core's (the retry stands) or a stop (declined). */
export async function asked(call, code) {
  const { core } = call.c;
  const x = core.x;
  // Kept before the predicate runs, which may call into the core.
  const action = [call.n0, call.n1, call.reason];
  const total = x.rl_op_records(call.op, 0xffffffff);
  x.rl_op_records(call.op, total - 1);
  const record = JSON.parse(core.text())[0];
  const context = { attempt: record?.attempt, status: record?.status ?? undefined, error: call.lastCause, response: call.lastResponse?.original, record };
  const race = bounds(call);
  let answer;
  try {
    answer = await race.wait(call.shouldRetry(context));
  } catch (error) {
    answer = [REJECTED, error];
  }
  race.end();
  [call.n0, call.n1, call.reason] = action;
  const [how, value] = answer;
  if (how === FULFILLED && value !== false) return code;
  const threw = how === REJECTED ? `policy.shouldRetry threw: ${describe(value)}` : how === FULFILLED ? undefined : "policy.shouldRetry did not answer before the deadline";
  const [len] = core.put([threw]);
  return step(call, x.rl_op_veto(call.op, now(), len));
}
