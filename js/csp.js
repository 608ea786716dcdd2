// Strict-CSP entry (`retryline/csp`): the browser entry's compiled core turned into JavaScript by
// binaryen's wasm2js, for pages whose Content-Security-Policy has no 'wasm-unsafe-eval'. The same
// decisions, from the same build; about twice the download, and slower per call (see bench/).
import * as exports from "../pkg/browser-js.js";
import { assemble } from "./api/assemble.js";
import { defineStream, load } from "./api/page-modules.js";
import { tabsFrom } from "./platform/tabs-lazy.js";

export const { RetryClient, Budget, RetryError } = assemble({ exports }, { sharing: { tabs: tabsFrom(load.tabs) }, load, defineStream });
export { replay } from "./api/replay-page.js";
export { staleness } from "./platform/kept.js";
