// Budgets shared across the tabs, frames and workers of an origin (docs/shared-budgets.md): a Web
// Lock per share name held around each budget step, the state (the core's JSON) in IndexedDB, and a
// BroadcastChannel that wakes the share's sleepers when a step publishes a hold or ban. Never
// throws: where a primitive is missing or fails, shareEnter resolves null and the budget works
// locally. Both shells use this file: js/platform/tabs.js imports it, and the Rust API binds it
// (src/web/platform/tabs.rs) as a wasm-bindgen snippet, which is why it imports nothing.
const SHARE_PREFIX = "retryline:budget:";
let shareDb = null;
const holding = new Map(); // share name -> release() of the lock this realm holds

function openShareDb() {
  shareDb ??= new Promise((resolve, reject) => {
    const open = indexedDB.open("retryline-budgets", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("state");
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  return shareDb;
}

function shareRequest(mode, name, text) {
  return openShareDb().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction("state", mode);
    const request = mode === "readonly" ? tx.objectStore("state").get(name) : tx.objectStore("state").put(text, name);
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = tx.onabort = () => reject(tx.error);
  }));
}

/** Whether this realm can share a budget with others (Web Locks and IndexedDB). */
export function shareAvailable() {
  try {
    return typeof navigator === "object" && typeof navigator.locks?.request === "function" && typeof indexedDB === "object";
  } catch {
    return false;
  }
}

/** Holds the share's lock and resolves with its stored state ("" if none), or null if it cannot
 * within `ms`: a lock granted later is let go at once. */
export function shareEnter(name, ms) {
  return new Promise((resolve) => {
    let gaveUp = false;
    let reading = null; // the lock's release while the state is being read: a hung read lets go too
    const timer = setTimeout(() => {
      gaveUp = true;
      reading?.();
      resolve(null);
    }, ms);
    const done = (text) => {
      clearTimeout(timer);
      resolve(text);
    };
    try {
      navigator.locks.request(SHARE_PREFIX + name, () => new Promise((release) => {
        if (gaveUp) return release();
        reading = release;
        shareRequest("readonly", name).then(
          (text) => {
            reading = null;
            if (gaveUp) return release();
            holding.set(name, release);
            done(typeof text === "string" ? text : "");
          },
          () => {
            release();
            done(null);
          },
        );
      })).catch(() => done(null));
    } catch {
      done(null);
    }
  });
}

// A write that never completes (a hung IndexedDB) lets the lock go after this long.
const SHARE_WRITE_MS = 2000;

/** Stores the share's state (none: nothing to store, the lock is only let go), then releases its
 * lock (a failed or hung write still releases it); with `tell`, then wakes the share's listeners
 * in every realm (a hold or ban was published). */
export function shareLeave(name, text, tell) {
  const release = holding.get(name);
  holding.delete(name);
  if (!release) return;
  const timer = setTimeout(release, SHARE_WRITE_MS);
  const done = () => {
    clearTimeout(timer);
    release();
    if (tell) {
      try {
        channel(name)?.postMessage(1);
      } catch {}
      heard(name); // a channel does not hear its own messages: this realm's listeners too
    }
  };
  if (typeof text !== "string") return done();
  shareRequest("readwrite", name, text).then(done, done);
}

// Listeners of a shared budget, told when another realm publishes a hold or ban (BroadcastChannel).
const channels = new Map(); // share name -> BroadcastChannel (null where there is none)
const listeners = new Map(); // share name -> the function to tell

function channel(name) {
  if (!channels.has(name)) {
    let ch = null;
    try {
      ch = new BroadcastChannel(SHARE_PREFIX + name);
      ch.onmessage = () => heard(name);
    } catch {}
    channels.set(name, ch);
  }
  return channels.get(name);
}

function heard(name) {
  try {
    listeners.get(name)?.();
  } catch {}
}

/** Calls `fn` whenever a hold or ban is published under `name` (one listener a name; a realm
 * without BroadcastChannel hears only its own). */
export function shareListen(name, fn) {
  listeners.set(name, fn);
  channel(name);
}
