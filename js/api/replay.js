// replay(spec): the engine that RetryClient.fetch drives, on a virtual clock (src/replay.rs).

import { invalid } from "../core/instance.js";

export function defineReplay(core) {
  /** Runs the same engine as RetryClient.fetch on a virtual clock: `{ records, wireRequests, stop }`. */
  return function replay(spec) {
    const [len] = core.putValues([spec]);
    if (core.x.rl_replay(len) === 0) throw invalid(core, "replay");
    return core.json();
  };
}
