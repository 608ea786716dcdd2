// The floor of the package's shape (bench/README.md, "The floor"): the least JavaScript that runs
// a retrying fetch on the core's fetch-path exports (src/abi, the `abi-fetch` build) — a client, a
// budget, one operation per call; each attempt raced with a timer that aborts its AbortController;
// the response's status, Retry-After and Date handed to the core, whose action code says send,
// sleep or stop. Nothing else: no options read, no Request built, no records, no store, no abort
// from the caller, no redaction of what fails, no error object but the reason's name.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ABSENT = 0xffffffff;
export const [OK, FAILED, TIMEOUT] = [0, 1, 2];

export function floor(instance) {
  const x = instance.exports;
  const slot = x.rl_slot();
  let buffer, bytes, words, floats, input = 0, room = 0;
  const views = () => buffer !== x.memory.buffer && ((buffer = x.memory.buffer), (bytes = new Uint8Array(buffer)), (words = new Uint32Array(buffer)), (floats = new Float64Array(buffer)));
  const number = (i) => (views(), floats[(slot >>> 3) + 1 + i]);
  const text = () => (views(), decoder.decode(bytes.subarray(words[slot >>> 2], words[slot >>> 2] + words[(slot >>> 2) + 1])));
  /** Strings into the input area, one after the other; their lengths (ABSENT for none). */
  const put = (...strings) => {
    let used = 0;
    return strings.map((s) => {
      if (s === undefined || s === null) return ABSENT;
      if (used + s.length * 3 > room) input = x.rl_input((room = (used + s.length * 3) * 2));
      views();
      const { written } = encoder.encodeInto(s, bytes.subarray(input + used, input + room));
      return (used += written), written;
    });
  };
  /** Options in the core's wire form (src/abi/wire.rs): numbers apart, booleans, objects. */
  const wire = (v, numbers) => typeof v === "number" ? (numbers.push(v), "n") : typeof v === "boolean" ? (v ? "t" : "f")
    : `{${Object.entries(v).map(([k, w]) => JSON.stringify(k) + wire(w, numbers)).join("")}}`;
  const make = (create, options, ...more) => {
    const numbers = [];
    const form = wire(options, numbers);
    if (numbers.length > 0) {
      const at = x.rl_numbers(numbers.length);
      views();
      floats.set(numbers, at >>> 3);
    }
    const handle = create(put(form)[0], ...more);
    if (handle === 0) throw new TypeError(text());
    return handle;
  };
  x.rl_names();
  const names = JSON.parse(text());
  const observed = Object.fromEntries(names.observed.map((name, i) => [name, i]));
  const now = () => Math.ceil(performance.now());

  /** One attempt: fetch raced with a timer that aborts it; [OK, response], [FAILED, error] or [TIMEOUT]. */
  async function attempt(fetch, url, ms) {
    const controller = new AbortController();
    let timer;
    try {
      return await new Promise((resolve) => {
        timer = setTimeout(() => (controller.abort(), resolve([TIMEOUT])), ms);
        try {
          fetch(url, { signal: controller.signal }).then((r) => resolve([OK, r]), (e) => resolve([FAILED, e]));
        } catch (e) {
          resolve([FAILED, e]);
        }
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** A client: `(fetch, url) => Promise<Response>`, GETs retried as the core decides. `send` replaces
   * `attempt` (the bench takes the timer and AbortController out with it, to see what they cost). */
  function client(options = {}, budgetOptions = {}, send = attempt) {
    const c = make(x.rl_client_new, options, Math.random() * 2 ** 53);
    const b = make(x.rl_budget_new, budgetOptions);
    return async function get(fetch, url) {
      const op = x.rl_op_begin(c, b, now(), Date.now(), ...put(url, "GET", undefined, undefined, ""));
      if (op === 0) throw new TypeError(text());
      let last;
      try {
        for (let code = x.rl_op_start(op, now(), Date.now()); ; ) {
          if (code === 0) {
            const [how, value] = await send(fetch, url, number(1));
            let seen = observed.timeout;
            let status = 0;
            let texts = [];
            if (how === OK) {
              last?.body?.cancel().catch(() => {}); // an earlier attempt's response, not handed on
              last = value;
              [seen, status, texts] = [observed.response, value.status, [value.headers.get("retry-after"), value.headers.get("date")]];
            } else if (how === FAILED) [seen, texts] = [observed["network-error"], [undefined, undefined, String(value)]];
            const [retryAfter, date, error] = put(texts[0], texts[1], texts[2]);
            code = x.rl_op_outcome(op, now(), Date.now(), seen, status, retryAfter, date, error, -1, -1, -1);
          } else if (code === 1) {
            if (number(1) > 0) await new Promise((resolve) => setTimeout(resolve, number(1)));
            code = x.rl_op_wake(op, now());
          } else if (names.reason[number(0)] === "success") {
            return last;
          } else {
            last?.body?.cancel().catch(() => {});
            throw new Error(names.reason[number(0)]);
          }
        }
      } finally {
        x.rl_op_free(op);
      }
    };
  }
  return { client, attempt };
}
