// What pages load only when a call first needs it: bundlers split each import() into a chunk of its
// own, so a page that only fetches downloads none of them.
export const load = {
  asFetch: () => import("./as-fetch.js"),
  keyed: () => import("../drivers/keyed.js"),
  reconcile: () => import("../drivers/reconcile.js"),
  stream: () => import("../drivers/stream.js"),
  predicate: () => import("../drivers/predicate.js"),
  hedge: () => import("../drivers/hedge.js"),
};
