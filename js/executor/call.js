// Carries out one call's machine (src/call through js/core/calls.js): it does what each effect
// says — a request, an abort, the caller's predicate, a report, and, through ./beyond.js where the
// entry has them, a store call, a status query or a step on a shared budget — and feeds back what
// happened (./drive.js). It decides nothing.

import { FULFILLED, REJECTED, aborted, follow } from "../platform/race.js";
import { describe } from "../platform/describe.js";
import { abortWith, attempt } from "../platform/attempt.js";
import { tell } from "../platform/observers.js";
import { disarm, driven, feed } from "./drive.js";
import { keep, markStale, served } from "../platform/kept.js";
import { wall } from "../platform/clock.js";
import { copies, followSignal, joinRun, release, runsOf, takersOf } from "./coalesced.js";
import { SEND, ABORT, ASK, REPORT, DONE, READ_BODY, WAKE, KEEP, LOOK_STALE, RELEASE, RETRYING, GONE, SUCCESS, FAILED, BODY_THREW, RUNNING, STALE, CARRIED } from "../core/calls.js";

/** Runs prepared call `call` (js/api/retry-client.js made it) to its settling. */
export function run(call) {
  // The core joined it to the same read running: it waits on that one's outcome.
  if (call.caller > 0) return joined(call, joinRun(call));
  return new Promise((resolve, reject) => {
    Object.assign(call, driven(call.c.core.calls, perform), { resolve, reject, flights: new Map(), last: undefined });
    runsOf(call.c.core).set(call.handle, call);
    const { signals } = call;
    if (signals.length > 0) {
      call.onAbort = () => feed(call, (m, h, t, w) => m.abort(h, t, w));
      for (const signal of signals) {
        try {
          signal.addEventListener("abort", call.onAbort);
        } catch {}
      }
    }
    const news = () => feed(call, (m, h, t, w) => m.news(h, t, w));
    call.unlisten = call.c.budget.shared?.listen?.(news);
    // A freed slot of maxInFlight in this realm: the budget lets through whom it ranks first.
    call.hearRoom = news;
    call.c.budget.ears.add(news);
    // The first step waits for the caller's task to end: the deadline counts from the call, and a
    // request is not sent at once only to leave the process after a busy task has run out its time.
    const first = signals.length > 0 && aborted(signals) ? (m, h, t, w) => m.abort(h, t, w) : (m, h, t, w) => m.go(h, t, w);
    Promise.resolve().then(() => feed(call, first));
  });
}

function perform(call, effect) {
  switch (effect.type) {
    case SEND: {
      const n = effect.attempt;
      const trace = call.watch?.sent(n, effect.hedge);
      const flight = attempt(call, effect.hedge, effect.readBody, trace, {
        headed: () => feed(call, (m, h, t, w) => m.headed(h, t, w, n)),
        response: (head, received) => {
          const earlier = call.last;
          call.last = received;
          // A fetch that hands back one object for every attempt keeps its body.
          if (earlier !== undefined && earlier.original !== received.original) earlier.discard();
          feed(call, (m, h, t, w) => m.response(h, t, w, n, head));
        },
        failed: (words) => feed(call, (m, h, t, w) => m.failed(h, t, w, n, "network-error", words)),
      });
      return void call.flights.set(n, flight);
    }
    case ABORT: {
      const flight = call.flights.get(effect.attempt);
      if (flight === undefined || flight.done) return;
      flight.done = true;
      return abortWith(flight.controller, effect.timedOut);
    }
    case ASK:
      return ask(call, effect);
    case REPORT:
      call.watch?.reported(effect.records);
      call.c.budget.events.look();
      tell([call.c.onAttempt, call.onAttempt], effect.records, (records) => label(call, records));
      for (const { call: joined } of call.joiners?.values() ?? []) {
        tell([joined.c === call.c ? undefined : joined.c.onAttempt, joined.onAttempt], effect.records, (records) => label(joined, records, true));
      }
      return;
    case RELEASE:
      return release(call, effect, label);
    case RETRYING:
      return call.watch?.retrying(effect.record, effect.after);
    case DONE:
      return settle(call, effect);
    case WAKE:
      return wake(call.c.budget.ears);
    case KEEP:
      return void (call.keep = effect.key);
    case LOOK_STALE: {
      call.staleKey = effect.key;
      const at = call.c.kept.get(effect.key)?.at;
      return feed(call, (m, h, t, w) => m.staleKept(h, t, w, effect.seq, at));
    }
    case READ_BODY:
      call.body = call.template.buffer();
      return follow(call.body.done, ([, [how, value]]) => {
        if (how === REJECTED) call.bodyError = value;
        feed(call, (m, h, t, w) => m.bodyRead(h, t, w, how === FULFILLED));
      });
    case GONE:
      return abandon(call, new TypeError("retryline: the client or its budget was freed while the call ran"));
    default:
      // A store call, a status query, a step on a shared budget: none comes from the lean entry's core.
      return call.c.beyond.perform(call, effect, abandon);
  }
}

/** A joined caller's watch ends with its outcome (its span marked joined: the requests are the
 * first caller's). */
function joined(call, outcome) {
  if (call.watch === undefined) return outcome;
  call.watch.spans?.guard.run(() => call.watch.spans.parent?.setAttribute("retryline.joined", true));
  outcome.then(
    () => call.watch.ended("success"),
    (error) => call.watch.ended(error instanceof call.c.RetryError ? error.reason : null, Array.isArray(error?.records) ? error.records : undefined, error),
  );
  return outcome;
}

/** Every machine of the budget looks again, after the step that freed the slot has run out. */
function wake(ears) {
  queueMicrotask(() => {
    for (const ear of [...ears]) ear();
  });
}

