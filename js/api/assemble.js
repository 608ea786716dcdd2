// The public API of an entry: what every entry exports, assembled from its one wasm instance and
// the ways of sharing a budget that its runtime has (tabs in browsers, a coordinator in workerd,
// Redis in Node).

import { coreOf } from "../core/index.js";
import { installAsFetch } from "./as-fetch-install.js";
import { defineBudget } from "./budget.js";
import { defineRetryClient } from "./retry-client.js";
import { RetryError } from "./retry-error.js";

/** `{ RetryClient, Budget, RetryError, replay }` over `instance`.
 * `sharing` has `tabs`, `coordinator` and/or `redis` where the runtime can share a budget that way.
 * `load` gives the modules that not every call runs — `asFetch` (api/as-fetch.js), `stream`
 * (executor/stream.js) — at once (servers), or on first use (pages, whose bundlers split them off).
 * `load.core` has the core's facades of the areas the entry has beyond the fetch path (streams,
 * replay, steps on shared budgets: core/index.js), and `load.beyond` what carries out a call's
 * effects there (executor/beyond.js). `defineStream` (api/stream.js) and `defineWorksheet`
 * (api/worksheet.js) where the entry has them. */
export function assemble(instance, { sharing = {}, load, defineStream, defineWorksheet }) {
  const core = coreOf(instance, load.core);
  const Budget = defineBudget(core, sharing);
  const stream = core.streams === undefined || defineStream === undefined ? undefined : defineStream(core, load.stream);
  const worksheet = defineWorksheet !== undefined && core.calls.hasPlan ? defineWorksheet(core) : undefined;
  const RetryClient = defineRetryClient(core, Budget, RetryError, { stream, worksheet, beyond: load.beyond });
  installAsFetch(RetryClient, RetryError, load.asFetch);
  return { RetryClient, Budget, RetryError, replay: core.replay };
}
