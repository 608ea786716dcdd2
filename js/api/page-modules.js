// What pages load only when first used, in chunks that bundlers split off: asFetch, and the tab
// locks of a budget shared across tabs. Neither shares a module with the page (a shared module
// would be a file of its own, compressed apart). The stream executor is the default entry's own.
import { streamsOf } from "../core/streams.js";
import * as stream from "../executor/stream.js";

export const load = {
  asFetch: () => import("./as-fetch.js"),
  stream: () => stream,
  tabs: () => import("../platform/tab-locks.js"),
  // The core's facade of streams: the lean entry, which has none, carries none of it.
  core: { streams: streamsOf },
};
export { defineStream } from "./stream.js";
