// Budgets shared across isolates (`new Budget({ coordinator: env.RETRY_BUDGET })`): one Durable
// Object per scope, named "<share>:<scope>", asked through its fetch (js/durable-object.js). The
// core decides when a step visits it, what it says, and what it takes up of the answer
// (src/budget/contact.rs); this makes the visits. Never throws: an error, a malformed answer or no
// answer in time is no answer, and the budget goes on with what it knows.

import { describe, kind } from "./describe.js";

/** The priorities' names, in the core's order (src/budget/mod.rs Priority). */
const PRIORITIES = ["refresh", "read", "order", "reconcile"];

/** Asks `stub` for a lease: `[tokens, from, hold, ban, breaker, probe, members]` (wall ms; a
 * coordinator of an earlier version answers the first four, and the breaker stays each realm's; a
 * Durable Object counts no members), or null within `ms`. */
function ask(stub, body, ms) {
  return new Promise((resolve) => {
    const timer = patience(ms, () => resolve(null));
    const done = (answer) => {
      timer.stop();
      resolve(answer);
    };
    try {
      Promise.resolve(stub.fetch("https://retryline.coordinator/lease", { method: "POST", body }))
        .then((response) => (response.ok ? response.json() : null))
        .then((answer) => {
          const valid = Array.isArray(answer) && answer.length >= 4 && answer.every((n) => typeof n === "number" && n >= 0);
          done(valid ? Array.from({ length: 7 }, (_, i) => answer[i] ?? 0) : null);
        }, () => done(null));
    } catch {
      done(null);
    }
  });
}

/** How often a wait counts the time it was given. */
const TICK_MS = 25;

/**
 * Calls `gaveUp` once `ms` of this process's own time has passed: a tick that comes late (the event
 * loop was busy) counts for at most two ticks, so a loaded process is not taken for a slow
 * coordinator; and the last tick yields once more (setImmediate runs after the I/O of its turn,
 * timers before it), so that a reply that came meanwhile is read first.
 */
function patience(ms, gaveUp) {
  let [counted, last, timer] = [0, performance.now(), null];
  const tick = () => {
    const at = performance.now();
    counted += Math.min(at - last, 2 * TICK_MS);
    last = at;
    if (counted < ms) return void (timer = setTimeout(tick, Math.min(TICK_MS, ms - counted)));
    if (typeof setImmediate === "function") setImmediate(gaveUp);
    else gaveUp();
  };
  timer = setTimeout(tick, Math.min(TICK_MS, ms));
  return { stop: () => clearTimeout(timer) };
}

/** The `coordinator` option: a Durable Object namespace binding (idFromName and get). */
function readNamespace(namespace) {
  for (const method of ["idFromName", "get"]) {
    let found;
    try {
      found = namespace[method];
    } catch (error) {
      throw new TypeError(`Budget: coordinator.${method} could not be read: ${describe(error)}`);
    }
    if (typeof found !== "function") {
      throw new TypeError(`Budget: coordinator must be a Durable Object namespace binding (with idFromName and get), got ${kind(namespace)}`);
    }
  }
  return namespace;
}

/** A budget kept with the coordinators of `namespace` named `name` (`given`: its limits, which
 * every visit carries): `{ label, joinMs, visit(scope, visit) }`, the visit resolving with the
 * answer or null. The first visit is waited for up to `joinMs` (0: as any). */
export function coordinator(namespace, name, given, label = "coordinator", joinMs = 0) {
  readNamespace(namespace);
  let limits = "{}";
  try {
    const { share, ...rest } = given;
    limits = JSON.stringify(rest);
  } catch {}
  // A stub per visit: workerd ties one to the request that made it ("Cannot perform I/O on behalf
  // of a different request").
  const stub = (scope) => namespace.get(namespace.idFromName(`${name}:${scope}`));
  return {
    label,
    joinMs,
    visit(scope, v) {
      const body = JSON.stringify({
        limits, scope, priority: PRIORITIES[v.priority] ?? "read", weight: v.weight, earliest: v.earliest, latest: v.latest,
        returned: v.returned, hold: v.hold, ban: v.ban, breaker: v.breaker, probe: v.probe, spent: v.spent,
      });
      try {
        return ask(stub(scope), body, v.within);
      } catch {
        return Promise.resolve(null);
      }
    },
  };
}
