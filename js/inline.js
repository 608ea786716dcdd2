// Inline entry (`retryline/inline`): the wasm module is inlined as base64, so there is no asset
// URL to serve, and compiled synchronously (no top-level await: fit for `require()`, iife bundles
// and es2020 targets); about a third larger over the wire than the default browser entry.
import { wasmBytes } from "../pkg/browser-inline.js";
import { assemble } from "./api/assemble.js";
import { defineStream, load } from "./api/page-modules.js";
import { tabsFrom } from "./platform/tabs-lazy.js";
import { instantiateNow } from "./platform/wasm-page.js";

export const { RetryClient, Budget, RetryError } = assemble(instantiateNow(wasmBytes()), { sharing: { tabs: tabsFrom(load.tabs) }, load, defineStream });
export { replay } from "./api/replay-page.js";
export { staleness } from "./platform/kept.js";
