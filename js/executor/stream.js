// Carries out one stream's session (src/stream/session through js/core/streams.js): it opens and
// closes the sockets it is told to, runs the caller's onOpen and resync, writes what the pace lets
// through, tells the listeners, and feeds back what each socket and callback did (./drive.js). It
// decides nothing.

import { wall } from "../platform/clock.js";
import { aborted, follow, FULFILLED, REJECTED } from "../platform/race.js";
import { describe } from "../platform/describe.js";
import { attach, closeQuietly, detach } from "../platform/socket.js";
import { tell } from "../platform/observers.js";
import { CONNECT, CLOSE, ON_OPEN, STATE, DELIVER, DISCARD, WRITE, PING, RESYNC, REPORT, STOPPED, SERVER_CLOSED, UNSENT, RECONNECT_REFUSED, GONE } from "../core/streams.js";
import { listenToPage } from "../platform/page-signals.js";
import { readProtocols, readUrl } from "../platform/ws-url.js";
import { disarm, driven, feed } from "./drive.js";
import { releaseHeld, shareStep } from "./share.js";

/** Starts the stream `s` (js/api/stream.js made it). */
export function run(s) {
  Object.assign(s, driven(s.c.core.streams, perform), { sockets: new Map(), messages: new Map(), nextId: 0, resolving: new Set(), unlisten: undefined });
  if (s.signal !== undefined) {
    try {
      if (aborted([s.signal])) s.closeRequested = true;
      else s.signal.addEventListener("abort", () => close(s), { once: true });
    } catch {}
  }
  // Closed (or its signal aborted) before it ran: the core stops it without a connection attempt.
  if (s.closeRequested) return close(s, s.closeCode, s.closeReason);
  listen(s);
  feed(s, (m, h, t, w) => m.start(h, t, w));
}

/** The page's signals go to the session (where there is a page, and the caller did not turn them off). */
function listen(s) {
  if (s.pageSignals && s.unlisten === undefined) s.unlisten = listenToPage((signal) => feed(s, (m, h, t, w) => m.page(h, t, w, signal)));
}

function perform(s, effect) {
  switch (effect.type) {
    case CONNECT:
      return connect(s, effect.link);
    case CLOSE: {
      // A socket still waiting for its URL is never made.
      s.resolving.delete(effect.link);
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
      if (effect.state !== "stopped") s.reason = undefined;
      s.staleSinceWall = effect.state === "stale" ? wall() : null;
      return s.target.dispatchEvent(Object.assign(new Event("state"), { state: effect.state, previous }));
    }
    case DELIVER:
      s.lastMessageWall = wall();
      return s.target.dispatchEvent(new MessageEvent("message", { data: taken(s, effect.id) }));
    case DISCARD:
      return void taken(s, effect.id);
    case WRITE: {
      const data = taken(s, effect.id);
      try {
        s.sockets.get(effect.link)?.send(data);
      } catch {
        // A socket that cannot send is about to close: its close tells the session.
      }
      return;
    }
    case PING: {
      // An application-level ping (runtimes that cannot send ping frames): the caller's message.
      let payload = s.heartbeat?.message;
      try {
        if (typeof payload === "function") payload = payload();
      } catch {
        payload = undefined;
      }
      if (payload !== undefined) send(s, effect.link, payload);
      return;
    }
    case RESYNC: {
      const done = (ok) => feed(s, (m, h, t, w) => m.resynced(h, t, w, effect.round, ok));
      try {
        return follow(s.resync(s.target), ([how]) => done(how === FULFILLED));
      } catch {
        return done(false);
      }
    }
    case REPORT:
      s.spans?.(effect.records);
      s.c.budget.events.look();
      return tell([s.c.onAttempt, s.onAttempt], effect.records);
    case STOPPED:
      return stopped(s, effect.reason, JSON.parse(effect.json));
    case SERVER_CLOSED:
      // 1006 is the code of a close without a closing handshake: the one close that is not clean.
      return s.target.dispatchEvent(Object.assign(new Event("close"), { code: effect.code, reason: effect.reason, wasClean: effect.code !== 1006 }));
    case UNSENT:
      return s.target.dispatchEvent(Object.assign(new Event("unsent"), { data: taken(s, effect.id), why: effect.why }));
    case RECONNECT_REFUSED: {
      const error = new s.c.RetryError(effect.reason, effect.why, { records: [] });
      if (s.state === "stopped") {
        // Still stopped by its policy: nothing runs, it does not hear the page, and it is kept for a reconnect.
        s.done = true;
        s.unlisten?.();
        s.unlisten = undefined;
        kept.register(s.target, { streams: s.c.core.streams, handle: s.handle }, s);
      }
      if (s.reconnecting) return void (s.refusal = error);
      return s.target.dispatchEvent(Object.assign(new Event("error"), { error }));
    }
    case GONE:
      // Its client or budget was freed: it stops, and says so.
      return stopped(s, "aborted", { reason: "aborted", message: `stream ${s.url}: aborted (its client or budget was freed)`, records: [] });
    default:
      return shareStep(s, effect, (step) => feed(s, step));
  }
}

