// One request on the wire as the machine sends it (an attempt, a hedge) or a reconciliation's status
// query: made with an AbortController of its own, its head (and, with readBody, its body) read,
// and what came back fed to the machine. Its timeout is the machine's; nothing here throws.

import { describe, kind } from "../platform/describe.js";
import { FULFILLED, REJECTED, follow } from "../platform/race.js";
import { Received, face, head, isBytes, readBody } from "../platform/response.js";

let timedOut;
/** One reason for every request our timer cut (a new DOMException each time was a tenth of the
 * work of expiring 20 000 calls at once). */
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

/** fetch's arguments for a request of the call (a hedge past the browser's cache). */
function argumentsFor(template, signal, hedge) {
  const args = template.forAttempt(signal);
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

const failed = (call, feed, attempt, words) => feed(call, (calls, h, t, w) => calls.failed(h, t, w, attempt, "network-error", words));

/** Sends request `attempt`, and feeds the machine what comes of it. */
export function request(call, { attempt, hedge, readBody: wantBody }, feed) {
  const flight = { controller: controller(), received: undefined, done: false };
  call.flights.set(attempt, flight);
  if (flight.controller === null) return failed(call, feed, attempt, "no AbortController could be made");
  let called;
  try {
    const args = argumentsFor(call.template, flight.controller.signal, hedge);
    const f = call.c.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("there is no global fetch");
    // `this` is the global object: some platform fetches throw "Illegal invocation" otherwise.
    called = args[1] === undefined ? f.call(globalThis, args[0]) : f.call(globalThis, args[0], args[1]);
  } catch (error) {
    // Counted as sent: an order is safer called unknown than repeated.
    return failed(call, feed, attempt, describe(error));
  }
  follow(called, ([how, value]) => answered(call, feed, attempt, flight, how, value, wantBody));
}

/** What fetch settled with: a response's head (then its body, with readBody), or a failure. */
function answered(call, feed, attempt, flight, how, value, wantBody) {
  flight.settled = true;
  if (flight.done) {
    // Aborted (lost its race, timed out): its answer is dropped, its body freed.
    if (how === FULFILLED) new Received(value, flight.controller).discard();
    return;
  }
  if (how === REJECTED) return failed(call, feed, attempt, describe(value));
  const read = head(value, call.header, call.waits);
  if (read.broken !== undefined) return failed(call, feed, attempt, read.broken);
  if (!wantBody) return received(call, feed, attempt, flight, read, new Received(value, flight.controller));
  const body = readBody(value);
  if (body.broken !== undefined) return failed(call, feed, attempt, body.broken);
  feed(call, (calls, h, t, w) => calls.headed(h, t, w, attempt));
  follow(body.reading, ([how, bytes]) => {
    if (flight.done) return;
    if (how === REJECTED) return failed(call, feed, attempt, `the response body failed: ${describe(bytes)}`);
    if (!isBytes(bytes)) return failed(call, feed, attempt, `the response body resolved with ${kind(bytes)}, not bytes`);
    const view = face(value);
    if (view.broken !== undefined) return failed(call, feed, attempt, view.broken);
    received(call, feed, attempt, flight, read, Received.rebuilt(value, read.status, view, bytes));
  });
}

function received(call, feed, attempt, flight, read, response) {
  flight.received = response;
  const earlier = call.last;
  call.last = response;
  // A fetch that hands back one object for every attempt keeps its body.
  if (earlier !== undefined && earlier.original !== response.original) earlier.discard();
  feed(call, (calls, h, t, w) => calls.response(h, t, w, attempt, read));
}

/** Runs the caller's status query for attempt `attempt` of a reconciliation. A query that throws or
 * rejects is a failed attempt, like a network error; one that resolves with anything but an
 * evidence name ends the reconciliation with a TypeError. */
export function query(call, { attempt }, feed, fail) {
  const flight = { controller: controller(), received: undefined, done: false };
  call.flights.set(attempt, flight);
  const answer = (evidence, words) => feed(call, (calls, h, t, w) => calls.queryAnswer(h, t, w, attempt, evidence, words));
  if (flight.controller === null) return answer(undefined, "no AbortController could be made");
  let asked;
  try {
    asked = call.statusQuery({ attempt, signal: flight.controller.signal });
  } catch (error) {
    return answer(undefined, describe(error));
  }
  follow(asked, ([how, value]) => {
    flight.settled = true;
    if (flight.done || call.done) return;
    if (how === REJECTED) return answer(undefined, describe(value));
    const { names, code } = call.c.core;
    if (typeof value !== "string" || code.evidence[value] === undefined) {
      const list = names.evidence.map((n) => `"${n}"`).join(", ");
      return fail(call, new TypeError(`reconcile: the query must resolve to one of ${list}, got ${kind(value)}`));
    }
    answer(value, undefined);
  });
}
