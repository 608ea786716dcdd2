// Node entry: the wasm module is read from the package, synchronously, at import.
import { readFileSync } from "node:fs";
import { initSync, setErrorClass, RetryClient } from "../pkg/retryline.js";
import { RetryError } from "./retry-error.js";
import { installAsFetch } from "./as-fetch.js";

initSync({ module: readFileSync(new URL("../pkg/retryline_bg.wasm", import.meta.url)) });
setErrorClass(RetryError);
installAsFetch(RetryClient, RetryError);

export { RetryClient, Budget, replay } from "../pkg/retryline.js";
export { RetryError };
