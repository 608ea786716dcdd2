// What pages load only when first used, in chunks that bundlers split off, so a page that only
// fetches downloads none of them: asFetch, the stream executor, and the tab locks of a budget
// shared across tabs.
export const load = {
  asFetch: () => import("./as-fetch.js"),
  stream: () => import("../executor/stream.js"),
  tabs: () => import("../platform/tab-locks.js"),
};