/** Puts the retry to the caller's `shouldRetry`, with the attempt it follows. */
function ask(call, { seq, record, error }) {
  let cause;
  if (error !== null && error !== undefined) {
    cause = new Error(error);
    if (record.outcome === "timeout") cause.name = "TimeoutError";
  }
  const response = call.flights.get(record.attempt)?.received?.original;
  const context = { attempt: record.attempt, status: record.status ?? undefined, error: cause, response, record: label(call, [record])[0] };
  const answer = (yes, threw) => feed(call, (m, h, t, w) => m.answered(h, t, w, seq, yes, threw));
  let asked;
  try {
    asked = call.shouldRetry(context);
  } catch (thrown) {
    return answer(false, describe(thrown));
  }
  follow(asked, ([how, value]) => answer(how === FULFILLED && value !== false, how === REJECTED ? describe(value) : undefined));
}

/** Each record says which endpoint family its call ran under (null: the client's defaults), and
 * whether the call joined another's (coalesce). */
function label(call, records, joined = false) {
  if ((call.family === undefined && !joined) || !Array.isArray(records)) return records;
  for (const record of records) {
    if (call.family !== undefined) record.family = call.family;
    if (joined) record.joined = true;
  }
  return records;
}

/** The call is over before its machine said so (a status query that broke its contract, a machine
 * freed under it): it rejects with `error`. */
function abandon(call, error) {
  if (call.done) return;
  end(call);
  call.watch?.ended(null, undefined, error);
  for (const taker of takersOf(call)) taker.reject(error);
}

/** Lets go of everything the call holds: its timer, listeners, request body, lock, machine. */
function end(call) {
  call.done = true;
  runsOf(call.c.core).delete(call.handle);
  disarm(call);
  call.unlisten?.();
  call.c.budget.ears.delete(call.hearRoom);
  for (const signal of call.onAbort === undefined ? [] : call.signals) {
    try {
      signal.removeEventListener("abort", call.onAbort);
    } catch {}
  }
  call.body?.cancel();
  call.c.beyond?.end(call);
  for (const flight of call.flights.values()) {
    if (flight.done || flight.settled) continue;
    flight.done = true;
    abortWith(flight.controller, false);
  }
  call.c.core.calls.free(call.handle);
}

/** The call is over: everything it holds let go, each of its callers answered. */
function settle(call, done) {
  end(call);
  if (call.watch !== undefined) watched(call, done);
  answer(call, done);
}

/** Tells the call's watch how it ended; an unknown outcome's span is kept for its reconciliation. */
function watched(call, { how, json }) {
  if (how === SUCCESS || how === CARRIED) return call.watch.ended("success");
  if (how === BODY_THREW || how === RUNNING) return call.watch.ended(null, undefined, how === BODY_THREW ? call.bodyError : new TypeError("the key is running"));
  let out;
  try {
    out = JSON.parse(json);
  } catch {
    return call.watch.ended(null);
  }
  // A reconciliation's result: what it found, or that it could not.
  const reason = how === FAILED || how === STALE ? out.reason : out.resolved === false ? "unknown-outcome" : "success";
  call.watch.ended(reason, out.records);
  if (reason === "unknown-outcome" && call.key !== undefined) linkLater(call.c.unknownSpans, call.key, call.watch.spans?.spanContext());
}

/** Keeps `context` under `key`, the oldest let go past 256 (a reconciliation links to it). */
function linkLater(spans, key, context) {
  if (context === undefined) return;
  spans.delete(key);
  spans.set(key, context);
  if (spans.size > 256) spans.delete(spans.keys().next().value);
}

/** Answers each of the call's callers. */
function answer(call, { how, attempt: winner, json, escalated, ageMs }) {
  const { c } = call;
  const takers = takersOf(call);
  if (how === SUCCESS || how === CARRIED) {
    const received = how === CARRIED ? undefined : call.flights.get(winner)?.received ?? call.last;
    const alone = takers.length === 1 && !takers[0].joined;
    // Another tab's answer, carried here; else the winning request's.
    const response = how === CARRIED ? c.beyond?.carried(call.carried) : received?.forCaller(alone ? call.signals : []);
    if (call.keep !== undefined && response !== undefined) keep(c.kept, call.keep, response, wall());
    c.beyond?.carryOut(call, response);
    if (alone || response === undefined) return void takers.forEach((taker) => taker.resolve(response));
    const each = copies(response, takers.length);
    return takers.forEach((taker, i) => {
      if (each[i] === undefined) return taker.reject(new TypeError("retryline: the coalesced read's response has no clone(): its fetch's Response cannot be shared"));
      if (received !== undefined && received.controller !== null) followSignal(taker, each[i]);
      taker.resolve(each[i]);
    });
  }
  if (how === BODY_THREW) return call.reject(call.bodyError);
  const out = JSON.parse(json);
  if (how === RUNNING) return call.reject(new TypeError(out.message));
  if (how !== FAILED && how !== STALE) {
    // A throwing callback must not lose the result.
    if (escalated) tell([c.onEscalation], `[${json}]`);
    return call.resolve(out);
  }
  const entry = how === STALE ? c.kept.get(call.staleKey) : undefined;
  const carried = entry === undefined ? copies(call.last?.forError((url) => c.redact(url, true)), takers.length) : [];
  takers.forEach((taker, i) => {
    const records = label(taker.call, i === 0 ? out.records : JSON.parse(json).records, taker.joined);
    if (entry !== undefined) {
      const response = served(entry, ageMs);
      markStale(response, { ageMs, reason: out.reason, records });
      return taker.resolve(response);
    }
    const details = { response: carried[i], records };
    if (out.key !== undefined) details.key = out.key;
    if (out.cause !== undefined) details.cause = new Error(out.cause);
    taker.reject(new taker.call.c.RetryError(out.reason, out.message, details));
  });
}
