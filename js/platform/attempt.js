// One request on the wire (an attempt, a hedge) or a reconciliation's status query, as a machine
// sends it: made with an AbortController of its own, its head (and, with readBody, its body) read,
// and what came of it told to `on`. Its timeout is the machine's; nothing here throws.

import { describe, kind } from "./describe.js";
import { FULFILLED, REJECTED, follow } from "./race.js";
import { Received, face, head, isBytes, readBody } from "./response.js";
import { quietly } from "./telemetry.js";

let timedOut;
/** One reason for every request a machine's timer cut (a new DOMException each time was a tenth of
 * the work of expiring 20 000 calls at once). */
function timeoutReason() {
  try {
    timedOut ??= new DOMException("retryline: the attempt's time ran out", "TimeoutError");
  } catch {
    timedOut = "TimeoutError";
  }
  return timedOut;
}

/** Aborts a controller of ours: with our shared TimeoutError when the machine's timer cut it. */
export function abortWith(controller, timeout) {
  try {
    if (timeout) controller.abort(timeoutReason());
    else controller.abort();
  } catch {}
}

// A page or a worker of one: there the HTTP cache holds a second GET of a URL until the first one
// ends (Chromium's cache lock), so a hedge skips the cache. Not elsewhere: workerd may refuse `cache`.
const BROWSER = typeof window === "object" || typeof importScripts === "function";

/** fetch's arguments for a request of the call (a hedge past the browser's cache), carrying
 * `traceparent` when its span has one. */
function argumentsFor(template, signal, hedge, traceparent) {
  const args = template.forAttempt(signal, traceparent);
  if (!hedge || !BROWSER || args[1]?.cache !== undefined) return args;
  return [args[0], { ...args[1], cache: "no-store" }];
}

function controller() {
  try {
    return new AbortController();
  } catch {
    return null;
  }
}

/** Sends one request of `call` (`{ template, fetch, header, waits }`); `on` hears what comes of it:
 * `headed()` (its body is being read), `response(head, received)`, `failed(words)`. `trace`: its
 * span's `{ traceparent, context }` (the fetch runs in that context, the platform's own fetch
 * instrumentation silenced), or undefined. Returns the flight: `{ controller, received, done,
 * settled }` (`done`: aborted, its answer to be dropped). */
export function attempt(call, hedge, wantBody, trace, on) {
  const flight = { controller: controller(), received: undefined, done: false, settled: false };
  if (flight.controller === null) return (on.failed("no AbortController could be made"), flight);
  let called;
  try {
    const args = argumentsFor(call.template, flight.controller.signal, hedge, trace?.traceparent);
    const f = call.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("there is no global fetch");
    // `this` is the global object: some platform fetches throw "Illegal invocation" otherwise.
    const send = () => (args[1] === undefined ? f.call(globalThis, args[0]) : f.call(globalThis, args[0], args[1]));
    called = trace === undefined ? send() : quietly(trace.context, send);
  } catch (error) {
    // Counted as sent: an order is safer called unknown than repeated.
    return (on.failed(describe(error)), flight);
  }
  follow(called, ([how, value]) => answered(call, flight, how, value, wantBody, on));
  return flight;
}

/** What fetch settled with: a response's head (then its body, with readBody), or a failure. */
function answered(call, flight, how, value, wantBody, on) {
  flight.settled = true;
  if (flight.done) {
    // Aborted (lost its race, timed out): its answer is dropped, its body freed.
    if (how === FULFILLED) new Received(value, flight.controller).discard();
    return;
  }
  if (how === REJECTED) return on.failed(describe(value));
  const read = head(value, call.header, call.waits);
  if (read.broken !== undefined) return on.failed(read.broken);
  if (!wantBody) return on.response(read, (flight.received = new Received(value, flight.controller)));
  const body = readBody(value);
  if (body.broken !== undefined) return on.failed(body.broken);
  on.headed();
  follow(body.reading, ([how, bytes]) => {
    if (flight.done) return;
    if (how === REJECTED) return on.failed(`the response body failed: ${describe(bytes)}`);
    if (!isBytes(bytes)) return on.failed(`the response body resolved with ${kind(bytes)}, not bytes`);
    const view = face(value);
    if (view.broken !== undefined) return on.failed(view.broken);
    on.response(read, (flight.received = Received.rebuilt(value, read.status, view, bytes)));
  });
}

/** Runs the caller's status query `query` for attempt `attempt` of a reconciliation: `on.answer(
 * evidence, words)` (a query that throws or rejects is a failed attempt, like a network error), or
 * `on.broke(error)` when it resolves with anything but one of `names` or a key of `statuses` (a
 * Map of the provider's words to them). Returns the flight. */
export function statusQuery(query, attempt, names, statuses, on) {
  const flight = { controller: controller(), received: undefined, done: false, settled: false };
  if (flight.controller === null) return (on.answer(undefined, "no AbortController could be made"), flight);
  let asked;
  try {
    asked = query({ attempt, signal: flight.controller.signal });
  } catch (error) {
    return (on.answer(undefined, describe(error)), flight);
  }
  follow(asked, ([how, value]) => {
    flight.settled = true;
    if (flight.done) return;
    if (how === REJECTED) return on.answer(undefined, describe(value));
    if (typeof value === "string" && statuses?.has(value)) value = statuses.get(value);
    if (typeof value !== "string" || !names.includes(value)) {
      const list = names.map((n) => `"${n}"`).join(", ");
      // The value itself where it is a word (a provider's own status, e.g. "FILLED"): the caller maps it.
      const got = typeof value === "string" ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : kind(value);
      const mapped = statuses === undefined ? "map the provider's statuses to these, or pass them as options.statuses" : `nor a key of options.statuses (${[...statuses.keys()].join(", ")})`;
      return on.broke(new TypeError(`reconcile: the query must resolve to one of ${list}, got ${got}: ${mapped}`));
    }
    on.answer(value, undefined);
  });
  return flight;
}
