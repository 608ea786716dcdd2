// A Budget's part in the core (src/abi/budget.rs): its limits and state, how it is kept beyond
// this realm, and what its coordinators answered.

import { invalid } from "./instance.js";

/** How a budget is kept (src/abi/budget.rs). */
export const LOCAL = 0;
export const TABS = 1;
export const CONTACTS = 2;

export function budgetsOf(mem) {
  const x = mem.x;
  return {
    /** A budget from its options (wire form), kept as `sharing` says; its handle.
     * @throws {TypeError | RangeError} naming the field. */
    create({ text, numbers }, sharing = LOCAL, joinMs = 0, assumed = 1) {
      mem.args([], numbers);
      const [len] = mem.put([text]);
      const handle = x.rl_budget_new(len, sharing, joinMs, assumed);
      if (handle === 0) throw invalid(mem, "Budget");
      return handle;
    },
    free: (handle) => x.rl_budget_free(handle),
    /** `{ scopes, unreachable }`: each scope as `budget.snapshot()` shows it, and whether a coordinator stopped answering. */
    snapshot(handle, now, wall) {
      x.rl_budget_snapshot(handle, now, wall);
      return { scopes: mem.json(), unreachable: mem.number(0) === 1 };
    },
    /** The coordinator of `scope` answered `[tokens, from, hold, ban, breaker, probe, members]` (null: it did not) after `waited` ms. */
    visited(handle, now, wall, scope, answer, waited) {
      const [len] = mem.put([scope]);
      mem.args([now, wall, answer === null ? 0 : 1, waited, ...(answer ?? [0, 0, 0, 0, 0, 0, 0]), len]);
      x.rl_budget_visited(handle);
    },
  };
}
