// Drives one stream's connection machine (src/stream through src/abi/stream.rs): the core decides
// connect, sleep or stop, and when an open connection is stale, replaced or rotated; this opens the
// sockets, runs the timers, and tells the core what each socket did. Every timer is ours: a socket
// that never opens or never closes loses to the connect timeout.

import { now, wall } from "../platform/clock.js";
import { clear, timer } from "../platform/race.js";
import { describe } from "../platform/describe.js";
import { attach, closeQuietly, detach } from "../platform/socket.js";
import { Pace } from "../platform/pace.js";
import { report, resync, setState, startHeartbeat } from "./stream-steps.js";

/** Action codes (src/abi/stream.rs). */
const CONNECT = 0;
const SLEEP = 1;
const STOP = 2;
const GONE = 3;
const ADOPTED = 4;
/** Events (rl_stream_event). */
const CONNECT_EVENT = 0;
const WAKE = 1;
const OPEN = 2;
const ROTATE_EVENT = 3;
const ROTATED = 4;
const STOP_EVENT = 5;
/** Check codes. */
const FRESH = 0;
const STALE = 1;
const REPLACE = 2;
const ROTATE = 3;

/** Starts the stream `s` (js/api/stream.js made it). */
export function run(s) {
  s.pace = s.sendPerSecond > 0 ? new Pace(s.sendPerSecond) : null;
  s.timers = { sleep: null, connect: null, watch: null, heartbeat: null };
  s.rotation = null;
  s.subject = 0;
  if (s.signal !== undefined) {
    try {
      if (s.signal.aborted) s.closeRequested = true;
      else s.signal.addEventListener("abort", () => close(s), { once: true });
    } catch {}
  }
  if (s.closeRequested) return close(s);
  void decide(s, (x) => x.rl_stream_event(s.handle, CONNECT_EVENT, now(), wall()));
}

/** Runs one step of the machine under the budget's lock when it is shared; acts on its answer. */
async function decide(s, f) {
  const { core, budget } = s.c;
  const x = core.x;
  const shared = budget.shared;
  if (s.state === "stopped") return;
  let code;
  let numbers;
  if (shared !== null) {
    s.subject = x.rl_stream_subject(s.handle, s.subject, now(), wall());
    s.op = s.subject;
    s.deadline = core.number(0);
    s.deciding = true;
    try {
      await shared.enter(s);
      // Closed while it waited for the lock: the lock is still let go of.
      if (s.state !== "stopped") {
        code = f(x);
        numbers = [core.number(0), core.number(1)];
      }
      await shared.leave(s);
    } finally {
      s.deciding = false;
      if (s.state === "stopped") x.rl_op_free(s.subject);
    }
    if (s.state === "stopped") return;
  } else {
    code = f(x);
    numbers = [core.number(0), core.number(1)];
  }
  report(s);
  act(s, code, numbers);
}

/** Does what the core said. */
function act(s, code, [n0, n1]) {
  if (s.state === "stopped") return;
  if (code === CONNECT) return connect(s, n1, false);
  if (code === SLEEP) {
    setState(s, "waiting");
    s.timers.sleep = timer(() => wake(s), n1);
    return;
  }
  if (code === ADOPTED) {
    // The rotation's socket, in flight, is this outage's attempt now.
    const r = s.rotation;
    s.rotation = null;
    if (r === null) return connect(s, s.c.core.number(1), false);
    r.rotating = false;
    s.socket = r;
    setState(s, "connecting");
    if (r.ready) ready(s, r);
    return;
  }
  if (code === STOP || code === GONE) return stop(s, code === STOP ? s.c.core.names.reason[n0] : "aborted");
}

function wake(s) {
  s.timers.sleep = null;
  void decide(s, (x) => x.rl_stream_event(s.handle, WAKE, now(), 0));
}

