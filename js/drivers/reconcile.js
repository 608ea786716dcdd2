// client.reconcile(key, query, options) and client.resolve(key, state): settling an order whose
// outcome is unknown, by evidence or by hand. The queries are an operation of the core's, fed the
// evidence the caller's query found instead of a status. The deadline is fixed when the call is
// made and bounds every wait: the query (which gets a signal, but may ignore it) and each store call.

import { ABSENT, invalid } from "../core/instance.js";
import { abortWith } from "../platform/attempt.js";
import { describe, kind } from "../platform/describe.js";
import { ABORTED, CUT, DEADLINE, FULFILLED, REJECTED, Race, TIMEOUT, swallow } from "../platform/race.js";
import { Fault, storeOf } from "../platform/store.js";
import { SEND, STOP, cause, faultWords, now, report, sleep, step, wall } from "./steps.js";

/** Reason `store` (or `deadline`/`aborted` when a store call was cut), as a RetryError. */
function storeFailure(run, fault) {
  const { c } = run;
  const { core } = c;
  const reason = fault.detail !== undefined ? "store" : fault.cut === ABORTED ? "aborted" : "deadline";
  const words = c.redact(faultWords(run, fault));
  step(run, core.x.rl_op_cancel(run.op, now(), core.code.reason[reason], core.code.pending[fault.pending]));
  const [len] = core.put([words]);
  core.x.rl_op_note_store_failure(run.op, len);
  core.x.rl_op_error(run.op, 2, -1, 0, len);
  const { message, records, key } = core.json();
  return new c.RetryError(reason, message, { records, key, cause: cause(words) });
}

function begin(client, c, begun, signals) {
  const x = c.core.x;
  return {
    client,
    c,
    op: begun,
    signals,
    deadline: x.rl_op_deadline(begun),
    reported: 0,
    onAttempt: undefined,
    note: undefined,
    reason: undefined,
    n0: 0,
    n1: 0,
  };
}

/** One status query, bounded by `timeoutMs`: `[observed, pending, evidence, error]` for the core. */
async function ask(core, query, attempt, timeoutMs, signals) {
  let controller;
  try {
    controller = new AbortController();
  } catch {
    return ["network-error", undefined, undefined, "no AbortController could be made"];
  }
  const race = new Race(timeoutMs, TIMEOUT, signals);
  let asked;
  try {
    asked = query({ attempt, signal: controller.signal });
  } catch (error) {
    race.end();
    // A query that throws or rejects is a failed attempt, like a network error.
    return ["network-error", undefined, undefined, describe(error)];
  }
  const [how, value] = await race.wait(asked);
  race.end();
  if (how === FULFILLED) {
    const evidence = typeof value === "string" ? core.code.evidence[value] : undefined;
    if (evidence === undefined) {
      const names = core.names.evidence.map((n) => `"${n}"`).join(", ");
      throw new TypeError(`reconcile: the query must resolve to one of ${names}, got ${kind(value)}`);
    }
    return ["response", undefined, evidence, undefined];
  }
  if (how === REJECTED) return ["network-error", undefined, undefined, describe(value)];
  abortWith(controller, value !== ABORTED);
  return [value === ABORTED ? "aborted" : "timeout", "query", undefined, undefined];
}

/** `options` were read by the API: `{ core, signal }` (`core`: what the core checks, its policy). */
export async function reconcile(client, c, t, w, key, query, { core: given, signal: abort }) {
  const { core } = c;
  const x = core.x;
  const [keyLen, optsLen] = core.putValues([key, given]);
  const begun = x.rl_reconcile_begin(c.handle, c.budget.handle, t, w, keyLen, optsLen);
  if (begun === 0) throw invalid(core, core.number(1) === 0 ? "reconcile" : "reconcile options");
  if (typeof query !== "function") {
    x.rl_op_free(begun);
    throw new TypeError("reconcile: query must be a function");
  }
  const run = begin(client, c, begun, abort === undefined ? [] : [abort]);
  try {
    return await reconciled(run, key, query);
  } finally {
    x.rl_op_free(run.op);
  }
}

