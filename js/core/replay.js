// replay(spec) in the core (src/abi/replay.rs): the engine on a virtual clock.

import { invalid } from "./instance.js";
import { encode } from "./wire.js";

export function replayOf(mem) {
  /** `{ records, wireRequests, stop }`. @throws {TypeError | RangeError} naming the field. */
  return function replay(spec) {
    const { text, numbers } = encode(spec);
    mem.args([], numbers);
    const [len] = mem.put([text]);
    if (mem.x.rl_replay(len) === 0) throw invalid(mem, "replay");
    return mem.json();
  };
}
