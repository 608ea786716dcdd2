// One budget kept by two wasm instances of a page (js/core/cores.js: the fetch path's, and the
// whole core loaded later), while calls run on both: before a step in one, it takes up the state
// the other's last step left, as a tab takes up the share's (./tabs.js), without locks or storage.

import { now, wall } from "./clock.js";

/** The steps of `twin` (a budget in one core; `twin.kin.writer`: the twin of the last step). */
export function bridged(twin) {
  return {
    enter() {
      const { kin } = twin;
      if (kin.writer !== twin && kin.writer.handle !== 0 && twin.handle !== 0) carry(kin.writer, twin);
      kin.writer = twin;
    },
    leave() {},
    news: () => null,
  };
}

/** Moves the budget's state from one twin to the other, in wall-clock time as tabs carry it. */
function carry(from, to) {
  from.core.x.rl_budget_export(from.handle, now(), wall());
  let state;
  try {
    state = JSON.parse(from.core.text());
  } catch {
    return;
  }
  const [len] = to.core.putValues([state]);
  to.core.x.rl_budget_import(to.handle, len, now(), wall());
}
