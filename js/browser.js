// Browser and bundler entry: the wasm module ships as its own file, fetched and compiled while
// it streams (bundlers see `new URL(…, import.meta.url)` and emit it as an asset).
// `retryline/inline` is the same API with the bytes inlined, for setups that cannot serve assets.
import init, { setErrorClass, RetryClient } from "../pkg/retryline.js";
import { RetryError } from "./retry-error.js";
import { installAsFetch } from "./as-fetch.js";

await init({ module_or_path: new URL("../pkg/retryline_bg.wasm", import.meta.url) });
setErrorClass(RetryError);
installAsFetch(RetryClient, RetryError);

export { RetryClient, Budget, replay } from "../pkg/retryline.js";
export { RetryError };
