// The public API of one wasm instance: what every entry exports, assembled from the instance and
// the ways of sharing a budget that its runtime has (tabs in browsers, a coordinator in workerd).

import { bind } from "../core/instance.js";
import { installAsFetch } from "./as-fetch-install.js";
import { defineBudget } from "./budget.js";
import { defineReplay } from "./replay.js";
import { defineRetryClient } from "./retry-client.js";
import { RetryError } from "./retry-error.js";

/** `{ RetryClient, Budget, RetryError, replay }` over `instance`.
 * `sharing` has `tabs` and/or `coordinator` where the runtime can share a budget that way.
 * `load` gives the modules that not every call runs — `keyed` (drivers/keyed.js), `reconcile`
 * (drivers/reconcile.js), `asFetch` (api/as-fetch.js) — at once (servers), or on first use (pages,
 * whose bundlers split them off). */
export function assemble(instance, { sharing = {}, load }) {
  const core = bind(instance);
  const Budget = defineBudget(core, sharing);
  const RetryClient = defineRetryClient(core, Budget, RetryError, load);
  installAsFetch(RetryClient, RetryError, load.asFetch);
  return { RetryClient, Budget, RetryError, replay: core.x.rl_replay ? defineReplay(core) : undefined, core };
}
