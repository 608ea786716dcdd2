// Budgets shared across tabs, for pages: whether the platform can share is known at once; the
// locks, IndexedDB and BroadcastChannel code (./tabs.js) loads with the budget's first step, from
// where the entry keeps it (`load()`: a chunk of its own, or one with other rarely used parts).

/** Whether this realm can share a budget with others (Web Locks and IndexedDB). */
function available() {
  try {
    return typeof navigator === "object" && typeof navigator.locks?.request === "function" && typeof indexedDB === "object";
  } catch {
    return false;
  }
}

/** The entry's way of sharing a budget across tabs; `load()` gives ./tabs.js. */
export const tabsFrom = (load) => (budget, core, name) => tabs(budget, core, name, load);

function tabs(budget, core, name, load) {
  if (!available()) return;
  let shared = null; // ./tabs.js's, once loaded: every budget step enters before it leaves or sleeps
  budget.share = name;
  budget.sharing = () => "tabs";
  budget.shared = {
    async enter(run) {
      shared ??= await load().then((m) => m.sharedSteps(budget, core, name));
      return shared.enter(run);
    },
    leave: (run) => shared?.leave(run),
    news: () => shared?.news() ?? null,
  };
}
