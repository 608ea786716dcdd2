// Carries out one call's machine (src/call through js/core/calls.js): it does what each effect
// says — a request, an abort, a store call, the caller's predicate or status query, a report, a
// step on the shared budget — and feeds back what happened, with one timer armed where the machine
// asks. It decides nothing: no delay, count, order or state is computed here.

import { now, wall } from "../platform/clock.js";
import { FULFILLED, REJECTED, aborted, clear, follow, swallow, timer } from "../platform/race.js";
import { describe } from "../platform/describe.js";
import { abortWith, query, request } from "./request.js";
import { storeCall } from "./store.js";
import { releaseHeld, shareStep } from "./share.js";
import { NONE, SEND, ABORT, GET, SET, DELETE, ASK, QUERY, REPORT, DONE, READ_BODY, GONE, SUCCESS, FAILED, BODY_THREW, RUNNING } from "../core/calls.js";

/** Runs prepared call `call` (js/api/retry-client.js made it) to its settling. */
export function run(call) {
  return new Promise((resolve, reject) => {
    Object.assign(call, { resolve, reject, queue: [], draining: false, timer: null, wakeAt: -1, flights: new Map(), last: undefined, done: false });
    const { signals } = call;
    if (signals.length > 0) {
      call.onAbort = () => feed(call, (calls, h, t, w) => calls.abort(h, t, w));
      for (const signal of signals) {
        try {
          signal.addEventListener("abort", call.onAbort);
        } catch {}
      }
    }
    call.unlisten = call.c.budget.shared?.listen?.(() => feed(call, (calls, h, t, w) => calls.news(h, t, w)));
    // The first step waits for the caller's task to end: the deadline counts from the call, and a
    // request is not sent at once only to leave the process after a busy task has run out its time.
    const first = signals.length > 0 && aborted(signals) ? (calls, h, t, w) => calls.abort(h, t, w) : (calls, h, t, w) => calls.go(h, t, w);
    Promise.resolve().then(() => feed(call, first));
  });
}

/** Feeds one event (`step` makes it) and does what the machine says, then arms its timer. An event
 * that arrives while effects are being done (an abort from an observer) waits its turn. */
export function feed(call, step) {
  if (call.done) return;
  if (call.draining) {
    call.queue.push(step);
    return;
  }
  const { calls } = call.c.core;
  call.draining = true;
  try {
    let effect = step(calls, call.handle, now(), wall());
    for (;;) {
      while (effect.type !== NONE && !call.done) {
        perform(call, effect);
        if (!call.done) effect = calls.poll(call.handle);
      }
      if (call.done) return;
      arm(call, effect.wakeAt);
      const next = call.queue.shift();
      if (next === undefined) return;
      effect = next(calls, call.handle, now(), wall());
    }
  } finally {
    call.draining = false;
  }
}

/** One timer per call, at the instant the machine asks for. */
function arm(call, wakeAt) {
  if (wakeAt === call.wakeAt && (call.timer !== null || wakeAt < 0)) return;
  clear(call.timer);
  call.timer = null;
  call.wakeAt = wakeAt;
  if (wakeAt < 0) return;
  call.timer = timer(() => {
    call.timer = null;
    call.wakeAt = -1;
    feed(call, (calls, h, t, w) => calls.timer(h, t, w));
  }, wakeAt - now());
  // A platform whose timers throw (a test's fakes) cannot bound a wait: the call ends as aborted.
  if (call.timer === null) feed(call, (calls, h, t, w) => calls.abort(h, t, w));
}

function perform(call, effect) {
  switch (effect.type) {
    case SEND:
      return request(call, effect, feed);
    case ABORT: {
      const flight = call.flights.get(effect.attempt);
      if (flight === undefined || flight.done) return;
      flight.done = true;
      return abortWith(flight.controller, effect.timedOut);
    }
    case GET:
    case SET:
    case DELETE:
      return storeCall(call.c, effect, call.key, (answer) => feed(call, (calls, h, t, w) => calls.stored(h, t, w, effect.seq, answer)));
    case ASK:
      return ask(call, effect);
    case QUERY:
      return query(call, effect, feed, abandon);
    case REPORT:
      return report(call, effect.records);
    case DONE:
      return settle(call, effect);
    case READ_BODY:
      return readRequestBody(call);
    case GONE:
      return abandon(call, new TypeError("retryline: the client or its budget was freed while the call ran"));
    default:
      return shareStep(call, effect, (step) => feed(call, (calls, h, t, w) => step(calls, h, t, w)));
  }
}

