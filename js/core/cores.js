// The wasm instances behind one entry. Servers have one, with every feature. A page starts on the
// fetch path's (pkg/browser-fetch.wasm: calls, budgets, tabs, hedges, the breaker) and loads the
// whole core (pkg/browser.wasm) only when a call first needs what that one lacks — a keyed call,
// reconciliation, a stream — so that a page that only fetches downloads none of it. From then
// on new work goes to the whole core; work already running on the first finishes there.

import { bind } from "./instance.js";

/** Whether `core` runs every call the API offers (keyed calls, reconciliation, streams). */
export function isWhole(core) {
  const x = core.x;
  return typeof x.rl_op_claim === "function" && typeof x.rl_reconcile_begin === "function" && typeof x.rl_stream_begin === "function";
}

/** The cores of an entry: `first`, bound, and `loadWhole()` (a promise of the whole core's
 * instance; absent where `first` is whole). */
export function cores(first, loadWhole) {
  let whole = isWhole(first) ? first : null;
  let loading = null;
  return {
    first,
    /** Where new work goes: the whole core once it is loaded, else the first. */
    get current() {
      return whole ?? first;
    },
    /** The whole core, loaded on the first call that asks for it (a rejected load is tried again next time). */
    whole() {
      if (whole !== null) return Promise.resolve(whole);
      if (loadWhole === undefined) return Promise.reject(new TypeError("retryline: this build has no keyed calls, reconciliation or streams"));
      loading ??= loadWhole().then(
        (instance) => (whole = bind(instance)),
        (error) => {
          loading = null;
          throw new Error(`retryline: the whole core (keyed calls, reconciliation, streams) could not be loaded: ${error?.message ?? error}`, { cause: error });
        },
      );
      return loading;
    },
  };
}
