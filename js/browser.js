// Browser and bundler entry: the whole core (calls, keyed calls and reconciliation, hedged reads,
// streams, budgets across tabs) ships as its own wasm file, fetched and compiled while it streams
// (Vite, webpack and Parcel see `new URL(…, import.meta.url)` and emit it as an asset). Where a
// bundler emits no asset (esbuild, Rollup, Bun), its inlined bytes are used instead. The lean
// entry `retryline/fetch` carries the fetch path alone; `retryline/inline` has the bytes inlined and
// no top-level await; `retryline/csp` needs no 'wasm-unsafe-eval'.
import { assemble } from "./api/assemble.js";
import { defineStream, load } from "./api/page-modules.js";
import { tabsFrom } from "./platform/tabs-lazy.js";
import { instantiatePage } from "./platform/wasm-page.js";

const url = new URL("../pkg/browser.wasm", import.meta.url);
// Unbundled, or the URL rewritten to an emitted asset: either way there is a file to fetch.
const emitted = import.meta.url.endsWith("/js/browser.js") || !url.pathname.endsWith("/pkg/browser.wasm");
const instance = await instantiatePage(url, emitted, () => import("../pkg/browser-inline.js"));

export const { RetryClient, Budget, RetryError } = assemble(instance, { sharing: { tabs: tabsFrom(load.tabs) }, load, defineStream });
export { replay } from "./api/replay-page.js";
export { staleness } from "./platform/kept.js";
