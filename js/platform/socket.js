// A WebSocket as the stream driver uses it, whatever made it: the platform's (browsers, workerd,
// Node 22+), `ws`, undici's. Every handler and every call is guarded: a socket's getter or method
// that throws must not end the stream, and the core is never on the stack when it runs.

import { clear, timer } from "./race.js";

/** How long a closing socket may take before it is destroyed (`ws` waits 30 s for the peer). */
const CLOSE_GRACE_MS = 1000;
const attached = new WeakMap();

/** Listens to `socket`: `open()`, `message(event)`, `close(code, reason)`, and `refused(status,
 * retryAfter, date)` where the library shows a refused upgrade (`ws`'s unexpected-response). */
export function attach(socket, on) {
  // Block bodies: a handler that returns a promise makes workerd warn on every event.
  const listeners = {
    open: () => {
      on.open();
    },
    message: (event) => {
      on.message(event);
    },
    close: (event) => {
      on.close(read(event, "code", 1006), String(read(event, "reason", "") ?? ""));
    },
    error: () => {},
  };
  const unexpected = (request, response) => {
    const headers = read(response, "headers", {}) ?? {};
    try {
      response.resume?.();
      request.destroy?.();
    } catch {}
    on.refused(Number(read(response, "statusCode", 0)) || 0, header(headers, "retry-after"), header(headers, "date"));
  };
  try {
    for (const [type, f] of Object.entries(listeners)) socket.addEventListener(type, f);
    if (typeof socket.on === "function") socket.on("unexpected-response", unexpected);
  } catch {
    // No addEventListener: the on* properties of the standard interface.
    try {
      socket.onopen = listeners.open;
      socket.onmessage = listeners.message;
      socket.onclose = listeners.close;
      socket.onerror = listeners.error;
    } catch {}
  }
  attached.set(socket, { listeners, unexpected });
}

/** Stops listening to `socket`. */
export function detach(socket) {
  const kept = attached.get(socket);
  if (kept === undefined) return;
  attached.delete(socket);
  try {
    for (const [type, f] of Object.entries(kept.listeners)) socket.removeEventListener(type, f);
    if (typeof socket.off === "function") socket.off("unexpected-response", kept.unexpected);
    // An error after we left must not be an unhandled 'error' event of an EventEmitter.
    if (typeof socket.on === "function") socket.on("error", () => {});
  } catch {}
  try {
    if (socket.onopen === kept.listeners.open) socket.onopen = socket.onmessage = socket.onclose = null;
  } catch {}
}

/** Closes `socket` with `code`, and destroys it if it has not closed within CLOSE_GRACE_MS. */
export function closeQuietly(socket, code, reason) {
  try {
    socket.close(code, reason);
  } catch {
    try {
      socket.close();
    } catch {}
  }
  let terminate;
  try {
    terminate = socket.terminate;
  } catch {}
  if (typeof terminate !== "function") return;
  const t = timer(() => {
    clear(t);
    try {
      if (socket.readyState !== 3) socket.terminate();
    } catch {}
  }, CLOSE_GRACE_MS);
  // A socket that closes in time needs no grace: its timer must not keep Node alive for a second.
  try {
    socket.addEventListener("close", () => clear(t), { once: true });
  } catch {}
}

/** Whether `socket` says it is open (readyState 1). */
export function readyOpen(socket) {
  try {
    return socket.readyState === 1;
  } catch {
    return false;
  }
}

function read(object, key, fallback) {
  try {
    const value = object?.[key];
    return value === undefined ? fallback : value;
  } catch {
    return fallback;
  }
}

function header(headers, name) {
  const value = read(headers, name, undefined);
  if (Array.isArray(value)) return value.length > 0 ? String(value[0]) : undefined;
  return value === undefined || value === null ? undefined : String(value);
}
