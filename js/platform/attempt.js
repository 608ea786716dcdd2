// One attempt on the wire: the request, its timeout, and what came back. The timeout covers
// connect and headers; with readBody, the body too (read here, inside the timeout, and rebuilt).
// The timeout is our timer racing the platform's promises: a fetch or a body that ignores its
// AbortSignal still loses. Nothing here throws.

import { describe, kind } from "./describe.js";
import { ABORTED, REJECTED, TIMEOUT, aborted, clear, follow, timer } from "./race.js";
import { Received, face, head, isBytes, readBody } from "./response.js";

let timedOut;
/** One reason for every attempt our timers cut (a new DOMException each time was a tenth of the
 * work of expiring 20 000 calls at once). */
function timeoutReason() {
  try {
    timedOut ??= new DOMException("retryline: the attempt's time ran out", "TimeoutError");
  } catch {
    timedOut = "TimeoutError";
  }
  return timedOut;
}

/** Aborts a controller of ours: with our shared TimeoutError when our timer cut it. */
export function abortWith(controller, timeout) {
  try {
    if (timeout) controller.abort(timeoutReason());
    else controller.abort();
  } catch {}
}

/** What one attempt produced: `{ transmitted, observed, head, response, error, pending }`;
 * `observed` is "response", "timeout", "network-error" or "aborted". */
const broken = (error) => ({ transmitted: true, observed: "network-error", error });
const cut = (why, pending) => ({ transmitted: true, observed: why === ABORTED ? "aborted" : "timeout", pending });

/** The provider wait headers read by default: Retry-After, and the reset headers as `[index, name]`
 * (the core's list, src/retry_after.rs; filled once by the api). A family may narrow them. */
export const defaultWaits = { retryAfter: true, reset: [] };

/** Sends one attempt through `fetch` (undefined: the global one, looked up now) and waits for
 * its response, and its body with `wantBody`, for at most `limitMs`. `controller` is the call's
 * AbortController if no earlier attempt had to abort it (its signal costs microseconds to make);
 * the result's `controller` is the one to reuse, null once aborted. */
export function send(fetch, template, limitMs, signals, weightHeader, wantBody, controller, waits = defaultWaits) {
  if (signals.length > 0 && aborted(signals)) return Promise.resolve({ transmitted: false, controller });
  if (controller === null) {
    try {
      controller = new AbortController();
    } catch {
      return Promise.resolve({ ...broken("no AbortController could be made"), controller: null });
    }
  }
  return new Promise((resolve) => new InFlight(resolve, fetch, template, limitMs, signals, weightHeader, wantBody, controller, waits));
}

/** One attempt between its sending and its result: one promise, one timer, no async frames (a
 * pending call holds this much, and 100 000 may be pending). */
class InFlight {
  constructor(resolve, fetch, template, limitMs, signals, weightHeader, wantBody, controller, waits) {
    this.resolve = resolve;
    this.waits = waits;
    this.controller = controller;
    this.signals = signals;
    this.weightHeader = weightHeader;
    this.wantBody = wantBody;
    this.done = false;
    this.reading = null; // the response whose body is being read
    this.timer = null;
    this.onAbort = null;
    let args;
    try {
      args = template.forAttempt(controller.signal);
    } catch (error) {
      // Counted as sent: never seen in practice, and an order is safer called unknown than repeated.
      return void this.finish(broken(`the request could not be rebuilt: ${describe(error)}`));
    }
    let called;
    try {
      const f = fetch ?? globalThis.fetch;
      if (typeof f !== "function") throw new TypeError("there is no global fetch");
      // `this` is the global object: some platform fetches throw "Illegal invocation" otherwise.
      called = args[1] === undefined ? f.call(globalThis, args[0]) : f.call(globalThis, args[0], args[1]);
    } catch (error) {
      return void this.finish(broken(describe(error)));
    }
    // Our timer and the caller's abort race the platform's promise, whether or not it honours its signal.
    this.timer = timer(() => this.cut(TIMEOUT), limitMs);
    if (this.timer === null) return void this.cut(TIMEOUT); // a wait we cannot bound is not waited
    if (signals.length > 0) {
      this.onAbort = () => this.cut(ABORTED);
      for (const signal of signals) {
        try {
          signal.addEventListener("abort", this.onAbort);
        } catch {}
      }
      // Aborted while fetch was being called: no event will come for that.
      if (aborted(signals)) return void this.cut(ABORTED);
    }
    follow(called, (answer) => this.answered(answer));
  }

  answered([how, value]) {
    if (this.done) return;
    if (how === REJECTED) return this.finish(broken(describe(value)));
    const read = head(value, this.weightHeader, this.waits);
    if (read.broken !== undefined) return this.finish(broken(read.broken));
    if (!this.wantBody) return this.finish({ transmitted: true, observed: "response", head: read, response: new Received(value, this.controller) });
    const body = readBody(value);
    if (body.broken !== undefined) return this.finish(broken(body.broken));
    this.reading = value;
    follow(body.reading, (bytes) => this.read(value, read, bytes));
  }

  read(value, read, [how, bytes]) {
    if (this.done) return;
    if (how === REJECTED) return this.finish(broken(`the response body failed: ${describe(bytes)}`));
    if (!isBytes(bytes)) return this.finish(broken(`the response body resolved with ${kind(bytes)}, not bytes`));
    const view = face(value);
    if (view.broken !== undefined) return this.finish(broken(view.broken));
    this.finish({ transmitted: true, observed: "response", head: read, response: Received.rebuilt(value, read.status, view, bytes) });
  }

  /** Our timer or the caller's abort came first: the request (or its body) is aborted. */
  cut(why) {
    if (this.done) return;
    abortWith(this.controller, why !== ABORTED);
    this.finish({ ...cut(why, this.reading === null ? "response" : "body"), aborted: true });
  }

  finish(result) {
    this.done = true;
    clear(this.timer);
    if (this.onAbort !== null) {
      for (const signal of this.signals) {
        try {
          signal.removeEventListener("abort", this.onAbort);
        } catch {}
      }
    }
    result.controller = result.aborted ? null : this.controller;
    this.resolve(result);
  }
}
