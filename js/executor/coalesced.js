// The callers of one coalesced read (`coalesce`): the core decided at `begin` that a read joins the
// call running the same request, and decides when each caller leaves (its abort, its own earlier
// deadline) and when the request is aborted. This keeps the joined callers' promises, tells the
// machine when one aborts, and hands each its own copy of the outcome.

import { aborted } from "../platform/race.js";
import { feed } from "./drive.js";

// The runs of each core instance by handle: a read that joined finds the call it joined.
const runs = new WeakMap();

/** The running calls of core instance `core` (js/core/index.js), by handle. */
export function runsOf(core) {
  let found = runs.get(core);
  if (found === undefined) runs.set(core, (found = new Map()));
  return found;
}

/** Waits, as prepared call `call`, on the call it joined: its outcome, or its own release. */
export function joinRun(call) {
  const leader = runsOf(call.c.core).get(call.handle);
  return new Promise((resolve, reject) => {
    if (leader === undefined || leader.done) return reject(new TypeError("retryline: the coalesced read this call joined is gone"));
    const joiner = { call, resolve, reject, onAbort: undefined };
    leader.joiners ??= new Map();
    leader.joiners.set(call.caller, joiner);
    if (call.signals.length === 0) return;
    joiner.onAbort = () => feed(leader, (m, h, t, w) => m.leave(h, t, w, call.caller));
    for (const signal of call.signals) {
      try {
        signal.addEventListener("abort", joiner.onAbort);
      } catch {}
    }
    if (aborted(call.signals)) joiner.onAbort();
  });
}

/** Everyone the outcome of run `call` goes to: its first caller unless it left, then each joined
 * caller still waiting, as `{ call, resolve, reject, joined }`. */
export function takersOf(call) {
  const takers = call.left === true ? [] : [{ call, resolve: call.resolve, reject: call.reject, joined: false }];
  for (const joiner of call.joiners?.values() ?? []) {
    unlisten(joiner);
    takers.push({ ...joiner, joined: true });
  }
  call.joiners?.clear();
  return takers;
}

/** The core released `caller` of run `call` before the outcome: it rejects with its own
 * `RetryError` (`label` marks its records). */
export function release(call, { caller, json }, label) {
  const out = JSON.parse(json);
  let taker;
  if (caller === 0) {
    call.left = true;
    taker = { call, reject: call.reject, joined: false };
  } else {
    taker = call.joiners?.get(caller);
    if (taker === undefined) return;
    call.joiners.delete(caller);
    unlisten(taker);
    taker = { ...taker, joined: true };
  }
  const { c } = taker.call;
  taker.reject(new c.RetryError(out.reason, out.message, { records: label(taker.call, out.records, taker.joined) }));
}

/** Copies of `response`, one per taker (the first gets `response` itself); a taker whose copy
 * cannot be made (a fetch's Response without `clone`) gets undefined. Each copy's body is a
 * branch of one tee: a caller that never reads its own does not stall the others. */
export function copies(response, count) {
  const out = [response];
  for (let i = 1; i < count; i++) {
    try {
      out.push(response.clone());
    } catch {
      out.push(undefined);
    }
  }
  return out;
}

// A listener on a long-lived signal holds its response only weakly, and goes with the response.
const unlink = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(({ signal, cancel }) => signal.removeEventListener("abort", cancel)) : null;
const weakly = (value) => (typeof WeakRef === "function" ? new WeakRef(value) : { deref: () => value });

/** A taker's copy follows its own signal: its abort cancels its branch, never the others'. */
export function followSignal(taker, response) {
  for (const signal of taker.call.signals) {
    try {
      const held = weakly(response);
      const cancel = () => {
        try {
          held.deref()?.body?.cancel(signal.reason).catch(() => {});
        } catch {}
      };
      if (signal.aborted) cancel();
      else {
        signal.addEventListener("abort", cancel, { once: true });
        unlink?.register(response, { signal, cancel });
      }
    } catch {}
  }
}

function unlisten(joiner) {
  if (joiner.onAbort === undefined) return;
  for (const signal of joiner.call.signals) {
    try {
      signal.removeEventListener("abort", joiner.onAbort);
    } catch {}
  }
}
