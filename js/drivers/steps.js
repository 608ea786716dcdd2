// What the operation driver and the reconciliation driver share: reading an action the core
// returned, the bounds of a call's waits, records to observers, interrupts, and errors.

import { now, wall } from "../platform/clock.js";
import { ABORTED, CUT, DEADLINE, Race, TIMEOUT, swallow } from "../platform/race.js";

/** Action codes (src/abi/operation.rs). */
export const SEND = 0;
export const SLEEP = 1;
export const STOP = 2;

/** Keeps an action's numbers on the run before the next call into the core overwrites them. */
export function step(run, code) {
  const { core } = run.c;
  run.n0 = core.number(0);
  run.n1 = core.number(1);
  if (code === STOP) run.reason = core.names.reason[run.n0];
  // 4 is "nothing now" (drivers/hedge.js); 3, a handle that is gone.
  if (code === 3) throw new Error("retryline: the operation's state was freed while it ran");
  return code;
}

/** The race of a run's store calls and body reads: its deadline and the caller's abort. */
export function bounds(run, signals = run.signals) {
  return new Race(Math.max(0, run.deadline - now()), DEADLINE, signals);
}

/** Hands each record made since the last report to the client's observer, then to the run's own;
 * each gets its own copy, and what they throw or reject with is ignored. */
export function report(run) {
  const { c } = run;
  if (c.onAttempt === undefined && run.onAttempt === undefined) return;
  const observers = [c.onAttempt, run.onAttempt].filter((f) => f !== undefined);
  const total = c.core.x.rl_op_records(run.op, run.reported);
  if (total <= run.reported) return;
  run.reported = total;
  const text = c.core.text();
  const copies = observers.map(() => label(run, JSON.parse(text)));
  for (let i = 0; i < copies[0].length; i++) {
    for (let k = 0; k < observers.length; k++) {
      try {
        const returned = observers[k](copies[k][i]);
        if (returned !== null && (typeof returned === "object" || typeof returned === "function")) swallow(returned);
      } catch {
        // A throwing observer must not break the operation it observes.
      }
    }
  }
}

/** A plain Error carrying a (redacted) description, for `cause`: never the platform's own object,
 * whose properties may hold what records redact. */
export function cause(text) {
  return new Error(text);
}

/** The stop reason of an operation whose pending step was cut. */
export const cutReason = (why) => (why === ABORTED ? "aborted" : "deadline");

/** What a Fault of the store says, as a record and a message say it. */
export function faultWords(run, fault) {
  if (fault.detail !== undefined) return fault.detail;
  const { core } = run.c;
  core.x.rl_still_pending(core.code.pending[fault.pending], fault.cut);
  return core.text();
}

/** Stops the operation at a step it could not take (`detail`: what the store said); the record says why. */
export function interrupt(run, reason, pending, detail) {
  const { c } = run;
  const { core } = c;
  const x = core.x;
  step(run, x.rl_op_cancel(run.op, now(), core.code.reason[reason], pending === undefined ? -1 : core.code.pending[pending]));
  if (detail !== undefined) {
    const words = c.redact(detail);
    const [len] = core.put([words]);
    x.rl_op_note_store_failure(run.op, len);
    run.lastCause = cause(words);
    run.note = [2, undefined, 0, words];
  } else if (reason === "deadline") run.note = [1, pending, DEADLINE, ""];
}

/** Interrupts on a store Fault: what it said, or the cut that left it pending. */
export function interruptOn(run, fault) {
  if (fault.detail !== undefined) interrupt(run, "store", fault.pending, fault.detail);
  else interrupt(run, cutReason(fault.cut), fault.pending);
}

/** `{ reason, message, records, key }` of a run that stopped without success. */
export function stopped(run) {
  const { core } = run.c;
  const [kind, pending, cut, words] = run.note ?? [0, undefined, TIMEOUT, ""];
  const [len] = core.put([words ?? ""]);
  core.x.rl_op_error(run.op, kind, pending === undefined ? -1 : core.code.pending[pending], cut, len);
  const out = core.json();
  label(run, out.records);
  return out;
}

/** Each record says which endpoint family its call ran under (null: the client's defaults). */
function label(run, records) {
  if (run.family === undefined || !Array.isArray(records)) return records;
  for (const record of records) record.family = run.family;
  return records;
}

/** Sleeps as the core planned, then lets it check its gate again; an abort stops it. */
export async function sleep(call) {
  const { c } = call;
  const x = c.core.x;
  const shared = c.budget.shared;
  // Across tabs, a hold or ban another tab publishes wakes the sleeper early to look at it.
  const news = shared?.news?.() ?? null;
  // Only the caller's abort cuts a sleep: the core planned it to fit the deadline.
  const race = new Race(undefined, DEADLINE, call.signals);
  const [how] = await race.sleep(call.n1, news?.promise ?? null);
  race.end();
  news?.done();
  // Read again: the budget may have gained a twin in another core while this slept (js/core/cores.js).
  const after = c.budget.shared;
  if (after !== null) await after.enter(call);
  const t = now();
  const action = step(call, how === CUT ? x.rl_op_abort(call.op, t) : x.rl_op_wake(call.op, t));
  if (after !== null) await after.leave(call);
  return action;
}

export { now, wall };
