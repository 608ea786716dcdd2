// An attempt's `fetch` init, and what came back: the head and face of whatever the caller's (or
// the platform's) `fetch` resolved with, read with every access guarded, bound by response.rs.
// Self-contained, as every snippet of src/web/platform is.
//
// Nothing here throws: `head` and `face` return undefined when a read throws, and keep the part
// they were reading and what was thrown for threwWhile()/thrown().
let reading = "";
let error;

/** What `head` or `face` was reading when it threw. */
export function threwWhile() {
  return reading;
}

/** What `head` or `face` caught last (once). */
export function thrown() {
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
