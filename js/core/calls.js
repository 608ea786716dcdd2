// A call's machine (src/call, src/abi/call.rs) with named arguments and plain results: begin it,
// feed it events, take its effects. Every effect is an object the caller may keep: nothing here
// hands out the core's slot.

import { ABSENT, UNREADABLE, invalid, unknownEffect } from "./instance.js";
import { encode } from "./wire.js";

/** Effect types (src/abi/call.rs). */
export const NONE = 0;
export const SEND = 1;
export const ABORT = 2;
export const GET = 3;
export const SET = 4;
export const DELETE = 5;
export const ASK = 6;
export const QUERY = 7;
export const REPORT = 8;
export const DONE = 9;
export const READ_BODY = 10;
/** A slot of a scope's maxInFlight freed: every machine of the budget hears news and looks again. */
export const WAKE = 14;
/** Keep a copy of the response the call resolves with (staleIfErrorMs). */
export const KEEP = 15;
/** A failed read asks when its kept response was kept. */
export const LOOK_STALE = 16;
/** A caller of a coalesced read leaves before its outcome (0: the one who began it). */
export const RELEASE = 17;
/** The same read is on the wire in another tab: listen for its answer. */
export const AWAIT = 18;
/** Carry this call's outcome to the tabs awaiting the same read. */
export const CARRY = 19;
/** A retry stands, before its sleep or send: `{ record, after }` (observed calls). */
export const RETRYING = 20;
/** The call, its client or its budget was freed: nothing can step it again. */
export const GONE = 255;
/** How a call ended (a DONE's `how`). */
export const SUCCESS = 0;
export const FAILED = 1;
export const BODY_THREW = 2;
export const RUNNING = 3;
export const RECONCILED = 4;
export const STALE = 5;
export const CARRIED = 6;
/** What a call is for. */
export const FETCH = 0;
export const RECONCILE = 1;
export const RESOLVE = 2;

/** How many numbers rl_call_event takes before an option value's (src/abi/call.rs). */
const EVENT_ARGS = 9;

/** An event's numbers, padded to what the export reads, so that a value's numbers follow them. */
function padded(list) {
  while (list.length < EVENT_ARGS) list.push(0);
  return list;
}

/** Event codes. */
const GO = 0;
const ENTERED = 1;
const BODY_READ = 2;
const HEADED = 3;
const RESPONSE = 4;
const FAILED_EVENT = 5;
const STORED = 6;
const ANSWERED = 7;
const QUERY_ANSWER = 8;
const TIMER = 9;
const ABORT_EVENT = 10;
const NEWS = 11;
const STALE_KEPT = 12;
const LEAVE = 13;
const CARRIED_EVENT = 14;
/** Leave's caller that means every caller (src/call/coalesce.rs). */
const EVERY_CALLER = 4294967295;

/** The calls of `mem`; `shareEffect` (./share.js) reads the steps on a budget shared beyond this
 * realm, in the entries that have such budgets. */
