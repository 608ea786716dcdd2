// A client and its budget in a second wasm instance of a page: the whole core, loaded when a call
// first needs it (js/core/cores.js). Loaded with it (./page-extras.js): a page that only fetches
// never makes a twin.

import { invalid } from "../core/instance.js";
import { bridged } from "../platform/bridge.js";
import { entropy } from "../platform/clock.js";
import { redact } from "./redaction.js";

/** The client `c` (any of its twins) in `core`, made there from the same options; its draws go on
 * there, where they stood in `first`'s, and the calls still running in `first` draw apart. */
export function clientIn(c, core, first) {
  let twin = c.twins.get(core);
  if (twin !== undefined) return twin;
  core.putNumbers(c.options.numbers);
  const [len] = core.put([c.options.text]);
  const handle = core.x.rl_client_new(len, entropy());
  if (handle === 0) throw invalid(core, "RetryClient");
  const from = c.twins.get(first) ?? c;
  if (from.core.x.rl_client_draws_take?.(from.handle, entropy()) === 1) core.x.rl_client_draws_give?.(handle, from.core.number(0), from.core.number(1));
  twin = { ...c, core, handle, budget: budgetIn(c.budget, core) };
  twin.redact = (text, url = false) => redact(twin, text, url);
  c.twins.set(core, twin);
  return twin;
}

/** The budget `inner` (a genuine Budget's) in `core`, made there from the same options. Shared
 * across tabs, each twin shares as a tab would; otherwise each step takes up the state the other
 * core's last step left (platform/bridge.js). */
export function budgetIn(inner, core) {
  const { kin } = inner;
  let twin = kin.twins.get(core);
  if (twin !== undefined) return twin;
  core.putNumbers(kin.options.numbers);
  const [len] = core.put([kin.options.text]);
  const handle = core.x.rl_budget_new(len);
  if (handle === 0) throw invalid(core, "Budget");
  twin = { core, handle, shared: null, share: undefined, sharing: inner.sharing, kin };
  if (inner.share !== undefined) kin.sharing.tabs?.(twin, core, inner.share);
  kin.twins.set(core, twin);
  if (twin.shared === null) for (const each of kin.twins.values()) each.shared = bridged(each);
  else for (const each of kin.twins.values()) each.shared = noting(each, each.shared);
  return twin;
}

/** A tab-shared twin's steps, noting it as the one that stepped last: `budget.snapshot()` reads it. */
function noting(twin, steps) {
  if (steps.noting) return steps;
  return {
    noting: true,
    async enter(run) {
      await steps.enter(run);
      twin.kin.writer = twin;
    },
    leave: (run) => steps.leave(run),
    news: () => steps.news(),
  };
}
