// The budget authority of one scope (src/abi/authority.rs): built from the limits the visitors send
// and the state stored last, it answers each visit's lease, and its state is saved after. The Durable
// Object keeps one per scope (js/durable-object.js); in a fleet each Node process runs one against
// the state in Redis (./redis.js). `core` is a bound authority instance (pkg/authority.wasm).

import { now, wall } from "./clock.js";

/** A visit's fields, or a string saying what is wrong with them. */
export function readVisit(visit) {
  const { limits, scope, priority } = visit ?? {};
  if (typeof limits !== "string" || typeof scope !== "string" || typeof priority !== "string") {
    return "limits, scope and priority must be strings";
  }
  const n = (k) => (Number.isFinite(visit[k]) && visit[k] >= 0 ? visit[k] : 0);
  return { limits, scope, priority, numbers: ["weight", "earliest", "latest", "returned", "hold", "ban", "breaker", "probe"].map(n) };
}

export function authority(core) {
  const x = core.x;
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
      const [limitsLen, savedLen] = core.putValues([options, state]);
      const handle = x.rl_authority_new(limitsLen, savedLen, now(), wall());
      if (handle === 0) throw new TypeError(`Budget: ${core.text()}`);
      return handle;
    },
    /** The answer to a visit (readVisit's): [tokens, from, hold end, ban end, breaker's open end] (wall
     * ms) and the probe's answer (src/budget/breaker_shared.rs). */
    lease(handle, { scope, priority, numbers }) {
      const [scopeLen, priorityLen] = core.put([scope, priority]);
      x.rl_authority_lease(handle, scopeLen, priorityLen, now(), wall(), ...numbers);
      return [0, 1, 2, 3, 4, 5].map((i) => core.number(i));
    },
    /** Its state, to store (JSON text). */
    save(handle) {
      x.rl_authority_save(handle, now(), wall());
      return core.text();
    },
    /** Each scope it keeps, as budget.snapshot() shows them. */
    snapshot(handle) {
      x.rl_authority_snapshot(handle, now(), wall());
      return core.json();
    },
    free: (handle) => x.rl_authority_free(handle),
  };
}
