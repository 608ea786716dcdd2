// The floor of the package's shape (bench/README.md, "The floor"): the least JavaScript that runs
// a retrying GET on the core's fetch-path exports (src/abi, the `abi-fetch` build of the lean entry)
// — a client, a budget, and per call the call's machine (src/abi/call.rs): begin it, feed it events,
// do each effect it hands out, arm its one timer where it asks. A send is `fetch(url, { signal })`
// with an AbortController of its own; the machine's timer ends an attempt that runs out its time
// (an abort effect) and wakes a sleep; a response's status, Retry-After and Date go back in.
// Nothing else: no options read, no Request built, no records, no store, no caller's signal, no
// redaction of what fails, no error object but the reason's name.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ABSENT = 0xffffffff;
/** Effect codes and event codes (src/abi/call.rs). */
const [SEND, ABORT, REPORT, DONE] = [1, 2, 8, 9];
const [GO, RESPONSE, FAILED, TIMER] = [0, 4, 5, 9];
/** The slot's last number: when the machine's timer must fire (-1: none). */
const WAKE_AT = 15;
export const [OK, FAILED_ATTEMPT, TIMEOUT] = [0, 1, 2];

export function floor(instance) {
  const x = instance.exports;
  const slot = x.rl_slot();
  let buffer, bytes, words, floats, input = 0, room = 0, numbersAt = 0, numbersRoom = 0;
  const views = () => buffer !== x.memory.buffer && ((buffer = x.memory.buffer), (bytes = new Uint8Array(buffer)), (words = new Uint32Array(buffer)), (floats = new Float64Array(buffer)));
  const number = (i) => (views(), floats[(slot >>> 3) + 1 + i]);
  const text = () => (views(), decoder.decode(bytes.subarray(words[slot >>> 2], words[slot >>> 2] + words[(slot >>> 2) + 1])));
  /** Strings into the input area, one after the other; their lengths (ABSENT for none). */
  const put = (strings) => {
    let used = 0;
    return strings.map((s) => {
      if (s === undefined || s === null) return ABSENT;
      if (used + s.length * 3 > room) input = x.rl_input((room = (used + s.length * 3) * 2));
      views();
      const { written } = encoder.encodeInto(s, bytes.subarray(input + used, input + room));
      return (used += written), written;
    });
  };
  /** An export's numeric arguments into the numbers area. */
  const args = (list) => {
    if (list.length > numbersRoom) numbersAt = x.rl_numbers((numbersRoom = Math.max(16, list.length))) >>> 3;
    views();
    floats.set(list, numbersAt);
  };
  /** Options in the core's wire form (src/abi/wire.rs): numbers apart, booleans, objects. */
  const wire = (v, numbers) => typeof v === "number" ? (numbers.push(v), "n") : typeof v === "boolean" ? (v ? "t" : "f")
    : `{${Object.entries(v).map(([k, w]) => JSON.stringify(k) + wire(w, numbers)).join("")}}`;
  const make = (create, options, ...more) => {
    const numbers = [];
    const [form] = put([wire(options, numbers)]);
    args(numbers);
    const handle = create(form, ...more);
    if (handle === 0) throw new TypeError(text());
    return handle;
  };
  x.rl_names();
  const networkError = JSON.parse(text()).observed.indexOf("network-error");
  const now = () => Math.ceil(performance.now());

  /** One attempt on its own: fetch raced with a timer that aborts it; [OK, response], [FAILED_ATTEMPT, error] or [TIMEOUT]. */
  async function attempt(fetch, url, ms) {
    const controller = new AbortController();
    let timer;
    try {
      return await new Promise((resolve) => {
        timer = setTimeout(() => (controller.abort(), resolve([TIMEOUT])), ms);
        try {
          fetch(url, { signal: controller.signal }).then((r) => resolve([OK, r]), (e) => resolve([FAILED_ATTEMPT, e]));
        } catch (e) {
          resolve([FAILED_ATTEMPT, e]);
        }
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A client: `(fetch, url) => Promise<Response>`, GETs retried as the core decides. `bare` leaves
   * out the AbortController and the timer (the bench takes them out to see what they cost; a call
   * that must sleep or time out then never ends). */
  function client(options = {}, budgetOptions = {}, { bare = false } = {}) {
    const c = make(x.rl_client_new, options, Math.random() * 2 ** 53);
    const b = make(x.rl_budget_new, budgetOptions, 0, 0);
    return (fetch, url) => new Promise((resolve, reject) => {
      // now, wall, purpose (fetch), flags, then the lengths of url, method, scope, options, extra names, key, state.
      args([now(), Date.now(), 0, 0, ...put([url, "GET", null, null, "", null, null])]);
      const call = x.rl_call_begin(c, b);
      if (call === 0) return reject(new TypeError(text()));
      const flights = new Map(); // attempt → its AbortController (null when bare)
      let timer = null, wakeAt = -1, last;
      const end = () => (clearTimeout(timer), x.rl_call_free(call), (timer = null));
      /** Feeds event `event` (numbers after now and wall, then the lengths of `strings`), then does every effect. */
      const step = (event, numbers = [], strings = []) => {
        args([now(), Date.now(), ...numbers, ...put(strings)]);
        for (let code = x.rl_call_event(call, event); code !== 0; code = x.rl_call_poll(call)) {
          if (code === SEND) send(fetch, url, number(0));
          else if (code === ABORT) flights.get(number(0))?.abort(), flights.delete(number(0));
          else if (code === DONE) {
            const [how, reason] = [number(0), number(0) === 0 ? null : JSON.parse(text()).reason];
            end();
            if (how === 0) return resolve(last);
            last?.body?.cancel().catch(() => {});
            return reject(new Error(reason));
          } else if (code !== REPORT) return end(), reject(new Error(`effect ${code}: not in this driver`));
        }
        const at = number(WAKE_AT);
        if (bare || (at === wakeAt && (timer !== null || at < 0))) return;
        clearTimeout(timer);
        [timer, wakeAt] = [at < 0 ? null : setTimeout(() => ((timer = null), (wakeAt = -1), step(TIMER)), at - now()), at];
      };
      const send = (fetch, url, n) => {
        const controller = bare ? null : new AbortController();
        flights.set(n, controller);
        const settled = (ok, value) => {
          if (!flights.delete(n)) return ok && value.body?.cancel().catch(() => {}); // aborted: dropped
          if (!ok) return step(FAILED, [n, networkError], [String(value)]);
          last?.body?.cancel().catch(() => {}); // an earlier attempt's response, not handed on
          last = value;
          step(RESPONSE, [n, value.status, -1, -1], [value.headers.get("retry-after"), value.headers.get("date"), null]);
        };
        try {
          (bare ? fetch(url) : fetch(url, { signal: controller.signal })).then((r) => settled(true, r), (e) => settled(false, e));
        } catch (e) {
          queueMicrotask(() => settled(false, e)); // never fed while the effects are being done
        }
      };
      step(GO);
    });
  }
  return { client, attempt };
}
