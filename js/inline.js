// Inline entry (`retryline/inline`): the wasm module is inlined as base64, so there is no asset
// URL to serve; about a third larger over the wire than the default browser entry.
import { initSync, setErrorClass, RetryClient } from "../pkg/retryline.js";
import { wasmBytes } from "../pkg/retryline_inline.js";
import { RetryError } from "./retry-error.js";
import { installAsFetch } from "./as-fetch.js";

initSync({ module: wasmBytes() });
setErrorClass(RetryError);
installAsFetch(RetryClient, RetryError);

export { RetryClient, Budget, replay } from "../pkg/retryline.js";
export { RetryError };