async function reconciled(run, key, query) {
  const { c } = run;
  const { core } = c;
  const x = core.x;
  const race = new Race(Math.max(0, run.deadline - now()), DEADLINE, run.signals);
  const stored = await storeOf(c).get(key, race);
  race.end();
  if (stored instanceof Fault) throw storeFailure(run, stored);
  const [state] = core.putValues([stored]);
  const found = x.rl_reconcile_saved(run.op, state);
  // Its owner is still submitting it: that operation's own outcome comes first.
  if (found === 1) throw new TypeError(core.text());
  if (found === 2) throw storeFailure(run, new Fault("store-get", core.text()));
  const shared = c.budget.shared;
  if (shared !== null) await shared.enter(run);
  let action = step(run, x.rl_op_start(run.op, now(), wall()));
  if (shared !== null) await shared.leave(run);
  while (action !== STOP) {
    report(run);
    if (action === SEND) {
      const [observed, pending, evidence, error] = await ask(core, query, run.n0, run.n1, run.signals);
      const shared = c.budget.shared;
      if (shared !== null) await shared.enter(run);
      const [errorLen] = core.put([error === undefined ? undefined : c.redact(error)]);
      const code = x.rl_op_outcome(run.op, now(), wall(), core.code.observed[observed], 0, ABSENT, ABSENT, errorLen,
        pending === undefined ? -1 : core.code.pending[pending], -1, evidence ?? -1, -1, ABSENT);
      action = step(run, code);
      if (shared !== null) await shared.leave(run);
    } else action = await sleep(run);
  }
  // Not cut by the caller's abort: what was learnt is kept.
  const keep = new Race(Math.max(0, run.deadline - now()), DEADLINE);
  let fault = null;
  let storeError;
  const now2 = await storeOf(c).get(key, keep);
  if (now2 instanceof Fault) fault = now2;
  else {
    const [held] = core.putValues([now2]);
    const kept = x.rl_reconcile_kept(run.op, held);
    if (kept === 1) fault = await storeOf(c).delete(key, keep);
    else if (kept === 2) fault = await storeOf(c).set(key, core.text(), keep);
    else if (kept === 3) storeError = core.text();
  }
  keep.end();
  if (fault !== null) storeError = faultWords(run, fault);
  if (storeError !== undefined) storeError = c.redact(storeError);
  report(run);
  const [errorLen] = core.put([storeError]);
  const escalated = x.rl_reconcile_result(run.op, errorLen) === 1;
  const text = core.text();
  if (escalated && c.onEscalation !== undefined) {
    // A throwing callback must not lose the result.
    try {
      const returned = c.onEscalation(JSON.parse(text));
      if (returned !== null && (typeof returned === "object" || typeof returned === "function")) swallow(returned);
    } catch {}
  }
  return JSON.parse(text);
}

export async function resolve(client, c, t, w, key, state) {
  const { core } = c;
  const x = core.x;
  const [keyLen, stateLen] = core.putValues([key, state ?? null]);
  const begun = x.rl_resolve_begin(c.handle, c.budget.handle, t, w, keyLen, stateLen);
  if (begun === 0) throw invalid(core, "resolve");
  const run = begin(client, c, begun, []);
  try {
    // Each store call is bounded like one attempt of the client's policy.
    const race = new Race(Math.max(0, run.deadline - now()), DEADLINE);
    try {
      const stored = await storeOf(c).get(key, race);
      if (stored instanceof Fault) throw storeFailure(run, stored);
      const [held] = core.putValues([stored]);
      const found = x.rl_reconcile_saved(run.op, held);
      if (found === 1) throw new TypeError(core.text());
      if (found === 2) throw storeFailure(run, new Fault("store-get", core.text()));
      const fault = await storeOf(c).delete(key, race);
      if (fault !== null) throw storeFailure(run, fault);
    } finally {
      race.end();
    }
    x.rl_reconcile_result(run.op, ABSENT);
    return core.json();
  } finally {
    x.rl_op_free(run.op);
  }
}

export { CUT };