/** Opens a socket for the attempt (or the rotation's), cut by its connect timeout. */
function connect(s, timeoutMs, rotating) {
  if (!rotating) setState(s, "connecting");
  const link = { socket: null, rotating, opened: false, ready: false, openedAt: 0, status: 0, retryAfter: undefined, date: undefined, done: false, delivered: false, timeout: null };
  if (rotating) s.rotation = link;
  else s.socket = link;
  link.timeout = timer(() => failed(s, link, "timeout", `no connection within ${timeoutMs} ms`), timeoutMs);
  try {
    link.socket = s.protocols === undefined ? new s.WebSocket(s.url) : new s.WebSocket(s.url, s.protocols);
  } catch (error) {
    return failed(s, link, "network-error", describe(error));
  }
  attach(link.socket, {
    open: () => opened(s, link),
    message: (event) => message(s, link, event),
    close: (code, reason) => closed(s, link, code, reason),
    refused: (status, retryAfter, date) => {
      link.status = status;
      link.retryAfter = retryAfter;
      link.date = date;
      failed(s, link, "response", `the upgrade was refused with ${status}`);
    },
  });
}

/** The socket opened: the caller's onOpen runs on it (bounded by what is left of the connect timeout). */
async function opened(s, link) {
  if (link.done || s.state === "stopped") return;
  link.opened = true;
  link.openedAt = now();
  if (s.onOpen !== undefined) {
    try {
      await s.onOpen(facade(s, link));
    } catch (error) {
      return failed(s, link, "network-error", `onOpen failed: ${describe(error)}`);
    }
    if (link.done || s.state === "stopped") return;
  }
  link.ready = true;
  // A rotation's connection takes over when it delivers (see message); its timeout runs till then.
  if (!link.rotating) ready(s, link);
}

/** The attempt's connection is up: the core watches it from now. */
function ready(s, link) {
  clear(link.timeout);
  link.timeout = null;
  const x = s.c.core.x;
  s.openedAt = now();
  s.heardAt = -1;
  const code = x.rl_stream_event(s.handle, OPEN, now(), wall());
  watch(s, code);
  report(s);
  startHeartbeat(s, send);
  void resync(s);
}

/** What onOpen gets: the socket, with `send` paced like the stream's. */
function facade(s, link) {
  return { send: (data) => send(s, link, data), get socket() { return link.socket; }, get protocol() { try { return link.socket.protocol; } catch { return ""; } } };
}

function message(s, link, event) {
  if (link.done || s.state === "stopped") return;
  if (link.rotating) {
    if (!link.ready) return;
    switchTo(s, link);
  } else if (link !== s.socket) return;
  s.heardAt = now();
  s.lastMessageWall = wall();
  if (s.state === "stale" && !s.resyncing) setState(s, "open");
  let data;
  try {
    data = event.data;
  } catch {}
  s.target.dispatchEvent(new MessageEvent("message", { data }));
}

/** Make-before-break: the rotation's socket delivered; the old one goes without a reconnect. */
function switchTo(s, link) {
  const old = s.socket;
  clear(link.timeout);
  link.timeout = null;
  link.rotating = false;
  s.rotation = null;
  s.socket = link;
  s.openedAt = now();
  s.c.core.x.rl_stream_event(s.handle, ROTATED, now(), wall());
  report(s);
  if (old !== null) retire(old, 1000, "rotated");
  watch(s, s.c.core.x.rl_stream_check(s.handle, now(), wall(), now()));
}

/** The socket closed: before it opened (a failed attempt) or after (a drop). */
function closed(s, link, code, reason) {
  if (link.done || s.state === "stopped") return;
  const words = reason ? ` (${reason.slice(0, 120)})` : "";
  if (!link.ready || link.timeout !== null) return failed(s, link, "network-error", `closed before it opened, code ${code}${words}`);
  const up = now() - link.openedAt;
  dropped(s, link, "network-error", `closed after ${up} ms up, code ${code}${words}`, code);
}

/** The attempt failed before the connection was up. */
function failed(s, link, observed, words) {
  if (link.done) return;
  dropped(s, link, observed, words, -1);
}

/** Tells the core a socket is done; a rotation's failure leaves the stream's connection as it is. */
function dropped(s, link, observed, words, code) {
  link.done = true;
  clear(link.timeout);
  retire(link, 1000, "");
  if (s.state === "stopped") return;
  const { core } = s.c;
  const x = core.x;
  const observedCode = core.code.observed[observed];
  const error = s.c.redact(words);
  if (link.rotating) {
    s.rotation = null;
    const [ra, date, len] = core.put([undefined, undefined, error]);
    x.rl_stream_close(s.handle, now(), wall(), 1, observedCode, link.status, ra, date, len, -1);
    report(s);
    return watch(s, x.rl_stream_check(s.handle, now(), wall(), s.heardAt));
  }
  if (link !== s.socket) return;
  s.socket = null;
  s.openedAt = null;
  stopWatching(s);
  void decide(s, () => {
    const [ra, date, len] = core.put([link.retryAfter, link.date, error]);
    return x.rl_stream_close(s.handle, now(), wall(), 0, observedCode, link.status, ra, date, len, code);
  });
}

