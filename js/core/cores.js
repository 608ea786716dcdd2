// The wasm instances behind one entry. Servers have one, with every feature. A page starts on the
// fetch path's (pkg/browser-fetch.wasm: calls, budgets, tabs, the breaker) and loads the whole
// core (pkg/browser.wasm) only when a call first needs what that one lacks — a keyed call, a
// hedged read, reconciliation, a stream — so that a page that only fetches downloads none of it. From then
// on new work goes to the whole core; work already running on the first finishes there.

import { bind } from "./instance.js";

/** Whether `core` runs every call the API offers (keyed calls, hedged reads, reconciliation, streams). */
export function isWhole(core) {
  const x = core.x;
  return ["rl_op_claim", "rl_op_hedge", "rl_reconcile_begin", "rl_stream_begin"].every((name) => typeof x[name] === "function");
}

/** Whether a prepared call needs what its core lacks: a key's claims and saves, or hedges. */
export function lacks(call) {
  const x = call.c.core.x;
  return (call.key !== undefined && x.rl_op_claim === undefined) || (call.hedges > 0 && x.rl_op_hedge === undefined);
}

/** The cores of an entry: `first`, bound, and `loadWhole()` (a promise of `{ instance, extras }`:
 * the whole core's instance and the module that makes twins there; absent where `first` is whole). */
export function cores(first, loadWhole) {
  let whole = isWhole(first) ? first : null;
  let loading = null;
  const all = {
    first,
    /** What makes a client's twin in the whole core (api/twins.js), once that is loaded. */
    extras: null,
    /** Where new work goes: the whole core once it is loaded, else the first. */
    get current() {
      return whole ?? first;
    },
    /** The whole core, loaded on the first call that asks for it (a rejected load is tried again next time). */
    whole() {
      if (whole !== null) return Promise.resolve(whole);
      if (loadWhole === undefined) return Promise.reject(new TypeError("retryline: this build has no keyed calls, reconciliation or streams"));
      loading ??= loadWhole().then(
        ({ instance, extras }) => {
          all.extras = extras;
          return (whole = bind(instance));
        },
        (error) => {
          loading = null;
          throw new Error(`retryline: the whole core (keyed calls, reconciliation, streams) could not be loaded: ${error?.message ?? error}`, { cause: error });
        },
      );
      return loading;
    },
  };
  return all;
}
