// `new Budget(options)`: one core budget shared by every client that holds it — per-scope token
// buckets with a priority reserve, a retry quota, and the provider's holds and bans. How it is
// shared beyond this realm is the entry's: across tabs (`share`, browsers) or isolates
// (`coordinator`, workerd) or a fleet's processes (`redis`, Node), each a module of its own that the
// entry plugs in.

import { THREW, encodeFields } from "../core/wire.js";
import { invalid } from "../core/instance.js";
import { now, wall } from "../platform/clock.js";
import { optionKeys, unreadable, wrongType } from "./invalid.js";

/** The budget behind each genuine Budget: a look-alike finds nothing here. */
const budgets = new WeakMap();

export function defineBudget(cores, sharing) {
  const core = cores.first;
  const x = core.x;
  const freed = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(freeTwins) : null;

  class Budget {
    #inner;

    /** @throws {TypeError | RangeError} naming the invalid field. */
    constructor(options) {
      // Each field is read once; a getter that throws is named by the core, as options.<field>.
      const fields = [];
      const given = {};
      let namespace;
      let redis;
      const aside = ["coordinator", "redis"]; // JavaScript values the glue reads itself
      for (const key of optionKeys("Budget", options)) {
        let value;
        try {
          value = options[key];
        } catch (error) {
          if (aside.includes(key)) throw unreadable("Budget", key, error);
          fields.push([key, THREW, error]);
          continue;
        }
        if (key === "coordinator") namespace = value;
        else if (key === "redis") redis = value;
        else {
          fields.push([key, value]);
          given[key] = value;
        }
      }
      const encoded = encodeFields(fields);
      core.putNumbers(encoded.numbers);
      const [len] = core.put([encoded.text]);
      const handle = x.rl_budget_new(len);
      if (handle === 0) throw invalid(core, "Budget");
      const share = typeof given.share === "string" ? given.share : undefined;
      // Its twins: the same budget in each of the entry's cores it is used in (js/core/cores.js).
      const kin = { twins: new Map(), writer: null, options: encoded, sharing };
      const inner = { core, handle, shared: null, share: undefined, sharing: () => "local", kin };
      kin.twins.set(core, inner);
      kin.writer = inner;
      try {
        if (namespace != null && redis != null) throw new TypeError("Budget: give coordinator or redis, not both");
        if (redis !== undefined && redis !== null) {
          if (sharing.redis === undefined) {
            throw new TypeError("Budget: redis keeps a budget for a fleet of Node processes: use retryline's Node entry there");
          }
          sharing.redis(inner, core, redis, share ?? "retryline", given);
        } else if (namespace !== undefined && namespace !== null) {
          if (sharing.coordinator === undefined) {
            throw new TypeError("Budget: coordinator is a Durable Object namespace, which only workerd has: use retryline's workerd entry there");
          }
          sharing.coordinator(inner, core, namespace, share ?? "retryline", given);
        } else if (share !== undefined && sharing.tabs !== undefined) {
          // Where the platform cannot share (no Web Locks or IndexedDB), the budget is this realm's own.
          sharing.tabs(inner, core, share);
        }
      } catch (error) {
        x.rl_budget_free(handle);
        throw error;
      }
      this.#inner = inner;
      budgets.set(this, inner);
      freed?.register(this, kin.twins, this);
    }

    /** The name it is shared under across tabs; undefined where it works alone. */
    get share() {
      return this.#inner.share;
    }

    /** How it is kept: "local", "tabs", "coordinator", "redis" or "unreachable". */
    get sharing() {
      return this.#inner.sharing();
    }

    /** Each scope: tokens, retry quota, holds and bans with their ends (wall-clock ms), queued operations. */
    snapshot() {
      // The twin that took the last step holds the budget as it stands.
      const { core: at, handle } = this.#inner.kin.writer;
      at.x.rl_budget_snapshot(handle, now(), wall());
      const scopes = at.json();
      const sharing = this.#inner.sharing();
      for (const scope of scopes) scope.sharing = sharing;
      return scopes;
    }

    /** Releases its memory in the wasm instance (optional; garbage collection does it too), and
     * closes the Redis connection it made from a URL (one passed in is the caller's). */
    free() {
      freed?.unregister(this);
      Promise.resolve(this.#inner.close?.()).catch(() => {});
      freeTwins(this.#inner.kin.twins);
    }
  }

  return Budget;
}

/** Frees a budget in every core it was made in. */
function freeTwins(twins) {
  for (const twin of twins.values()) {
    twin.core.x.rl_budget_free(twin.handle);
    twin.handle = 0;
  }
}

/** The budget of a genuine `Budget`; throws the context's TypeError for anything else. */
export function budgetOf(context, value) {
  const inner = value !== null && typeof value === "object" ? budgets.get(value) : undefined;
  if (inner === undefined) throw wrongType(context, "budget", "a Budget (new Budget())", value);
  return inner;
}