/** Acts on a check's verdict (`code`, its next instant the core's number 0 now), and arms the next check. */
function watch(s, code, next = s.c.core.number(0)) {
  clear(s.timers.watch);
  s.timers.watch = null;
  if (code === REPLACE) {
    const link = s.socket;
    const silent = s.heardAt < 0 ? now() - (s.openedAt ?? now()) : now() - s.heardAt;
    if (link !== null) return dropped(s, link, "timeout", `no message for ${silent} ms: replaced`, -1);
  }
  if (code === ROTATE) rotate(s);
  if (code === STALE) setState(s, "stale");
  if (code === FRESH && !(s.state === "stale" && (s.resyncing || s.heardAt < 0))) setState(s, "open");
  if (next >= 0) s.timers.watch = timer(() => check(s), next - now());
}

/** A check's timer fired: the core looks at the connection (and may prove its uptime: a record). */
function check(s) {
  s.timers.watch = null;
  if (s.state === "stopped") return;
  const x = s.c.core.x;
  const code = x.rl_stream_check(s.handle, now(), wall(), s.heardAt);
  const next = s.c.core.number(0);
  report(s);
  watch(s, code, next);
}

function stopWatching(s) {
  for (const name of ["watch", "heartbeat"]) {
    clear(s.timers[name]);
    s.timers[name] = null;
  }
}

/** Opens the next connection beside the old one, if the gate and the budget let it go now. */
function rotate(s) {
  const code = s.c.core.x.rl_stream_event(s.handle, ROTATE_EVENT, now(), wall());
  report(s);
  if (code === CONNECT) connect(s, s.c.core.number(1), true);
}

/** Sends `data` on `link`, through the pace when there is one. */
export function send(s, link, data) {
  if (s.pace === null) return write(link, data);
  s.pace.push(() => write(link, data));
}

function write(link, data) {
  if (link.done) return;
  try {
    link.socket.send(data);
  } catch {
    // A socket that cannot send is about to close: its close tells the core.
  }
}

/** Closes the stream for good (the caller's close, or its signal). */
export function close(s) {
  if (s.state === "stopped") return;
  const x = s.c.core.x;
  x.rl_stream_event(s.handle, STOP_EVENT, now(), wall());
  report(s);
  stop(s, "aborted");
}

/** Ends the stream: every socket and timer gone, its state freed, a "stop" event. */
function stop(s, reason) {
  if (s.state === "stopped") return;
  const { core } = s.c;
  const x = core.x;
  for (const name of Object.keys(s.timers)) {
    clear(s.timers[name]);
    s.timers[name] = null;
  }
  for (const link of [s.socket, s.rotation]) {
    if (link === null) continue;
    link.done = true;
    clear(link.timeout);
    retire(link, 1000, "closed");
  }
  s.socket = null;
  s.rotation = null;
  s.pace?.clear();
  x.rl_stream_error(s.handle);
  // Nothing comes back for a stream whose client or budget was freed: it still stops, and says so.
  const text = core.text();
  const details = text === "" ? { reason, message: `stream ${s.url}: ${reason} (its client or budget was freed)`, records: [] } : JSON.parse(text);
  x.rl_stream_free(s.handle);
  // A step waiting for a shared budget's lock frees it once it has let go.
  if (s.subject !== 0 && !s.deciding) x.rl_op_free(s.subject);
  s.reason = reason;
  setState(s, "stopped");
  const error = reason === "aborted" ? undefined : new s.c.RetryError(details.reason, details.message, { records: details.records });
  s.target.dispatchEvent(Object.assign(new Event("stop"), { reason, error }));
}

/** Closes a socket we are done with, its listeners gone first so its close tells nothing. */
function retire(link, code, reason) {
  if (link.socket === null) return;
  detach(link.socket);
  closeQuietly(link.socket, code, reason);
}

export { resync };
