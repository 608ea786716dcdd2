// `new Budget(options)`: one core budget shared by every client that holds it — per-scope token
// buckets with a priority reserve, a retry quota, and the provider's holds and bans. How it is
// shared beyond this realm is the entry's: across tabs (`share`, browsers) or isolates
// (`coordinator`, workerd) or a fleet's processes (`redis`, Node), each a module of its own that the
// entry plugs in. Every step on a shared budget is a machine's, inside its bracket (src/budget/sharing.rs).

import { THREW, encodeFields } from "../core/wire.js";
import { CONTACTS, LOCAL, TABS } from "../core/budgets.js";
import { now, wall } from "../platform/clock.js";
import { optionKeys, unreadable, wrongType } from "./invalid.js";
import { readTelemetry } from "./telemetry-options.js";
import { BudgetEvents, budgetGauges } from "./budget-watch.js";

/** The budget behind each genuine Budget: a look-alike finds nothing here. */
const budgets = new WeakMap();

/** Frees a budget's part in the core. */
function freeBudget(inner) {
  if (inner.handle === 0) return;
  inner.core.budgets.free(inner.handle);
  inner.handle = 0;
}

export function defineBudget(core, sharing) {
  const freed = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(freeBudget) : null;

  class Budget extends EventTarget {
    #inner;

    /** @throws {TypeError | RangeError} naming the invalid field. */
    constructor(options) {
      super();
      // Each field is read once; a getter that throws is named by the core, as options.<field>.
      const fields = [];
      const given = {};
      let namespace;
      let redis;
      let fleetSize;
      let telemetry;
      const aside = ["coordinator", "redis", "fleetSize", "telemetry"]; // values the glue reads itself
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
        else if (key === "fleetSize") fleetSize = value;
        else if (key === "telemetry") telemetry = readTelemetry("Budget", value, ["meterProvider"]);
        else {
          fields.push([key, value]);
          given[key] = value;
        }
      }
      const share = typeof given.share === "string" ? given.share : undefined;
      if (namespace != null && redis != null) throw new TypeError("Budget: give coordinator or redis, not both");
      // How it is kept: the way of sharing this entry has for what was given (checked first, so
      // that a wrong value is named before the limits are read).
      let keep = null;
      if (fleetSize !== undefined && fleetSize !== null) {
        if (redis === undefined || redis === null) throw new TypeError("Budget: fleetSize is for a budget kept in Redis (give redis too)");
        if (typeof fleetSize !== "number" || !Number.isInteger(fleetSize)) throw new TypeError(`Budget: fleetSize must be a whole number of processes, got ${typeof fleetSize === "number" ? fleetSize : typeof fleetSize}`);
        if (fleetSize < 1 || fleetSize > 10_000) throw new RangeError(`Budget: fleetSize must be from 1 to 10000, got ${fleetSize}`);
      }
      if (redis !== undefined && redis !== null) {
        if (sharing.redis === undefined) throw new TypeError("Budget: redis keeps a budget for a fleet of Node processes: use retryline's Node entry there");
        keep = { ...sharing.redis(redis, share ?? "retryline", given), assumed: fleetSize ?? 0 };
      } else if (namespace !== undefined && namespace !== null) {
        if (sharing.coordinator === undefined) throw new TypeError("Budget: coordinator is a Durable Object namespace, which only workerd has: use retryline's workerd entry there");
        keep = sharing.coordinator(namespace, share ?? "retryline", given);
      } else if (share !== undefined && sharing.tabs !== undefined) {
        // Where the platform cannot share (no Web Locks or IndexedDB), the budget is this realm's own.
        keep = sharing.tabs(share);
      }
      const kind = keep === null ? LOCAL : keep.visit !== undefined ? CONTACTS : TABS;
      let handle;
      try {
        handle = core.budgets.create(encodeFields(fields), kind, keep?.joinMs ?? 0, keep?.assumed ?? 1);
      } catch (error) {
        keep?.close?.();
        throw error;
      }
      // ears: each live call's news, told when a slot of maxInFlight frees (js/executor/call.js).
      const inner = { core, handle, shared: keep, share: kind === TABS ? share : undefined, label: keep?.label ?? "local", ears: new Set() };
      // events: "breaker", "ban", "hold", dispatched as its calls' records are made.
      inner.events = new BudgetEvents(this, () => this.snapshot());
      this.#inner = inner;
      if (telemetry?.meterProvider !== undefined) budgetGauges(telemetry.meterProvider, () => (inner.handle === 0 ? [] : this.snapshot()));
      budgets.set(this, inner);
      freed?.register(this, inner, this);
    }

    /** Listens for "breaker" (a scope's breaker changed state), "ban" or "hold" (one began); each
     * event's `detail` names the scope. From then on every call of the budget reports its records. */
    addEventListener(type, listener, options) {
      this.#inner.events.listen();
      super.addEventListener(type, listener, options);
    }

    /** The name it is shared under across tabs; undefined where it works alone. */
    get share() {
      return this.#inner.share;
    }

    /** How it is kept: "local", "tabs", "coordinator", "redis" or "unreachable". */
    get sharing() {
      const inner = this.#inner;
      if (inner.shared?.visit === undefined || inner.handle === 0) return inner.label;
      return core.budgets.snapshot(inner.handle, now(), wall()).unreachable ? "unreachable" : inner.label;
    }

    /** Each scope: tokens, retry quota, holds and bans with their ends (wall-clock ms), queued
     * operations, and under maxInFlight the requests on the wire and those waiting for room. */
    snapshot() {
      const inner = this.#inner;
      const { scopes, unreachable } = core.budgets.snapshot(inner.handle, now(), wall());
      const sharing = unreachable && inner.shared?.visit !== undefined ? "unreachable" : inner.label;
      for (const scope of scopes) scope.sharing = sharing;
      return scopes;
    }

    /** Releases its memory in the wasm instance (optional; garbage collection does it too), and
     * closes the Redis connection it made from a URL (one passed in is the caller's). */
    free() {
      freed?.unregister(this);
      Promise.resolve(this.#inner.shared?.close?.()).catch(() => {});
      freeBudget(this.#inner);
    }
  }

  return Budget;
}

/** The budget of a genuine `Budget`; throws the context's TypeError for anything else. */
export function budgetOf(context, value) {
  const inner = value !== null && typeof value === "object" ? budgets.get(value) : undefined;
  if (inner === undefined) throw wrongType(context, "budget", "a Budget (new Budget())", value);
  return inner;
}
