// The typed facade over one wasm core: the only code that calls an export. Each area names its
// arguments and returns plain values — clients, budgets, calls, streams, replay, the worksheet's
// plans, the budget authority — so that nothing above js/core/ knows an export, a slot or a code.

import { memoryOf } from "./instance.js";
import { callsOf } from "./calls.js";
import { clientsOf } from "./clients.js";
import { budgetsOf } from "./budgets.js";

/** The core of `instance`: `{ names, code, clients, budgets, calls, streams, replay }` (an area
 * this build or this entry lacks is undefined). `areas` gives the facades of the areas not every
 * entry has (`streams`: ./streams.js `streamsOf`, `replay`: ./replay.js `replayOf`, `share`:
 * ./share.js `shareEffect`, the steps on a budget shared beyond this realm), so that an entry
 * without them carries none of their code. */
export function coreOf(instance, areas = {}) {
  const mem = memoryOf(instance);
  const x = mem.x;
  let names = null;
  if (typeof x.rl_names === "function") {
    x.rl_names();
    names = mem.json();
  }
  // Each name's code: its index in the core's list.
  const code = {};
  for (const [table, list] of Object.entries(names ?? {})) code[table] = Object.fromEntries(list.map((name, i) => [name, i]));
  return {
    names,
    code,
    clients: typeof x.rl_client_new === "function" ? clientsOf(mem) : undefined,
    budgets: typeof x.rl_budget_new === "function" ? budgetsOf(mem) : undefined,
    calls: typeof x.rl_call_begin === "function" ? callsOf(mem, code, areas.share) : undefined,
    streams: areas.streams !== undefined && typeof x.rl_stream_begin === "function" ? areas.streams(mem, code, names) : undefined,
    replay: areas.replay !== undefined && typeof x.rl_replay === "function" ? areas.replay(mem) : undefined,
  };
}
