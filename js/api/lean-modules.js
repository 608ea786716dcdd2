// What the lean entry (`retryline/fetch`) loads only when first used: asFetch, and the tab locks of
// a budget shared across tabs. It has no streams.
export const load = {
  asFetch: () => import("./as-fetch.js"),
  tabs: () => import("../platform/tab-locks.js"),
};
