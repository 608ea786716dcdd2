// What pages load only when first used, in chunks that bundlers split off: asFetch, and the tab
// locks of a budget shared across tabs. Neither shares a module with the page (a shared module
// would be a file of its own, compressed apart). The stream executor is the default entry's own.
import { shareEffect } from "../core/share.js";
import { streamsOf } from "../core/streams.js";
import * as beyond from "../executor/beyond.js";
import * as stream from "../executor/stream.js";

export const load = {
  asFetch: () => import("./as-fetch.js"),
  stream: () => stream,
  tabs: () => import("../platform/tab-locks.js"),
  // What the lean entry, which has none of it, carries none of: the core's facades of streams and
  // of steps on a shared budget, and a call's store calls, status queries and shared steps.
  core: { streams: streamsOf, share: shareEffect },
  beyond,
};
export { defineStream } from "./stream.js";
