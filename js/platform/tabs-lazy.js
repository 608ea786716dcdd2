// Budgets shared across tabs, for pages: whether the platform can share is known at once; the
// locks, IndexedDB and BroadcastChannel code (./tabs.js) loads with the budget's first step.

/** Whether this realm can share a budget with others (Web Locks and IndexedDB). */
function available() {
  try {
    return typeof navigator === "object" && typeof navigator.locks?.request === "function" && typeof indexedDB === "object";
  } catch {
    return false;
  }
}

export function tabs(budget, core, name) {
  if (!available()) return;
  let shared = null; // ./tabs.js's, once loaded: every budget step enters before it leaves or sleeps
  budget.share = name;
  budget.sharing = () => "tabs";
  budget.shared = {
    async enter(run) {
      shared ??= await import("./tabs.js").then((m) => m.sharedSteps(budget, core, name));
      return shared.enter(run);
    },
    leave: (run) => shared?.leave(run),
    news: () => shared?.news() ?? null,
  };
}
