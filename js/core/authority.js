// The budget authority of one scope (src/abi/authority.rs), over its own wasm (pkg/authority.wasm):
// built from the limits the visitors send and the state stored last, it answers each visit's lease,
// and its state is saved after. The Durable Object keeps one per scope (js/durable-object.js); in a
// fleet each Node process runs one against the state in Redis (js/platform/redis.js).

import { memoryOf } from "./instance.js";
import { encode } from "./wire.js";
import { now, wall } from "../platform/clock.js";

/** The authority of an instance of pkg/authority.wasm. */
export function authorityOf(instance) {
  const mem = memoryOf(instance);
  const x = mem.x;
  return {
    /** The scope's budget from limits (JSON text) and the state saved last (JSON text, or ""). @throws {TypeError} */
    open(limits, saved) {
      let options;
      let state = null;
      try {
        options = JSON.parse(limits);
      } catch {
        throw new TypeError("Budget limits are not JSON");
      }
      try {
        if (saved) state = JSON.parse(saved);
      } catch {}
      const a = encode(options);
      const b = state === null ? null : encode(state);
      const lengths = mem.put([a.text, b?.text]);
      mem.args([now(), wall(), ...lengths], [...a.numbers, ...(b?.numbers ?? [])]);
      const handle = x.rl_authority_new();
      if (handle === 0) throw new TypeError(`Budget: ${mem.text()}`);
      return handle;
    },
    /** The answer to a visit (readVisit's): [tokens, from, hold end, ban end, breaker's open end] (wall
     * ms) and the probe's answer (src/budget/breaker_shared.rs), then 1 if the state changed (0: no
     * need to store it). */
    lease(handle, { scope, priority, numbers }) {
      const lengths = mem.put([scope, priority]);
      mem.args([now(), wall(), ...numbers, ...lengths]);
      x.rl_authority_lease(handle);
      return [0, 1, 2, 3, 4, 5, 6].map((i) => mem.number(i));
    },
    /** Its state, to store (JSON text). */
    save(handle) {
      x.rl_authority_save(handle, now(), wall());
      return mem.text();
    },
    /** Each scope it keeps, as budget.snapshot() shows them. */
    snapshot(handle) {
      x.rl_authority_snapshot(handle, now(), wall());
      return mem.json();
    },
    free: (handle) => x.rl_authority_free(handle),
  };
}
