// What the lean entry (`retryline/fetch`) loads only when first used: asFetch. It has no streams,
// no budgets shared beyond this realm, no keyed calls or reconciliation: none of their code.
export const load = {
  asFetch: () => import("./as-fetch.js"),
};
