// Waiting on user code — a fetch's promise, a body read, a store call, a thenable — on our own
// terms: an attempt timeout, the operation's deadline and the caller's abort are timers and
// listeners of ours that win the race whether or not the platform honours its signal. The cuts
// stay armed across waits: a timer that fires between two waits ends the next one at once.

/** How a wait ended (the first item of its result). */
export const FULFILLED = 0;
export const REJECTED = 1;
export const CUT = 2;
/** Why it was cut (the second item), in the core's order (src/failure.rs Cut). */
export const TIMEOUT = 0;
export const DEADLINE = 1;
export const ABORTED = 2;

/** The longest wait setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `done([FULFILLED, v])` or `done([REJECTED, e])` once `value` settles; never throws. */
export function follow(value, done) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) {
    done([FULFILLED, value]);
    return;
  }
  // Resolving with a thenable runs its `then` in a job: whatever it throws rejects this promise.
  new Promise((resolve) => resolve(value)).then((v) => done([FULFILLED, v]), (e) => done([REJECTED, e]));
}

/** Handles whatever `value` settles to, keeping nothing: a rejection the caller left unhandled
 * (an async callback's) is not reported as ours. */
export function swallow(value) {
  follow(value, () => {});
}

/** A timer that cannot throw at us: fake timers may; `null` then. */
export function timer(f, ms) {
  try {
    return setTimeout(f, Math.min(Math.max(0, ms), MAX_TIMER_MS));
  } catch {
    return null;
  }
}

export function clear(handle) {
  if (handle === null || handle === undefined) return;
  try {
    clearTimeout(handle);
  } catch {
    // A timer that cannot be cleared fires into a race that is over: it finds nothing.
  }
}

/** Whether any of `signals` has aborted (a signal we cannot read counts as not aborted). */
export function aborted(signals) {
  for (const signal of signals) {
    try {
      if (signal.aborted) return true;
    } catch {}
  }
  return false;
}

export class Race {
  #ended = null; // [CUT, why] once cut
  #waiting = null; // the resolver of the wait in progress
  #timer = null;
  #signals = null;
  #onAbort = null;

  /** Cut with `why` after `ms` (undefined: no timer) and when any of `signals` aborts. */
  constructor(ms, why = DEADLINE, signals = null) {
    if (ms !== undefined) {
      this.#timer = timer(() => this.cut(why), ms);
      // A wait we cannot bound is not waited.
      if (this.#timer === null) this.#ended = [CUT, why];
    }
    if (signals !== null && signals.length > 0) {
      if (aborted(signals)) this.#ended ??= [CUT, ABORTED];
      this.#signals = signals;
      this.#onAbort = () => this.cut(ABORTED);
      for (const signal of signals) {
        try {
          signal.addEventListener("abort", this.#onAbort);
        } catch {}
      }
    }
  }

  /** Ends the wait in progress (and every later one) with `why`. */
  cut(why) {
    if (this.#ended !== null) return;
    this.#ended = [CUT, why];
    // Each waiter clears #waiting itself: a late settling then finds nothing.
    this.#waiting?.(this.#ended);
  }

  get isCut() {
    return this.#ended !== null;
  }

  /** Waits for `value` (a promise, a thenable, or a plain value): `[FULFILLED, v]`,
   * `[REJECTED, e]` or `[CUT, why]`. */
  wait(value) {
    if (this.#ended !== null) return Promise.resolve(this.#ended);
    return new Promise((resolve) => {
      const done = (result) => {
        if (this.#waiting !== done) return;
        this.#waiting = null;
        resolve(result);
      };
      this.#waiting = done;
      follow(value, done);
    });
  }

  /** Sleeps `ms`, or until `early` (a promise) settles: `[FULFILLED]`, or `[CUT, why]`. */
  sleep(ms, early = null) {
    if (this.#ended !== null) return Promise.resolve(this.#ended);
    return new Promise((resolve) => {
      let handle = null;
      const done = (result) => {
        if (this.#waiting !== done) return;
        this.#waiting = null;
        clear(handle);
        resolve(result);
      };
      this.#waiting = done;
      handle = timer(() => done([FULFILLED]), ms);
      if (handle === null) done([FULFILLED]);
      if (early !== null) follow(early, () => done([FULFILLED]));
    });
  }

  /** Clears the timer and the listeners. */
  end() {
    clear(this.#timer);
    if (this.#signals !== null) {
      for (const signal of this.#signals) {
        try {
          signal.removeEventListener("abort", this.#onAbort);
        } catch {}
      }
      this.#signals = null;
    }
  }
}
