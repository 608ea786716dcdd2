// Browser and bundler entry: the fetch path's wasm ships as its own file, fetched and compiled
// while it streams (Vite, webpack and Parcel see `new URL(…, import.meta.url)` and emit it as an
// asset); the whole core's (keyed calls, reconciliation, hedged reads, streams) is another, loaded
// only when a call first needs it (./api/page-extras.js). Where a bundler emits no asset (esbuild,
// Rollup, Bun), the whole core's inlined bytes are used instead, at once. `retryline/inline` has
// them inlined and no top-level await; `retryline/csp` needs no 'wasm-unsafe-eval'.
import { assemble } from "./api/assemble.js";
import { load } from "./api/page-modules.js";
import { tabsFrom } from "./platform/tabs-lazy.js";
import { instantiatePage } from "./platform/wasm-page.js";

const url = new URL("../pkg/browser-fetch.wasm", import.meta.url);
// Unbundled, or the URL rewritten to an emitted asset: either way there is a file to fetch.
const emitted = import.meta.url.endsWith("/js/browser.js") || !url.pathname.endsWith("/pkg/browser-fetch.wasm");
const instance = await instantiatePage(url, emitted, () => import("../pkg/browser-inline.js"));
const whole = () => load.whole(instantiatePage);

export const { RetryClient, Budget, RetryError } = assemble(instance, { sharing: { tabs: tabsFrom(load.tabs) }, load, whole });
export { replay } from "./api/replay-page.js";
