// The public API of an entry: what every entry exports, assembled from its wasm instance (and, in
// pages, how to load the whole core when a call first needs it) and the ways of sharing a budget
// that its runtime has (tabs in browsers, a coordinator in workerd, Redis in Node).

import { bind } from "../core/instance.js";
import { cores } from "../core/cores.js";
import { installAsFetch } from "./as-fetch-install.js";
import { defineBudget } from "./budget.js";
import { defineReplay } from "./replay.js";
import { defineRetryClient } from "./retry-client.js";
import { RetryError } from "./retry-error.js";

/** `{ RetryClient, Budget, RetryError, replay }` over `instance`.
 * `sharing` has `tabs` and/or `coordinator` where the runtime can share a budget that way.
 * `load` gives the modules that not every call runs — `keyed` (drivers/keyed.js), `reconcile`
 * (drivers/reconcile.js), `asFetch` (api/as-fetch.js) — at once (servers), or on first use (pages,
 * whose bundlers split them off). `whole()`, where `instance` is a page's fetch path alone, gives
 * the instance of the whole core (js/core/cores.js). */
export function assemble(instance, { sharing = {}, load, whole }) {
  const all = cores(bind(instance), whole);
  const core = all.first;
  const Budget = defineBudget(all, sharing);
  const RetryClient = defineRetryClient(all, Budget, RetryError, load);
  installAsFetch(RetryClient, RetryError, load.asFetch);
  return { RetryClient, Budget, RetryError, replay: core.x.rl_replay ? defineReplay(core) : undefined, core };
}
