// A budget's steps shared across the tabs, frames and workers of an origin (`new Budget({ share })`):
// each step takes up the share's state under its lock and stores it after (./tab-locks.js holds the
// Web Lock, IndexedDB and BroadcastChannel code). ./tabs-lazy.js says whether the platform has them,
// and loads this with the budget's first step.

import { now, wall } from "./clock.js";
import { shareEnter, shareLeave, shareNews, shareNewsDone } from "./tab-locks.js";

// Wall-clock ends drift by a millisecond between clocks: only a later end is news for the sleepers.
const WALL_SLACK_MS = 5;

/** The hold and ban ends (wall ms) on a run's scope. */
function waits(core, op) {
  core.x.rl_op_waits(op, now(), wall());
  return [core.number(0), core.number(1)];
}

/** The steps of `budget` (its inner object) shared across the origin's realms under `name`. */
export function sharedSteps(budget, core, name) {
  const x = core.x;
  return {
    /** Takes up the shared state before a budget step, holding the lock until `leave`; waits no later
     * than the deadline (a tab that never lets go, or a hung IndexedDB, must not hold the call past it). */
    async enter(run) {
      const left = run.deadline - now();
      if (left <= 0) return;
      const text = await shareEnter(name, left);
      if (typeof text === "string" && text !== "") {
        let state;
        try {
          state = JSON.parse(text);
        } catch {}
        if (state !== undefined) {
          const [len] = core.putValues([state]);
          x.rl_budget_import(budget.handle, len, now(), wall());
        }
      }
      run.published = waits(core, run.op);
    },
    /** Stores the state and releases the lock; a later hold or ban wakes the share's sleepers. */
    leave(run) {
      x.rl_budget_export(budget.handle, now(), wall());
      const text = core.text();
      const [hold, ban] = waits(core, run.op);
      const [knownHold, knownBan] = run.published ?? [0, 0];
      shareLeave(name, text, hold > knownHold + WALL_SLACK_MS || ban > knownBan + WALL_SLACK_MS);
    },
    /** `{ promise, done }`: the promise resolves when a hold or ban is next published; null without BroadcastChannel. */
    news() {
      const pair = shareNews(name);
      return pair === null ? null : { promise: pair[0], done: () => shareNewsDone(name, pair[1]) };
    },
  };
}
