// Budgets shared across tabs, for pages: whether the platform can share is known at once; the
// locks, IndexedDB and BroadcastChannel code (./tab-locks.js) loads with the budget's first step,
// from where the entry keeps it (`load()`: a chunk of its own).

/** Whether this realm can share a budget with others (Web Locks and IndexedDB). */
function available() {
  try {
    return typeof navigator === "object" && typeof navigator.locks?.request === "function" && typeof indexedDB === "object";
  } catch {
    return false;
  }
}

/** The entry's way of sharing a budget across tabs under `name` (null where the platform cannot):
 * `enter(withinMs)` takes the share's lock and resolves with its stored state (text, "" if none,
 * null if it could not in time); `leave(state, news)` stores it and lets the lock go; `listen(fn)`
 * calls `fn` whenever a realm publishes a hold or ban, and returns what stops it. */
export const tabsFrom = (load) => (name) => {
  if (!available()) return null;
  let locks = null; // ./tab-locks.js, once loaded
  const listeners = new Set();
  let listening = false;
  const listen = () => {
    if (listening || locks === null) return;
    listening = true;
    locks.shareListen(name, () => {
      for (const fn of [...listeners]) fn();
    });
  };
  return {
    label: "tabs",
    async enter(withinMs) {
      locks ??= await load();
      listen();
      return locks.shareEnter(name, withinMs);
    },
    leave: (state, news) => locks?.shareLeave(name, state, news),
    listen(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
};
