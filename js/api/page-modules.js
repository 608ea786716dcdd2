// What pages load only when a call first needs it, in chunks that bundlers split off, so a page
// that only fetches downloads none of them: asFetch (./as-fetch.js, which shares no module with
// the page), and the rest together (./page-extras.js).
const extras = () => import("./page-extras.js");

export const load = {
  asFetch: () => import("./as-fetch.js"),
  keyed: () => extras().then((m) => m.keyed),
  reconcile: () => extras().then((m) => m.reconcile),
  stream: () => extras().then((m) => m.stream),
  hedge: () => extras().then((m) => m.hedge),
  predicate: () => extras().then((m) => m.predicate),
  tabs: () => extras().then((m) => m.tabs),
  /** `{ instance, extras }`: the whole core's instance, compiled by `instantiatePage`
   * (platform/wasm-page.js), and what makes twins there (./twins.js). */
  whole: (instantiatePage) => extras().then(async (m) => ({ instance: await m.instantiateWhole(instantiatePage), extras: m })),
};
