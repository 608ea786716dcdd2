// The Rust API's JavaScript, in one wasm-bindgen snippet: guarded values, timers and waits, an
// attempt's response, and kept responses (each section below was a file of its own). One file, so
// that a page fetches one module beside tab-locks.js: a burst of five parallel module requests
// made Chromium open a fifth connection to wasm-bindgen-test-runner's server, whose pool (tiny_http
// 0.12) can lose the task of a fifth connection under load and hang the page. Self-contained: a
// snippet imports nothing.

// ── values ──────────────────────────────────────────────────────────────────────────
// Guarded reads and calls of the caller's values (options, stores, queries): the only JavaScript
// that runs the caller's code on wasm's behalf, bound by values.rs.
//
// Nothing here throws: a throw becomes the FAILED value, and the thrown value waits in `thrown`
// for taken(). Why not wasm-bindgen's `catch` alone: with reference types, a `catch` import that
// returns a value leaks one externref slot every time it throws, so 10 000 hostile getters would
// grow memory.
const FAILED = Object.freeze({ failed: true });
let thrown;
// Where wasm reads "the last guarded call threw" (a word in its memory): one store here
// saves wasm a crossing to compare every result with FAILED.
let memory;
let flagIndex = -1;
let flags;

export function watchFailures(wasmMemory, at) {
  memory = wasmMemory;
  flagIndex = at >>> 2;
  flags = new Int32Array(memory.buffer);
}

function fail(error) {
  thrown = error;
  if (flagIndex >= 0) {
    // A grown memory has a new buffer; views of the old one read nothing.
    if (flags.buffer !== memory.buffer) flags = new Int32Array(memory.buffer);
    flags[flagIndex] = 1;
  }
  return FAILED;
}

export function failed() {
  return FAILED;
}

export function taken() {
  const error = thrown;
  thrown = undefined;
  return error;
}

export function get(target, key) {
  try {
    return Reflect.get(target, key);
  } catch (e) {
    return fail(e);
  }
}

export function call(f, self, a, b) {
  try {
    return Reflect.apply(f, self, arguments.length > 3 ? [a, b] : arguments.length > 2 ? [a] : []);
  } catch (e) {
    return fail(e);
  }
}

export function construct(c, a, b) {
  try {
    return Reflect.construct(c, arguments.length > 2 ? [a, b] : [a]);
  } catch (e) {
    return fail(e);
  }
}

export function keys(target) {
  try {
    return Object.keys(target);
  } catch (e) {
    return fail(e);
  }
}

export function isArray(value) {
  try {
    return Array.isArray(value);
  } catch (e) {
    return fail(e);
  }
}

export function define(target, key, value) {
  try {
    return Reflect.defineProperty(target, key, { value, enumerable: true });
  } catch (e) {
    return fail(e);
  }
}

export function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail(e);
  }
}

// 53 random bits (a seed for jitter), or -1 where there is no crypto.getRandomValues.
export function random() {
  try {
    const words = crypto.getRandomValues(new Uint32Array(2));
    return words[0] * 2 ** 21 + (words[1] >>> 11);
  } catch {
    return -1;
  }
}

// ── waits ──────────────────────────────────────────────────────────────────────────
// Timers, abort listeners and settling values, and the monotonic clock they are measured on,
// bound by waits.rs.
//
// One callback of the shell's, for every timer, abort listener and settling value: each gets
// the id of its waiter and what happened (see wake.rs). No closure is made per wait. Nothing
// here throws: what cannot be set returns null, and wasm does without it.
let wake = () => {};

export function setWaker(f) {
  wake = f;
}

/** `setTimeout` that calls wake(id, kind) — or null if no timer can be set (fake timers may throw). */
export function timer(ms, id, kind) {
  try {
    return setTimeout(wake, ms, id, kind, undefined);
  } catch {
    return null;
  }
}

export function clearTimer(handle) {
  try {
    clearTimeout(handle);
  } catch {
    // A timer that cannot be cleared fires into a waiter that is gone: wake ignores it.
  }
}

/** Calls wake(id, fulfilled, value) or wake(id, rejected, error) once `value` settles; never throws. */
export function follow(value, id, fulfilled, rejected) {
  // Resolving with a thenable runs its `then` in a job: whatever it throws rejects this promise.
  new Promise((resolve) => resolve(value)).then((v) => wake(id, fulfilled, v), (e) => wake(id, rejected, e));
}

/** Calls wake(id, kind) when `signal` aborts; returns the listener (to remove), or null. */
export function listen(signal, id, kind) {
  const listener = () => wake(id, kind, undefined);
  try {
    signal.addEventListener("abort", listener);
    return listener;
  } catch {
    return null;
  }
}

export function unlisten(signal, listener) {
  try {
    signal.removeEventListener("abort", listener);
  } catch {
    // As above: a stray call finds no waiter.
  }
}

// The clock is looked up once: `performance` cannot change under a running program.
const clock = typeof performance === "object" && typeof performance?.now === "function" ? performance : Date;

export function monotonic() {
  try {
    return clock.now();
  } catch {
    return NaN;
  }
}

// ── responses ──────────────────────────────────────────────────────────────────────────
// An attempt's `fetch` init, and what came back: the head and face of whatever the caller's (or
// the platform's) `fetch` resolved with, read with every access guarded, bound by response.rs.
//
// Nothing here throws: `head` and `face` return undefined when a read throws, and keep the part
// they were reading and what was thrown for threwWhile()/responseThrown().
let reading = "";
let error;

/** What `head` or `face` was reading when it threw. */
export function threwWhile() {
  return reading;
}

/** What `head` or `face` caught last (once). */
export function responseThrown() {
  const e = error;
  error = undefined;
  return e;
}

