// Timers, abort listeners and settling values, and the monotonic clock they are measured on,
// bound by waits.rs. Self-contained, as every snippet of src/web/platform is.
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
