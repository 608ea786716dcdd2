// A response as the caller's fetch gave it — a platform Response, a subclass, another library's
// or realm's (undici's) — read with every access guarded. What the core needs of its head is read
// in one pass; the rest of its face only where a response is rebuilt or carried by an error.

import { describe, kind } from "./describe.js";
import { swallow } from "./race.js";

const threw = (part, error) => `reading the response's ${part} threw ${describe(error)}`;

/** The provider wait headers read by default: Retry-After, and the reset headers as `[index, name]`
 * (the core's list, src/retry_after.rs; filled once by the api). A family may narrow them. */
export const defaultWaits = { retryAfter: true, reset: [] };

/** What the core needs of what fetch resolved with: `{ status, retryAfter, hidden, date, used,
 * reset }` (`reset`: `[index, value]` of the first of `waits.reset` (`[index, name]` pairs) present,
 * looked for only without a Retry-After in seconds; Retry-After itself only if `waits.retryAfter`),
 * or `{ broken }`, why it is no usable response. The status is checked by the core. */
export function head(value, weightHeader, waits = defaultWaits) {
  if (value === null || typeof value !== "object") return { broken: `fetch resolved with ${kind(value)}, not a Response` };
  let part = "status";
  try {
    const status = value.status;
    if (typeof status !== "number") return { broken: `the response's status is ${kind(status)}, not a number` };
    part = "headers";
    const headers = status < 200 || status >= 400 || weightHeader !== undefined ? value.headers : undefined;
    const header = (name) => {
      part = `${name} header`;
      if (headers === null || headers === undefined) return undefined;
      if (typeof headers.get !== "function") throw new TypeError("get is not a function");
      const found = headers.get(name);
      return typeof found === "string" ? found : undefined;
    };
    // Only a failure's provider wait matters to the core (a 2xx or 3xx is a success whatever it
    // says), so a success's Retry-After and Date are not read: a call costs two header reads less.
    let retryAfter;
    let hidden = false;
    let date;
    let reset;
    if (status < 200 || status >= 400) {
      if (waits.retryAfter) retryAfter = header("retry-after");
      // A cross-origin response shows Retry-After only if the server exposes it (CORS).
      part = "type";
      hidden = waits.retryAfter && retryAfter === undefined && value.type === "cors";
      date = header("date");
      // RateLimit-Reset and kin count only where Retry-After says nothing (the core prefers it).
      if (retryAfter === undefined || !/^[ \t]*\d+[ \t]*$/.test(retryAfter)) {
        for (let i = 0; i < waits.reset.length && reset === undefined; i++) {
          const found = header(waits.reset[i][1]);
          if (found !== undefined) reset = [waits.reset[i][0], found];
        }
      }
    }
    let used = -1;
    if (weightHeader !== undefined) {
      const text = header(weightHeader);
      // Whole digits only, as the old parser read them: anything else tells nothing.
      if (text !== undefined && /^[ \t]*\d{1,15}[ \t]*$/.test(text)) used = Number(text);
    }
    return { status, retryAfter, hidden, date, used, reset };
  } catch (error) {
    return { broken: threw(part, error) };
  }
}

/** The rest of a response's face: `{ statusText, url, redirected }`, or `{ broken }`. */
export function face(value) {
  let part = "statusText";
  try {
    const statusText = value.statusText;
    part = "url";
    const url = value.url;
    part = "redirected";
    const redirected = value.redirected === true;
    return { statusText: typeof statusText === "string" ? statusText : "", url: typeof url === "string" && url !== "" ? url : undefined, redirected };
  } catch (error) {
    return { broken: threw(part, error) };
  }
}

/** Starts reading the body inside the attempt: what arrayBuffer() returned, or `{ broken }`. */
export function readBody(value) {
  try {
    return { reading: value.arrayBuffer() };
  } catch (error) {
    return { broken: `reading the response body threw ${describe(error)}` };
  }
}

export const isBytes = (value) => value instanceof ArrayBuffer || ArrayBuffer.isView(value);

const define = (target, key, value) => {
  try {
    return Reflect.defineProperty(target, key, { value, enumerable: true, configurable: true });
  } catch {
    return false;
  }
};

/** A platform Response of this realm from the bytes read; null if this platform won't build one. */
function rebuild(original, status, view, body, withHeaders) {
  try {
    const init = { status, statusText: view.statusText };
    if (withHeaders) {
      const headers = original.headers;
      if (headers !== undefined && headers !== null) init.headers = headers;
    }
    // These statuses must not carry a body, not even an empty one.
    return new Response(status === 204 || status === 205 || status === 304 ? null : body, init);
  } catch {
    return null;
  }
}

// A body handed on unread follows the caller's signal, as the platform's fetch would have it.
// The attempt's controller lives as long as its response (the WeakMap), and the listener goes
// when the response is collected, so a long-lived signal does not gather one per call.
const controllers = new WeakMap();
const unlink = typeof FinalizationRegistry === "function"
  ? new FinalizationRegistry(({ signal, onAbort }) => signal.removeEventListener("abort", onAbort))
  : null;
// Its own function: a closure over `response` inside linkAbort would keep the response alive.
const weakly = (value) => (typeof WeakRef === "function" ? new WeakRef(value) : { deref: () => value });

function linkAbort(signal, controller, response) {
  try {
    if (signal.aborted) return void controller.abort(signal.reason);
    controllers.set(response, controller);
    const held = weakly(response);
    const onAbort = () => {
      try {
        const live = held.deref();
        if (live !== undefined) controllers.get(live)?.abort(signal.reason);
      } catch {}
    };
    signal.addEventListener("abort", onAbort, { once: true });
    unlink?.register(response, { signal, onAbort });
  } catch {
    // A signal we cannot listen to: the body stays the caller's to cancel.
  }
}

/** A response received: handed on as the platform gave it (its attempt's controller kept, whose
 * signal the unread body follows), or read inside the attempt timeout and rebuilt (`readBody`). */
export class Received {
  constructor(original, controller, rebuilt = null, view = null) {
    this.original = original;
    this.controller = controller;
    this.rebuilt = rebuilt;
    this.view = view;
  }

  static rebuilt(original, status, view, body) {
    const rebuilt = rebuild(original, status, view, body, true) ?? rebuild(original, status, view, body, false);
    return new Received(original, null, rebuilt, view);
  }

  /** The response a caller receives on success: the provider's, with its real URL. */
  forCaller(signals) {
    if (this.controller !== null) for (const signal of signals) linkAbort(signal, this.controller, this.original);
    if (this.rebuilt !== null) {
      if (this.view.url !== undefined) define(this.rebuilt, "url", this.view.url);
      define(this.rebuilt, "redirected", this.view.redirected);
      return this.rebuilt;
    }
    return this.original;
  }

  /** The response an error carries: its URL redacted by `redact`; undefined if it cannot be marked. */
  forError(redact) {
    const response = this.rebuilt ?? (this.controller !== null ? this.original : undefined);
    // Never an original we could not mark: its URL would carry what the records redact.
    if (response === undefined) return undefined;
    const view = this.view ?? face(this.original);
    if (view.broken !== undefined) return undefined;
    if (view.url !== undefined && !define(response, "url", redact(view.url))) return undefined;
    if (this.rebuilt !== null) define(response, "redirected", view.redirected);
    return response;
  }

  /** A later attempt replaced this response: an unread body is cancelled, so its connection is
   * freed now rather than when the collector finds it. */
  discard() {
    if (this.controller === null) return;
    try {
      const body = this.original.body;
      if (body !== null && typeof body === "object") swallow(body.cancel());
    } catch {}
  }
}


