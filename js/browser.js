// Browser and bundler entry: the wasm module is inlined, so there is no init() and no asset URL.
import { initSync, setErrorClass } from "../pkg/retryline.js";
import { wasmBytes } from "../pkg/retryline_inline.js";
import { RetryError } from "./retry-error.js";

initSync({ module: wasmBytes() });
setErrorClass(RetryError);

export { RetryClient, Budget, replay } from "../pkg/retryline.js";
export { RetryError };