export function attemptInit(signal) {
  return { signal };
}

// A NUL inside a part (only a look-alike Response could hold one) must not split it.
const text = (s) => (typeof s !== "string" ? "" : s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s);

// What the core needs of a response, in one crossing: the status and four headers as one string,
// parts separated by NUL, an absent header as SOH, an unreadable Retry-After as STX, then the first
// reset header present (its index, then its value) of `resets` ("<index><name>" entries, NUL-separated),
// looked for only on a failure whose Retry-After is no delta-seconds (the core prefers that). Retry-After
// is read only if `retryAfter`. A value that is not an object is the empty string (wasm then says what it is).
export function head(response, weightHeader, retryAfter, resets) {
  if (response === null || typeof response !== "object") return "";
  reading = "status";
  try {
    const status = response.status;
    reading = "headers";
    const headers = response.headers;
    const header = (name) => {
      reading = `${name} header`;
      if (headers == null) return "\u0001";
      if (typeof headers.get !== "function") throw new TypeError("get is not a function");
      const value = headers.get(name);
      return typeof value === "string" ? text(value) : "\u0001";
    };
    // A cross-origin response shows Retry-After only if the server exposes it (CORS): absent
    // there means unreadable (STX), not absent — where it is read at all.
    const wait = retryAfter ? header("retry-after") : "\u0001";
    const hidden = retryAfter && wait === "\u0001" && response.type === "cors";
    const date = header("date");
    const weight = weightHeader === undefined ? "\u0001" : header(weightHeader);
    let reset = "\u0001\0\u0001";
    const failed = typeof status === "number" && (status < 200 || status >= 400);
    if (failed && resets !== "" && !/^[ \t]*\d+[ \t]*$/.test(wait)) {
      for (const entry of resets.split("\0")) {
        const found = header(entry.slice(1));
        if (found !== "\u0001") {
          reset = `${entry[0]}\0${found}`;
          break;
        }
      }
    }
    return `${typeof status === "number" ? status : ""}\0${hidden ? "\u0002" : wait}\0${date}\0${weight}\0${reset}`;
  } catch (e) {
    error = e;
    return undefined;
  }
}

// The rest of a response's face — statusText, url, redirected — read only where a response is
// rebuilt or carried by an error: the success path hands the platform's response on untouched.
export function face(response) {
  try {
    reading = "statusText";
    const statusText = response.statusText;
    reading = "url";
    const url = response.url;
    reading = "redirected";
    const redirected = response.redirected;
    return `${text(statusText)}\0${text(url)}\0${redirected === true ? 1 : 0}`;
  } catch (e) {
    error = e;
    return undefined;
  }
}

// A body handed on unread follows the caller's signal, as the platform's fetch would have it.
// The attempt's controller lives as long as its response (the WeakMap), and the listener goes
// when the response is collected, so that a long-lived signal does not gather one per call.
const controllers = new WeakMap();
const unlink = typeof FinalizationRegistry === "function"
  ? new FinalizationRegistry(({ signal, follow }) => signal.removeEventListener("abort", follow))
  : null;
// Its own function: a closure over `value` inside linkAbort would share linkAbort's context with
// the listener, and the listener would then hold the response it must not keep alive.
const weakly = (value) => (typeof WeakRef === "function" ? new WeakRef(value) : { deref: () => value });

export function linkAbort(signal, controller, response) {
  try {
    if (signal.aborted) return void controller.abort(signal.reason);
    controllers.set(response, controller);
    const held = weakly(response);
    const follow = () => {
      try {
        const live = held.deref();
        if (live !== undefined) controllers.get(live)?.abort(signal.reason);
      } catch {
        // Nothing to abort any more.
      }
    };
    signal.addEventListener("abort", follow, { once: true });
    unlink?.register(response, { signal, follow });
  } catch {
    // A signal we cannot listen to: the body stays the caller's to cancel.
  }
}

// ── kept ──────────────────────────────────────────────────────────────────────────
// The Rust API's kept responses (`staleIfErrorMs`): a copy taken when the core says keep, a new
// Response from it with its `Age` when the core says serve, and the mark `staleness` reads. Never
// throws: a response that cannot be copied is not kept.

const marks = new WeakMap();

/** A clone of `response` (a branch of its body), undefined if none can be made. */
export function cloneResponse(response) {
  try {
    return response.clone();
  } catch {
    return undefined;
  }
}

/** A copy of `response`, its body read in full apart from the caller's (undefined if it cannot be
 * made): the caller's abort or unread body never reaches it. */
export function keepCopy(response) {
  try {
    const copy = response.clone();
    const kept = { status: copy.status, statusText: copy.statusText, headers: [...copy.headers], body: null };
    Promise.resolve()
      .then(() => copy.arrayBuffer())
      .then((body) => (kept.body = body), () => {});
    return kept;
  } catch {
    return undefined;
  }
}

/** A new Response from kept copy `kept`, with `Age` of `ageMs`; undefined if none can be made (its
 * body not read yet, or never). */
export function serveKept(kept, ageMs) {
  try {
    if (kept.body === null) return undefined;
    const headers = new Headers(kept.headers);
    headers.set("age", String(Math.floor(ageMs / 1000)));
    const empty = kept.status === 204 || kept.status === 205 || kept.status === 304;
    return new Response(empty ? null : kept.body.slice(0), { status: kept.status, statusText: kept.statusText, headers });
  } catch {
    return undefined;
  }
}

/** Marks `response` as served stale: its age and the failure's JSON. */
export function markStale(response, ageMs, json) {
  try {
    marks.set(response, [ageMs, json]);
  } catch {}
}

/** `[ageMs, json]` of a response served stale; undefined for any other. */
export function staleMark(response) {
  return marks.get(response);
}
