// replay() for pages: its own small wasm (the engine on a virtual clock, nothing of the fetch path),
// inlined and compiled on the first call, so a page that never replays ships none of it.
import { coreOf } from "../core/index.js";
import { replayOf } from "../core/replay.js";
import { wasmBytes } from "../../pkg/replay-inline.js";
import { instantiateNow } from "../platform/wasm-page.js";

let replayer;

/** Runs the same engine as RetryClient.fetch on a virtual clock: `{ records, wireRequests, stop }`. */
export function replay(spec) {
  replayer ??= coreOf(instantiateNow(wasmBytes()), { replay: replayOf }).replay;
  return replayer(spec);
}
