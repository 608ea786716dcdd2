// A stream's session (src/stream/session, src/abi/stream.rs) with named arguments and plain
// results: begin it, feed it what each socket and callback did, take its effects.

import { invalid } from "./instance.js";
import { encode } from "./wire.js";
import { shareEffect } from "./share.js";

/** Effect types (src/abi/stream.rs). */
export const NONE = 0;
export const CONNECT = 1;
export const CLOSE = 2;
export const ON_OPEN = 3;
export const STATE = 4;
export const DELIVER = 5;
export const WRITE = 6;
export const PING = 7;
export const RESYNC = 8;
export const REPORT = 9;
export const STOPPED = 10;
export const DISCARD = 14;
export const SERVER_CLOSED = 15;
export const UNSENT = 16;
export const RECONNECT_REFUSED = 17;
/** The stream, its client or its budget was freed: nothing can step it again. */
export const GONE = 255;

const STATES = ["connecting", "open", "stale", "waiting", "stopped"];
/** What the page says of itself, in the core's order. */
export const PAGE_SIGNALS = ["offline", "online", "hidden", "visible", "wake"];
/** How many numbers rl_stream_event takes before an option value's. */
const EVENT_ARGS = 6;

export function streamsOf(mem, code, names) {
  const x = mem.x;

  function effect(type) {
    const n = mem.number;
    const wakeAt = mem.wakeAt();
    switch (type) {
      case NONE:
      case GONE:
        return { type, wakeAt };
      case DELIVER:
      case DISCARD:
        return { type, wakeAt, id: n(0) };
      case CONNECT:
      case ON_OPEN:
      case PING:
        return { type, wakeAt, link: n(0) };
      case CLOSE:
        return { type, wakeAt, link: n(0), code: n(1), reason: mem.text() };
      case STATE:
        return { type, wakeAt, state: STATES[n(0)] };
      case WRITE:
        return { type, wakeAt, id: n(0), link: n(1) };
      case RESYNC:
        return { type, wakeAt, round: n(0) };
      case REPORT:
        return { type, wakeAt, records: mem.text() };
      case STOPPED:
        return { type, wakeAt, reason: names.reason[n(0)], json: mem.text() };
      case SERVER_CLOSED:
        return { type, wakeAt, code: n(0), reason: mem.text() };
      case UNSENT:
        return { type, wakeAt, id: n(0), why: mem.text() };
      case RECONNECT_REFUSED:
        return { type, wakeAt, reason: names.reason[n(0)], why: mem.text() };
      default:
        return { ...shareEffect(mem, type), wakeAt };
    }
  }

  function feed(handle, kind, now, wall, nums = [], strings = [], wire = undefined) {
    const lengths = mem.put(strings);
    const args = [now, wall, ...nums, ...lengths];
    while (args.length < EVENT_ARGS) args.push(0);
    mem.args(args, wire);
    return effect(x.rl_stream_event(handle, kind));
  }

  return {
    /** Begins a stream's session; its handle. @throws {TypeError | RangeError} naming the option. */
    begin({ client, budget, now, wall, onOpen = false, resync = false, observed = false, heartbeatMs = 0, url, options, extra = "" }) {
      const wire = options === undefined ? null : encode(options);
      const lengths = mem.put([url, wire?.text, extra]);
      mem.args([now, wall, (onOpen ? 1 : 0) | (resync ? 2 : 0) | (observed ? 4 : 0), heartbeatMs, ...lengths], wire?.numbers);
      const handle = x.rl_stream_begin(client, budget);
      if (handle === 0) throw invalid(mem, "stream options");
      return handle;
    },
    start: (h, t, w) => feed(h, 0, t, w),
    entered(h, t, w, seq, state) {
      if (state === null || state === undefined) return feed(h, 1, t, w, [seq, 0xffffffff]);
      const wire = encode(state);
      const [len] = mem.put([wire.text]);
      return feed(h, 1, t, w, [seq, len, 0, 0], [], wire.numbers);
    },
    opened: (h, t, w, link) => feed(h, 2, t, w, [link]),
    /** `threw`: what onOpen threw, described (undefined: it finished). */
    onOpenDone: (h, t, w, link, threw) => feed(h, 3, t, w, [link, threw === undefined ? 1 : 0], [threw]),
    message: (h, t, w, link, id) => feed(h, 4, t, w, [link, id]),
    closed: (h, t, w, link, closeCode, reason) => feed(h, 5, t, w, [link, closeCode], [reason]),
    refused: (h, t, w, link, status, retryAfter, date) => feed(h, 6, t, w, [link, status], [retryAfter, date]),
    failed: (h, t, w, link, words) => feed(h, 7, t, w, [link], [words]),
    timer: (h, t, w) => feed(h, 8, t, w),
    /** Message `id` on socket `link` (0: the stream's current connection). */
    send: (h, t, w, id, link) => feed(h, 9, t, w, [id, link]),
    close: (h, t, w, code = 0, reason = undefined) => feed(h, 10, t, w, [code], [reason]),
    resynced: (h, t, w, round, ok) => feed(h, 11, t, w, [round, ok ? 1 : 0]),
    gap: (h, t, w) => feed(h, 12, t, w),
    /** The caller's reconnect (code 0: 1000 "reconnect"). */
    reconnect: (h, t, w, code = 0, reason = undefined) => feed(h, 13, t, w, [code], [reason]),
    /** What the page said: one of PAGE_SIGNALS. */
    page: (h, t, w, signal) => feed(h, 14, t, w, [PAGE_SIGNALS.indexOf(signal)]),
    poll: (h) => effect(x.rl_stream_poll(h)),
    free: (h) => x.rl_stream_free(h),
  };
}
