// The world a transcript scripts (tests/transcripts/*.json), for the executors that run in a
// JavaScript runtime: the JavaScript executor in Node (tests/js/transcripts.test.mjs) and the Rust
// executor under wasm-pack test --node (tests/transcripts_web.rs). A virtual clock replaces the
// global timers, performance.now and Date.now; the network (the global fetch, WebSocket), the store,
// the caller's predicate and status query answer as scripted; every one of them writes what it saw
// to the log, at its virtual time. tests/transcripts.rs plays the same world natively around the
// core's machines. The three logs, and the records, must be identical.

const WALL_START = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/** Where the next world's clock begins: the executors' clocks never go backwards, so each world
 * starts after the last one ended, and tells its times from its own start. */
let epoch = 1000;

/** The virtual clock: timers fire in order of (instant, creation). */
function clock() {
  const origin = epoch;
  let now = origin;
  let seq = 0;
  const timers = new Map();
  const saved = {};
  return {
    /** Milliseconds since this world began. */
    now: () => now - origin,
    install() {
      Object.assign(saved, { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, perfNow: performance.now, dateNow: Date.now });
      globalThis.setTimeout = (fn, ms = 0, ...args) => {
        const id = ++seq;
        const delay = Number.isFinite(Number(ms)) ? Math.max(0, Math.floor(Number(ms))) : 0;
        timers.set(id, { at: now + delay, seq: id, fn: () => fn(...args) });
        return id;
      };
      globalThis.clearTimeout = (id) => void timers.delete(id);
      Object.defineProperty(performance, "now", { value: () => now, configurable: true, writable: true });
      Date.now = () => WALL_START + (now - origin);
    },
    uninstall() {
      epoch = now + 1000;
      globalThis.setTimeout = saved.setTimeout;
      globalThis.clearTimeout = saved.clearTimeout;
      delete performance.now;
      Date.now = saved.dateNow;
    },
    /** Fires the next timer; false when none is left. */
    fire() {
      let next = null;
      for (const t of timers.values()) if (next === null || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
      if (next === null) return false;
      timers.delete(next.seq);
      now = Math.max(now, next.at);
      next.fn();
      return true;
    },
    realSetTimeout: () => saved.setTimeout,
  };
}

/** A macrotask of the real event loop: every microtask queued before it has run. */
const turn = (realSetImmediate) => new Promise((resolve) => realSetImmediate(resolve));

/** The world of transcript `t`: `{ install, uninstall, run(start), log, fetch, store, shouldRetry, query, abortSignal }`. */
export function world(t) {
  const time = clock();
  const log = [];
  const note = (line) => log.push(`${time.now()} ${line}`);
  const realSetImmediate = globalThis.setImmediate;
  let fetches = 0;

  /** The global fetch: the i-th request answers as `t.fetch[i]` says. */
  function fetch(input, init) {
    const n = ++fetches;
    const script = t.fetch?.[n - 1] ?? { hang: true };
    const signal = init?.signal ?? (typeof input === "object" ? input?.signal : undefined);
    note(`fetch #${n}`);
    return new Promise((resolve, reject) => {
      let timer = null;
      const onAbort = () => {
        clearTimeout(timer);
        note(`abort #${n}${signal.reason?.name === "TimeoutError" ? " timeout" : ""}`);
        reject(signal.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (script.hang) return;
      timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        if (script.error !== undefined) {
          note(`#${n} fails`);
          return reject(new TypeError(script.error));
        }
        note(`#${n} answers ${script.status}`);
        resolve(new Response(script.status === 204 ? null : (script.body ?? ""), { status: script.status, headers: script.headers ?? {} }));
      }, script.after ?? 0);
    });
  }

  /** Answers per call of `kind` as its script says (after, fail, hang, value), logging each call. */
  function scripted(kind, list, answer) {
    let calls = 0;
    return (...args) => {
      const script = list?.[calls++] ?? {};
      note(`${kind}${args.length > 0 && args[0] !== undefined ? ` ${args[0]}` : ""}`);
      if (script.hang) return new Promise(() => {});
      const settle = () => {
        if (script.fail !== undefined) throw new Error(script.fail);
        return answer(script, ...args);
      };
      if (script.after === undefined) return settle();
      return new Promise((resolve, reject) => setTimeout(() => {
        try {
          resolve(settle());
        } catch (error) {
          reject(error);
        }
      }, script.after));
    };
  }

  /** A WebSocket whose n-th connection behaves as `t.connections[n]` says: it opens, delivers
   * messages and closes at those times (after its open), or its upgrade is refused, or it fails. */
  let connections = 0;
  class WebSocket extends EventTarget {
    constructor(url) {
      super();
      const n = (this.n = ++connections);
      const script = t.connections?.[n - 1] ?? { hang: true };
      this.readyState = 0;
      this.protocol = "";
      this.timers = [];
      this.unexpected = null;
      // The event handler properties of the standard interface (onopen, …), as a platform's socket has.
      for (const type of ["open", "message", "close"]) this.addEventListener(type, (event) => this[`on${type}`]?.(event));
      note(`connect #${n}`);
      const at = (ms, fn) => this.timers.push(setTimeout(fn, ms));
      if (script.refuse !== undefined) {
        const { after = 0, status, retryAfter } = script.refuse;
        at(after, () => {
          note(`#${n} refused ${status}`);
          this.unexpected?.({}, { statusCode: status, headers: retryAfter === undefined ? {} : { "retry-after": retryAfter } });
        });
        return;
      }
      if (script.fail !== undefined) {
        at(script.fail, () => this.closed(1006, ""));
        return;
      }
      if (script.hang) return;
      at(script.openAfter ?? 0, () => {
        this.readyState = 1;
        note(`#${n} opens`);
        this.dispatchEvent(new Event("open"));
        for (const m of script.messages ?? []) at(m.after, () => this.dispatchEvent(Object.assign(new Event("message"), { data: m.data })));
        if (script.closeAfter !== undefined) at(script.closeAfter.after, () => this.closed(script.closeAfter.code ?? 1006, script.closeAfter.reason ?? ""));
      });
    }
    on(type, fn) {
      if (type === "unexpected-response") this.unexpected = fn;
    }
    off() {
      this.unexpected = null;
    }
    closed(code, reason) {
      note(`#${this.n} closes ${code}`);
      this.readyState = 3;
      for (const timer of this.timers) clearTimeout(timer);
      this.dispatchEvent(Object.assign(new Event("close"), { code, reason }));
    }
    send(data) {
      note(`send #${this.n} ${data}`);
    }
    close(code) {
      if (this.readyState === 3) return;
      note(`close #${this.n} ${code}`);
      this.readyState = 3;
      for (const timer of this.timers) clearTimeout(timer);
    }
  }

  const kept = new Map(Object.entries(t.store?.initial ?? {}).map(([k, v]) => [`retryline:${k}`, typeof v === "string" ? v : JSON.stringify(v)]));
  const store = t.store === undefined ? undefined : {
    get: scripted("store.get", t.store.get, (_, key) => kept.get(key) ?? null),
    set: scripted("store.set", t.store.set, (_, key, value) => void kept.set(key, value)),
    delete: scripted("store.delete", t.store.delete, (_, key) => void kept.delete(key)),
  };
  const shouldRetry = t.shouldRetry === undefined ? undefined
    : scripted("shouldRetry", t.shouldRetry, (script) => script.answer ?? true);
  const query = scripted("query", t.query, (script) => script.evidence);

  const resync = scripted("resync", t.stream?.resync, (script) => {
    if (script.fail !== undefined) throw new Error(script.fail);
  });

  // A browser page's own signals, for the JavaScript executor's listeners (the Rust API is told them).
  const page = new EventTarget();
  const doc = Object.assign(new EventTarget(), { visibilityState: "visible" });

  return {
    log,
    note,
    fetch,
    /** The page says `signal`: "offline", "online", "hidden", "visible" or "wake" (a resume). */
    page(signal) {
      if (signal === "offline" || signal === "online") return void page.dispatchEvent(new Event(signal));
      if (signal === "wake") return void doc.dispatchEvent(new Event("resume"));
      doc.visibilityState = signal;
      doc.dispatchEvent(new Event("visibilitychange"));
    },
    WebSocket,
    resync: () => resync(),
    store,
    kept,
    shouldRetry: shouldRetry === undefined ? undefined : ({ attempt }) => shouldRetry(`#${attempt}`),
    query: ({ attempt }) => query(`#${attempt}`),
    install() {
      time.install();
      this.saved = { fetch: globalThis.fetch, WebSocket: Object.getOwnPropertyDescriptor(globalThis, "WebSocket") };
      globalThis.fetch = fetch;
      globalThis.addEventListener = page.addEventListener.bind(page);
      globalThis.removeEventListener = page.removeEventListener.bind(page);
      globalThis.document = doc;
      // For an executor that makes its sockets with the global WebSocket (the Rust one does).
      Object.defineProperty(globalThis, "WebSocket", { value: WebSocket, configurable: true, writable: true });
    },
    uninstall() {
      time.uninstall();
      globalThis.fetch = this.saved.fetch;
      delete globalThis.addEventListener;
      delete globalThis.removeEventListener;
      delete globalThis.document;
      if (this.saved.WebSocket === undefined) delete globalThis.WebSocket;
      else Object.defineProperty(globalThis, "WebSocket", this.saved.WebSocket);
    },
    /** A signal the caller aborts at `t.abortAt` (undefined without one). */
    abortSignal() {
      if (t.abortAt === undefined) return undefined;
      const controller = new AbortController();
      setTimeout(() => {
        note("caller aborts");
        controller.abort();
      }, t.abortAt);
      return controller.signal;
    },
    /** Runs `start()` (a promise of the outcome's line) to its end on the virtual clock; the log. */
    async run(start) {
      let settled = false;
      let done;
      const started = Promise.resolve().then(start).then((line) => (done = line), (error) => (done = `threw ${error?.name}: ${error?.message}`));
      started.finally(() => (settled = true));
      for (let steps = 0; ; steps++) {
        await turn(realSetImmediate);
        if (settled) break;
        if (steps > 100_000 || !time.fire()) {
          done = "never settled";
          break;
        }
      }
      note(`done ${done}`);
      return log;
    },
  };
}
