// What a page loads when a call first needs more than the fetch path (./page-modules.js): the
// drivers of keyed calls, reconciliation, hedged reads, streams, a call's shouldRetry and the tab
// locks of a budget shared across tabs, and the loader of the whole core, which the first four
// run on, with what makes a client's and a budget's twins there. One chunk, not one a module: behind the entry's top-level await, bundlers put every
// module that a lazy chunk shares with the page in a file of its own, which the page then loads,
// each compressed apart (seven such files cost 1.6 KiB of gzip more than one).
export * as keyed from "../drivers/keyed.js";
export * as reconcile from "../drivers/reconcile.js";
export * as stream from "../drivers/stream.js";
export * as hedge from "../drivers/hedge.js";
export * as predicate from "../drivers/predicate.js";
export * as tabs from "../platform/tabs.js";
export { clientIn } from "./twins.js";

/** The whole core's instance; `instantiatePage` is the entry's (platform/wasm-page.js), handed in
 * so that this chunk does not share that module with the page. The wasm's asset URL lives here,
 * so that bundlers count the file with this chunk. */
export async function instantiateWhole(instantiatePage) {
  const url = new URL("../../pkg/browser.wasm", import.meta.url);
  const emitted = import.meta.url.endsWith("/js/api/page-extras.js") || !url.pathname.endsWith("/pkg/browser.wasm");
  return instantiatePage(url, emitted, () => import("../../pkg/browser-inline.js"));
}
