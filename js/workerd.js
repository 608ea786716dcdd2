// workerd / Cloudflare Workers entry: the runtime compiles imported .wasm modules
// (compiling from bytes at run time is not allowed there).
import wasmModule from "../pkg/retryline_bg.wasm";
import { initSync, setErrorClass, RetryClient } from "../pkg/retryline.js";
import { RetryError } from "./retry-error.js";
import { installAsFetch } from "./as-fetch.js";

initSync({ module: wasmModule });
setErrorClass(RetryError);
installAsFetch(RetryClient, RetryError);

export { RetryClient, Budget, replay } from "../pkg/retryline.js";
export { RetryError };