export function callsOf(mem, code, shareEffect = unknownEffect) {
  const x = mem.x;

  /** The effect the last export handed out, as an object; `wakeAt`: the call's timer (-1: none). */
  function effect(type) {
    const n = mem.number;
    const wakeAt = mem.wakeAt();
    switch (type) {
      case NONE:
        return { type, wakeAt };
      case SEND:
        return { type, wakeAt, attempt: n(0), timeoutMs: n(1), hedge: n(2) === 1, readBody: n(3) === 1 };
      case ABORT:
        return { type, wakeAt, attempt: n(0), timedOut: n(1) === 1 };
      case GET:
      case DELETE:
        return { type, wakeAt, seq: n(0) };
      case SET:
        return { type, wakeAt, seq: n(0), value: mem.text() };
      case ASK:
        return { type, wakeAt, seq: n(0), ...mem.json() };
      case QUERY:
        return { type, wakeAt, attempt: n(0) };
      case REPORT:
        return { type, wakeAt, records: mem.text() };
      case DONE: {
        const how = n(0);
        return { type, wakeAt, how, attempt: n(1), escalated: n(1) === 1, ageMs: n(1), json: how === SUCCESS || how === BODY_THREW || how === CARRIED ? undefined : mem.text() };
      }
      case LOOK_STALE:
        return { type, wakeAt, seq: n(0), key: `${n(1)}:${n(2)}` };
      case KEEP:
        return { type, wakeAt, key: `${n(0)}:${n(1)}` };
      case RELEASE:
        return { type, wakeAt, caller: n(0), json: mem.text() };
      case AWAIT:
        return { type, wakeAt, key: `${n(0)}:${n(1)}` };
      case CARRY:
        return { type, wakeAt, key: `${n(0)}:${n(1)}`, ok: n(2) === 1 };
      case RETRYING:
        return { type, wakeAt, ...mem.json() };
      case READ_BODY:
      case WAKE:
      case GONE:
        return { type, wakeAt };
      default:
        return { ...shareEffect(mem, type), wakeAt };
    }
  }

  /** Feeds event `kind` at `now`/`wall` with numbers `nums` and strings `strings` (whose lengths
   * follow the numbers); the first effect. */
  function feed(handle, kind, now, wall, nums = [], strings = [], wire = undefined) {
    const lengths = mem.put(strings);
    mem.args(padded([now, wall, ...nums, ...lengths]), wire);
    return effect(x.rl_call_event(handle, kind));
  }

  return {
    /** Begins a call; its handle and the used-weight header it reads (undefined: none). Throws the
     * core's TypeError or RangeError, named by `where` (reconcile: `where[argument]`). */
    begin({ client, budget, now, wall, purpose = FETCH, hasBody = false, asks = false, observed = false, platformFetch = false, url = "", method = "", scope, options, extra = "", key, state, headers }, where) {
      const texts = [url, method, scope, undefined, extra, undefined, undefined, headers];
      const numbers = [];
      for (const [at, value] of [[3, options], [5, key], [6, state]]) {
        if (value === undefined || value === null) continue;
        const wire = encode(value);
        texts[at] = wire.text;
        for (const n of wire.numbers) numbers.push(n);
      }
      const lengths = mem.put(texts);
      // 16: this shell carries a read's answer to the other tabs of a shared budget.
      const flags = (hasBody ? 1 : 0) | (asks ? 2 : 0) | (observed ? 4 : 0) | (platformFetch ? 8 : 0) | 16;
      mem.args([now, wall, purpose, flags, ...lengths], numbers);
      const handle = x.rl_call_begin(client, budget);
      if (handle === 0) {
        if (typeof where === "function") throw where(mem);
        throw invalid(mem, where);
      }
      // `caller` > 0: the read joined the running call `handle` (coalesce).
      const caller = mem.number(1);
      return { handle, caller, header: mem.number(0) === 1 ? mem.text() : undefined };
    },
    go: (handle, now, wall) => feed(handle, GO, now, wall),
    leave: (handle, now, wall, caller) => feed(handle, LEAVE, now, wall, [caller]),
    /** The platform set no timer: every caller leaves (joined ones too), and the call is aborted. */
    unbounded: (handle, now, wall) => feed(handle, LEAVE, now, wall, [EVERY_CALLER]),
    carried: (handle, now, wall, ok) => feed(handle, CARRIED_EVENT, now, wall, [ok ? 1 : 0]),
    entered(handle, now, wall, seq, state) {
      if (state === undefined || state === null) return feed(handle, ENTERED, now, wall, [seq, ABSENT]);
      const { lengths, numbers } = mem.putValues([], [state]);
      mem.args(padded([now, wall, seq, lengths[0]]), numbers);
      return effect(x.rl_call_event(handle, ENTERED));
    },
    bodyRead: (handle, now, wall, read) => feed(handle, BODY_READ, now, wall, [read ? 1 : 0]),
    headed: (handle, now, wall, attempt) => feed(handle, HEADED, now, wall, [attempt]),
    /** A response: `head` as platform/response.js reads it ({ status, retryAfter, hidden, date, used, reset }). */
    response(handle, now, wall, attempt, head) {
      const lengths = mem.put([head.hidden ? null : head.retryAfter, head.date, head.reset?.[1]]);
      if (head.hidden) lengths[0] = UNREADABLE;
      mem.args([now, wall, attempt, head.status, head.used ?? -1, head.reset?.[0] ?? -1, ...lengths]);
      return effect(x.rl_call_event(handle, RESPONSE));
    },
    failed: (handle, now, wall, attempt, observed, words) => feed(handle, FAILED_EVENT, now, wall, [attempt, code.observed[observed]], [words]),
    /** The store answered: `value` (anything JSON holds; null: nothing), or failed with `words`. */
    stored(handle, now, wall, seq, { value, words }) {
      if (words !== undefined) return feed(handle, STORED, now, wall, [seq, 0], [words]);
      const { lengths, numbers } = mem.putValues([], [value]);
      mem.args(padded([now, wall, seq, 1, lengths[0]]), numbers);
      return effect(x.rl_call_event(handle, STORED));
    },
    /** The predicate answered: true (go on), false, or threw (`threw`: what it threw, described). */
    answered: (handle, now, wall, seq, yes, threw) => feed(handle, ANSWERED, now, wall, [seq, threw !== undefined ? 2 : yes ? 1 : 0], [threw]),
    /** A status query found `evidence` (a name), or failed with `words`. */
    queryAnswer: (handle, now, wall, attempt, evidence, words) =>
      feed(handle, QUERY_ANSWER, now, wall, [attempt, evidence === undefined ? -1 : code.evidence[evidence]], [words]),
    timer: (handle, now, wall) => feed(handle, TIMER, now, wall),
    abort: (handle, now, wall) => feed(handle, ABORT_EVENT, now, wall),
    news: (handle, now, wall) => feed(handle, NEWS, now, wall),
    /** The kept response of a failed read was kept at wall time `at` (undefined: none is kept). */
    staleKept: (handle, now, wall, seq, at) => feed(handle, STALE_KEPT, now, wall, [seq, at ?? -1]),
    /** The next effect. */
    poll: (handle) => effect(x.rl_call_poll(handle)),
    free: (handle) => x.rl_call_free(handle),
    /** What a begun call would decide, for the worksheet (the server build's). */
    plan(handle) {
      x.rl_call_plan(handle);
      return mem.json();
    },
    hasPlan: typeof x.rl_call_plan === "function",
  };
}