/** Puts the retry to the caller's `shouldRetry`, with the attempt it follows. */
function ask(call, { seq, record, error }) {
  const response = call.flights.get(record.attempt)?.received?.original;
  let cause;
  if (error !== null && error !== undefined) {
    cause = new Error(error);
    if (record.outcome === "timeout") cause.name = "TimeoutError";
  }
  label(call, [record]);
  const context = { attempt: record.attempt, status: record.status ?? undefined, error: cause, response, record };
  const answer = (yes, threw) => feed(call, (calls, h, t, w) => calls.answered(h, t, w, seq, yes, threw));
  let asked;
  try {
    asked = call.shouldRetry(context);
  } catch (thrown) {
    return answer(false, describe(thrown));
  }
  follow(asked, ([how, value]) => answer(how === FULFILLED && value !== false, how === REJECTED ? describe(value) : undefined));
}

/** Reads the caller's request body once, before the first attempt. */
function readRequestBody(call) {
  call.body = call.template.buffer();
  follow(call.body.done, ([, [how, value]]) => {
    if (how === REJECTED) call.bodyError = value;
    feed(call, (calls, h, t, w) => calls.bodyRead(h, t, w, how === FULFILLED));
  });
}

/** Hands each new record to the client's observer, then to the call's own; each gets its own copy,
 * and what they throw or reject with is ignored. */
function report(call, text) {
  const { c } = call;
  for (const observer of [c.onAttempt, call.onAttempt]) {
    if (observer === undefined) continue;
    for (const record of label(call, JSON.parse(text))) {
      try {
        const returned = observer(record);
        if (returned !== null && (typeof returned === "object" || typeof returned === "function")) swallow(returned);
      } catch {
        // A throwing observer must not break the call it observes.
      }
    }
  }
}

/** Each record says which endpoint family its call ran under (null: the client's defaults). */
export function label(call, records) {
  if (call.family === undefined || !Array.isArray(records)) return records;
  for (const record of records) record.family = call.family;
  return records;
}

/** The call is over before its machine said so (a status query that broke its contract): it rejects with `error`. */
function abandon(call, error) {
  if (call.done) return;
  end(call);
  call.reject(error);
}

/** Lets go of everything the call holds: its timer, listeners, request body, machine. */
function end(call) {
  call.done = true;
  clear(call.timer);
  call.unlisten?.();
  if (call.onAbort !== undefined) {
    for (const signal of call.signals) {
      try {
        signal.removeEventListener("abort", call.onAbort);
      } catch {}
    }
  }
  call.body?.cancel();
  releaseHeld(call);
  for (const flight of call.flights.values()) {
    if (flight.done || flight.settled) continue;
    flight.done = true;
    abortWith(flight.controller, false);
  }
  call.c.core.calls.free(call.handle);
}

/** The call is over: everything it holds let go, the caller answered. */
function settle(call, { how, attempt, json, escalated }) {
  const { c } = call;
  end(call);
  if (how === SUCCESS) {
    const received = call.flights.get(attempt)?.received ?? call.last;
    return call.resolve(received?.forCaller(call.signals));
  }
  if (how === BODY_THREW) return call.reject(call.bodyError);
  const out = JSON.parse(json);
  if (how === RUNNING) return call.reject(new TypeError(out.message));
  if (how !== FAILED) {
    if (escalated && c.onEscalation !== undefined) {
      // A throwing callback must not lose the result.
      try {
        const returned = c.onEscalation(JSON.parse(json));
        if (returned !== null && (typeof returned === "object" || typeof returned === "function")) swallow(returned);
      } catch {}
    }
    return call.resolve(out);
  }
  const details = { response: call.last?.forError((url) => c.redact(url, true)), records: label(call, out.records) };
  if (out.key !== undefined) details.key = out.key;
  if (out.cause !== undefined) details.cause = new Error(out.cause);
  call.reject(new c.RetryError(out.reason, out.message, details));
}
