// Carries out one stream's session (src/stream/session through js/core/streams.js): it opens and
// closes the sockets it is told to, runs the caller's onOpen and resync, writes what the pace lets
// through, tells the listeners, and feeds back what each socket and callback did — with one timer
// armed where the session asks. It decides nothing.

import { now, wall } from "../platform/clock.js";
import { aborted, clear, follow, FULFILLED, REJECTED, swallow, timer } from "../platform/race.js";
import { describe } from "../platform/describe.js";
import { attach, closeQuietly, detach } from "../platform/socket.js";
import { CONNECT, CLOSE, ON_OPEN, STATE, DELIVER, WRITE, PING, RESYNC, REPORT, STOPPED, NONE, GONE } from "../core/streams.js";
import { releaseHeld, shareStep } from "./share.js";

/** Starts the stream `s` (js/api/stream.js made it). */
export function run(s) {
  Object.assign(s, { sockets: new Map(), messages: new Map(), nextId: 0, queue: [], draining: false, timer: null, wakeAt: -1, done: false, data: undefined });
  if (s.signal !== undefined) {
    try {
      if (aborted([s.signal])) s.closeRequested = true;
      else s.signal.addEventListener("abort", () => close(s), { once: true });
    } catch {}
  }
  feed(s, (m, h, t, w) => m.start(h, t, w));
  if (s.closeRequested) close(s);
}

/** Feeds one event (`step` makes it; `data`, a message's, goes to the listeners if it is delivered). */
function feed(s, step, data) {
  if (s.done) return;
  if (s.draining) {
    s.queue.push([step, data]);
    return;
  }
  const { streams } = s.c.core;
  s.draining = true;
  try {
    for (;;) {
      s.data = data;
      let effect = step(streams, s.handle, now(), wall());
      while (effect.type !== NONE && !s.done) {
        perform(s, effect);
        if (!s.done) effect = streams.poll(s.handle);
      }
      if (s.done) return;
      arm(s, effect.wakeAt);
      const next = s.queue.shift();
      if (next === undefined) return;
      [step, data] = next;
    }
  } finally {
    s.draining = false;
    s.data = undefined;
  }
}

function arm(s, wakeAt) {
  if (wakeAt === s.wakeAt && (s.timer !== null || wakeAt < 0)) return;
  clear(s.timer);
  s.timer = null;
  s.wakeAt = wakeAt;
  if (wakeAt < 0) return;
  s.timer = timer(() => {
    s.timer = null;
    s.wakeAt = -1;
    feed(s, (m, h, t, w) => m.timer(h, t, w));
  }, wakeAt - now());
}

function perform(s, effect) {
  switch (effect.type) {
    case CONNECT:
      return connect(s, effect.link);
    case CLOSE: {
      const socket = s.sockets.get(effect.link);
      s.sockets.delete(effect.link);
      if (socket === undefined) return;
      detach(socket);
      return closeQuietly(socket, effect.code, effect.reason);
    }
    case ON_OPEN:
      return onOpen(s, effect.link);
    case STATE: {
      const previous = s.state;
      s.state = effect.state;
      s.staleSinceWall = effect.state === "stale" ? wall() : null;
      return s.target.dispatchEvent(Object.assign(new Event("state"), { state: effect.state, previous }));
    }
    case DELIVER:
      s.lastMessageWall = wall();
      return s.target.dispatchEvent(new MessageEvent("message", { data: s.data }));
    case WRITE: {
      const data = s.messages.get(effect.id);
      s.messages.delete(effect.id);
      const socket = s.sockets.get(effect.link);
      try {
        socket?.send(data);
      } catch {
        // A socket that cannot send is about to close: its close tells the session.
      }
      return;
    }
    case PING:
      return ping(s, effect.link);
    case RESYNC:
      return resync(s, effect.round);
    case REPORT:
      return report(s, effect.records);
    case STOPPED:
      return stopped(s, effect);
    case GONE:
      // Its client or budget was freed: it stops, and says so.
      return stopped(s, { reason: "aborted", json: JSON.stringify({ reason: "aborted", message: `stream ${s.url}: aborted (its client or budget was freed)`, records: [] }) });
    default:
      return shareStep(s, effect, (step) => feed(s, step));
  }
}

