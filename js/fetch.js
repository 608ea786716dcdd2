// The lean entry (`import { RetryClient } from "retryline/fetch"`): the fetch path alone — calls,
// budgets of this realm, the breaker, shouldRetry, asFetch — in a smaller wasm. A feature it
// leaves out (a key, reconciliation, hedged reads, streams, a budget shared across tabs) throws a
// TypeError that names "retryline", the entry that has it.
import { assemble } from "./api/assemble.js";
import { load } from "./api/lean-modules.js";
import { instantiatePage } from "./platform/wasm-page.js";

const url = new URL("../pkg/browser-fetch.wasm", import.meta.url);
const emitted = import.meta.url.endsWith("/js/fetch.js") || !url.pathname.endsWith("/pkg/browser-fetch.wasm");
const instance = await instantiatePage(url, emitted, () => import("../pkg/browser-fetch-inline.js"));

export const { RetryClient, Budget, RetryError } = assemble(instance, { load });
export { staleness } from "./platform/kept.js";
