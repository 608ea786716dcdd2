// The only JavaScript that runs the caller's code on wasm's behalf. Nothing here throws: a
// throw becomes the FAILED value, and the thrown value waits in `thrown` for taken().
// Why not wasm-bindgen's `catch` alone: with reference types, a `catch` import that returns a
// value leaks one externref slot every time it throws, so 10 000 hostile getters would grow memory.
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

export function prototypeOf(value) {
  try {
    return Reflect.getPrototypeOf(value);
  } catch (e) {
    return fail(e);
  }
}

/** An own property's descriptor field (`value` or `get`), without running a getter. */
export function ownDescriptor(target, key, field) {
  try {
    const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
    return descriptor === undefined ? undefined : descriptor[field];
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


// One callback of the shell's, for every timer, abort listener and settling value: each gets
// the id of its waiter and what happened (see src/web/wake.rs). No closure is made per wait.
let wake = () => {};

export function setWaker(f) {
  wake = f;
}

/** `setTimeout` that calls wake(id, kind) — or FAILED if no timer can be set (fake timers may throw). */
export function timer(ms, id, kind) {
  try {
    return setTimeout(wake, ms, id, kind, undefined);
  } catch (e) {
    return fail(e);
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

/** Calls wake(id, kind) when `signal` aborts; returns the listener (to remove), or FAILED. */
export function listen(signal, id, kind) {
  const listener = () => wake(id, kind, undefined);
  try {
    signal.addEventListener("abort", listener);
    return listener;
  } catch (e) {
    return fail(e);
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

export function attemptInit(signal) {
  return { signal };
}

let reading = "";
// A NUL inside a part (only a look-alike Response could hold one) must not split it.
const text = (s) => (typeof s !== "string" ? "" : s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s);

/** What `head` was reading when it failed. */
export function headPart() {
  return reading;
}

// What the core needs of a response, in one crossing: the status and three headers as one
// string, parts separated by NUL, an absent header as SOH, an unreadable Retry-After as STX. What threw is FAILED (see headPart);
// a value that is not an object is the empty string (wasm then says what it is).
export function head(response, weightHeader) {
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
    // there means unreadable (STX), not absent.
    const retryAfter = header("retry-after");
    const hidden = retryAfter === "\u0001" && response.type === "cors";
    const date = header("date");
    const weight = weightHeader === undefined ? "\u0001" : header(weightHeader);
    return `${typeof status === "number" ? status : ""}\0${hidden ? "\u0002" : retryAfter}\0${date}\0${weight}`;
  } catch (e) {
    return fail(e);
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

// Budgets shared across tabs (docs/shared-budgets.md): a Web Lock per share name held around each
// budget step, the state in IndexedDB. Never throws: where a primitive is missing or fails,
// shareEnter resolves null and the budget works locally.
const SHARE_PREFIX = "retryline:budget:";
let shareDb = null;
const holding = new Map(); // share name -> release() of the lock this realm holds

function openShareDb() {
  shareDb ??= new Promise((resolve, reject) => {
    const open = indexedDB.open("retryline-budgets", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("state");
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  return shareDb;
}

function shareRequest(mode, name, text) {
  return openShareDb().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction("state", mode);
    const request = mode === "readonly" ? tx.objectStore("state").get(name) : tx.objectStore("state").put(text, name);
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = tx.onabort = () => reject(tx.error);
  }));
}

/** Whether this realm can share a budget with others (Web Locks and IndexedDB). */
export function shareAvailable() {
  try {
    return typeof navigator === "object" && typeof navigator.locks?.request === "function" && typeof indexedDB === "object";
  } catch {
    return false;
  }
}

/** Holds the share's lock and resolves with its stored state ("" if none), or null if it cannot
 * within `ms`: a lock granted later is let go at once. */
export function shareEnter(name, ms) {
  return new Promise((resolve) => {
    let gaveUp = false;
    let reading = null; // the lock's release while the state is being read: a hung read lets go too
    const timer = setTimeout(() => {
      gaveUp = true;
      reading?.();
      resolve(null);
    }, ms);
    const done = (text) => {
      clearTimeout(timer);
      resolve(text);
    };
    try {
      navigator.locks.request(SHARE_PREFIX + name, () => new Promise((release) => {
        if (gaveUp) return release();
        reading = release;
        shareRequest("readonly", name).then(
          (text) => {
            reading = null;
            if (gaveUp) return release();
            holding.set(name, release);
            done(typeof text === "string" ? text : "");
          },
          () => {
            release();
            done(null);
          },
        );
      })).catch(() => done(null));
    } catch {
      done(null);
    }
  });
}

// A write that never completes (a hung IndexedDB) lets the lock go after this long.
const SHARE_WRITE_MS = 2000;

/** Stores the share's state, then releases its lock (a failed or hung write still releases it);
 * with `tell`, then wakes the share's sleepers in every realm (a hold or ban was published). */
export function shareLeave(name, text, tell) {
  const release = holding.get(name);
  holding.delete(name);
  if (!release) return;
  const timer = setTimeout(release, SHARE_WRITE_MS);
  const done = () => {
    clearTimeout(timer);
    release();
    if (tell) {
      try {
        channel(name)?.postMessage(1);
      } catch {}
      wakeSleepers(name); // a channel does not hear its own messages: this realm's sleepers too
    }
  };
  shareRequest("readwrite", name, text).then(done, done);
}

// Sleepers of a shared budget, woken when another realm publishes a hold or ban (BroadcastChannel).
const channels = new Map(); // share name -> BroadcastChannel (null where there is none)
const sleepers = new Map(); // share name -> Set of resolvers

function channel(name) {
  if (!channels.has(name)) {
    let ch = null;
    try {
      ch = new BroadcastChannel(SHARE_PREFIX + name);
      ch.onmessage = () => wakeSleepers(name);
    } catch {}
    channels.set(name, ch);
  }
  return channels.get(name);
}

function wakeSleepers(name) {
  const woken = sleepers.get(name);
  sleepers.delete(name);
  for (const resolve of woken ?? []) resolve();
}

/** A promise that resolves when a hold or ban is next published under `name`, and its resolver
 * (to forget it with shareNewsDone when the sleep ends first); null without BroadcastChannel. */
export function shareNews(name) {
  try {
    if (!channel(name)) return null;
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    if (!sleepers.has(name)) sleepers.set(name, new Set());
    sleepers.get(name).add(resolve);
    return [promise, resolve];
  } catch {
    return null;
  }
}

export function shareNewsDone(name, resolve) {
  sleepers.get(name)?.delete(resolve);
}

// Budgets shared across isolates (docs/shared-budgets.md): one Durable Object per scope, named
// "<share>:<scope>", asked through its fetch (js/durable-object.js). Never throws: an error, a
// malformed answer or no answer within `ms` resolves null, and the budget goes on with what it knows.
export function coordinatorLimits(options) {
  try {
    const { coordinator, share, ...limits } = options;
    return JSON.stringify(limits);
  } catch {
    return "{}";
  }
}

export function coordinatorLease(namespace, name, limits, scope, priority, numbers, ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    const done = (answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    try {
      const [weight, latest, returned, hold, ban] = numbers;
      const stub = namespace.get(namespace.idFromName(`${name}:${scope}`));
      const body = JSON.stringify({ limits, scope, priority, weight, latest, returned, hold, ban });
      Promise.resolve(stub.fetch("https://retryline.coordinator/lease", { method: "POST", body }))
        .then((response) => (response.ok ? response.json() : null))
        .then((answer) => {
          const out = Array.isArray(answer) && answer.length === 4 && answer.every((x) => typeof x === "number" && x >= 0) ? answer : null;
          done(out && Array.from(out));
        }, () => done(null));
    } catch {
      done(null);
    }
  });
}