/** Opens the socket of connection `link`; everything it does goes to the session. */
function connect(s, link) {
  let socket;
  try {
    socket = s.protocols === undefined ? new s.WebSocket(s.url) : new s.WebSocket(s.url, s.protocols);
  } catch (error) {
    return feed(s, (m, h, t, w) => m.failed(h, t, w, link, describe(error)));
  }
  s.sockets.set(link, socket);
  attach(socket, {
    open: () => feed(s, (m, h, t, w) => m.opened(h, t, w, link)),
    message: (event) => {
      let data;
      try {
        data = event.data;
      } catch {}
      feed(s, (m, h, t, w) => m.message(h, t, w, link), data);
    },
    close: (code, reason) => feed(s, (m, h, t, w) => m.closed(h, t, w, link, code, reason)),
    refused: (status, retryAfter, date) => feed(s, (m, h, t, w) => m.refused(h, t, w, link, status, retryAfter, date)),
  });
}

/** Queues `data` on socket `link` (0: the stream's current connection); the pace writes it. */
export function send(s, link, data) {
  const id = ++s.nextId;
  s.messages.set(id, data);
  feed(s, (m, h, t, w) => m.send(h, t, w, id, link));
}

/** The caller's onOpen on socket `link`, with `send` paced like the stream's. */
function onOpen(s, link) {
  const facade = {
    send: (data) => send(s, link, data),
    get socket() {
      return s.sockets.get(link);
    },
    get protocol() {
      try {
        return s.sockets.get(link)?.protocol ?? "";
      } catch {
        return "";
      }
    },
  };
  const done = (threw) => feed(s, (m, h, t, w) => m.onOpenDone(h, t, w, link, threw));
  let opened;
  try {
    opened = s.onOpen(facade);
  } catch (error) {
    return done(describe(error));
  }
  follow(opened, ([how, value]) => done(how === REJECTED ? describe(value) : undefined));
}

/** An application-level ping (runtimes that cannot send ping frames): the caller's message. */
function ping(s, link) {
  let payload = s.heartbeat?.message;
  if (typeof payload === "function") {
    try {
      payload = payload();
    } catch {
      payload = undefined;
    }
  }
  if (payload !== undefined) send(s, link, payload);
}

/** The caller's resync of round `round`: the stream is stale until it resolves. */
function resync(s, round) {
  const done = (ok) => feed(s, (m, h, t, w) => m.resynced(h, t, w, round, ok));
  let resynced;
  try {
    resynced = s.resync(s.target);
  } catch {
    return done(false);
  }
  follow(resynced, ([how]) => done(how === FULFILLED));
}

/** Hands the new records to the client's observer and the stream's. */
function report(s, text) {
  const { c } = s;
  for (const observer of [c.onAttempt, s.onAttempt]) {
    if (observer === undefined) continue;
    for (const record of JSON.parse(text)) {
      try {
        const returned = observer(record);
        if (returned !== null && (typeof returned === "object" || typeof returned === "function")) swallow(returned);
      } catch {
        // A throwing observer must not break the stream it observes.
      }
    }
  }
}

/** Closes the stream for good (the caller's close, or its signal). */
export function close(s) {
  feed(s, (m, h, t, w) => m.close(h, t, w));
}

/** Reports a gap: the stream is stale until it is resynced. */
export function gap(s) {
  feed(s, (m, h, t, w) => m.gap(h, t, w));
}

/** The session stopped: its machine freed, a "stop" event with the reason (and an error unless the caller closed it). */
function stopped(s, { reason, json }) {
  s.done = true;
  clear(s.timer);
  releaseHeld(s);
  s.c.core.streams.free(s.handle);
  for (const socket of s.sockets.values()) {
    detach(socket);
    closeQuietly(socket, 1000, "closed");
  }
  s.sockets.clear();
  s.reason = reason;
  s.state = "stopped";
  const details = JSON.parse(json);
  const error = reason === "aborted" ? undefined : new s.c.RetryError(details.reason, details.message, { records: details.records });
  s.target.dispatchEvent(Object.assign(new Event("stop"), { reason, error }));
}