/** Opens the socket of connection `link`, its URL and protocols first asked of the caller's
 * providers (a provider that throws fails the attempt; one that hangs, the connect timeout). */
function connect(s, link) {
  const fail = (words) => feed(s, (m, h, t, w) => m.failed(h, t, w, link, words));
  if (s.urlProvider === undefined && typeof s.protocols !== "function") return open(s, link, s.url, s.protocols);
  s.resolving.add(link);
  Promise.all([ask(s.urlProvider, "url"), ask(s.protocols, "protocols")]).then(
    ([url, protocols]) => {
      if (!s.resolving.delete(link)) return;
      try {
        if (s.urlProvider !== undefined) s.url = readUrl(url, "the url provider's value");
        if (typeof s.protocols === "function" && protocols !== undefined && protocols !== null) protocols = readProtocols(protocols, "the protocols provider's value");
      } catch (error) {
        return fail(error.message);
      }
      open(s, link, s.url, typeof s.protocols === "function" ? (protocols ?? undefined) : s.protocols);
    },
    (error) => {
      if (s.resolving.delete(link)) fail(error.message);
    },
  );
}

/** What a provider gives (its promise), or the value itself. */
async function ask(provider, what) {
  if (typeof provider !== "function") return provider;
  try {
    return await provider();
  } catch (error) {
    throw new Error(`the ${what} provider failed: ${describe(error)}`);
  }
}

/** Makes the socket of connection `link`; everything it does goes to the session. */
function open(s, link, url, protocols) {
  let socket;
  try {
    socket = protocols === undefined ? new s.WebSocket(url) : new s.WebSocket(url, protocols);
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
      const id = ++s.nextId;
      s.messages.set(id, data);
      feed(s, (m, h, t, w) => m.message(h, t, w, link, id));
    },
    close: (code, reason) => feed(s, (m, h, t, w) => m.closed(h, t, w, link, code, reason)),
    refused: (status, retryAfter, date) => feed(s, (m, h, t, w) => m.refused(h, t, w, link, status, retryAfter, date)),
  });
}

/** Message `id`, in or out, let go of as it is handed on. */
function taken(s, id) {
  const data = s.messages.get(id);
  s.messages.delete(id);
  return data;
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
  try {
    follow(s.onOpen(facade), ([how, value]) => done(how === REJECTED ? describe(value) : undefined));
  } catch (error) {
    done(describe(error));
  }
}

/** Closes the stream for good (the caller's close, or its signal); one its policy stopped is let go of. */
export function close(s, code, reason) {
  if (s.done) return free(s);
  feed(s, (m, h, t, w) => m.close(h, t, w, code, reason));
}

/** The caller's reconnect: what refused it (a RetryError), if the session did at once. */
export function reconnect(s, code, reason) {
  if (s.freed) return new s.c.RetryError("aborted", `stream ${s.url ?? ""}: reconnect refused: the stream is over`, { records: [] });
  if (s.done) {
    // Stopped by its policy: the session begins again.
    s.done = false;
    kept.unregister(s);
    listen(s);
  }
  [s.reconnecting, s.refusal] = [true, undefined];
  try {
    feed(s, (m, h, t, w) => m.reconnect(h, t, w, code, reason));
  } finally {
    s.reconnecting = false;
  }
  const refused = s.refusal;
  s.refusal = undefined;
  return refused;
}

/** Sessions stopped by their policy, kept for a reconnect: freed when their stream is collected. */
const kept = typeof FinalizationRegistry === "function"
  ? new FinalizationRegistry(({ streams, handle }) => streams.free(handle))
  : { register() {}, unregister() {} };

/** Frees the session, once. */
function free(s) {
  if (s.freed) return;
  s.freed = true;
  kept.unregister(s);
  s.c.core.streams.free(s.handle);
}

/** Reports a gap: the stream is stale until it is resynced. */
export const gap = (s) => feed(s, (m, h, t, w) => m.gap(h, t, w));

/** The session stopped: its machine freed, a "stop" event with the reason (and an error unless the caller closed it). */
function stopped(s, reason, details) {
  s.done = true;
  disarm(s);
  releaseHeld(s);
  s.unlisten?.();
  s.unlisten = undefined;
  s.resolving.clear();
  // Stopped by its policy, it may be begun again by reconnect(); closed, it is over.
  if (reason === "aborted" || s.closed) free(s);
  else kept.register(s.target, { streams: s.c.core.streams, handle: s.handle }, s);
  for (const socket of s.sockets.values()) {
    detach(socket);
    closeQuietly(socket, 1000, "closed");
  }
  s.sockets.clear();
  s.reason = reason;
  s.state = "stopped";
  const error = reason === "aborted" ? undefined : new s.c.RetryError(details.reason, details.message, { records: details.records });
  s.target.dispatchEvent(Object.assign(new Event("stop"), { reason, error }));
}
