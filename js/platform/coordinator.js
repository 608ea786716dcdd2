// Budgets shared across isolates (`new Budget({ coordinator: env.RETRY_BUDGET })`): one Durable
// Object per scope, named "<share>:<scope>", asked through its fetch (js/durable-object.js). The
// core decides when a budget step visits it, what it says, and what it takes up of the answer
// (src/budget/contact.rs); this makes the visits. Never throws: an error, a malformed answer or no
// answer in time is no answer, and the budget goes on with what it knows.

import { now, wall } from "./clock.js";
import { describe, kind } from "./describe.js";

/** Asks `stub` for a lease: `[tokens, from, hold, ban, breaker, probe]` (wall ms; a coordinator of
 * an earlier version answers the first four, and the breaker stays each realm's), or null within `ms`. */
function visit(stub, body, ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    const done = (answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    try {
      Promise.resolve(stub.fetch("https://retryline.coordinator/lease", { method: "POST", body }))
        .then((response) => (response.ok ? response.json() : null))
        .then((answer) => {
          const valid = Array.isArray(answer) && answer.length >= 4 && answer.every((n) => typeof n === "number" && n >= 0);
          done(valid ? Array.from({ length: 6 }, (_, i) => answer[i] ?? 0) : null);
        }, () => done(null));
    } catch {
      done(null);
    }
  });
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

/** Keeps `budget` (its inner object) with the coordinators of `namespace` named `name`; `sharing`
 * says `label` while they answer, and the first visit is waited for up to `joinMs` (0: as any). */
export function coordinator(budget, core, namespace, name, given, label = "coordinator", joinMs = 0) {
  const x = core.x;
  readNamespace(namespace);
  if (joinMs > 0) x.rl_contact_join(budget.handle, joinMs);
  let limits = "{}";
  try {
    const { share, ...rest } = given;
    limits = JSON.stringify(rest);
  } catch {}
  // A stub per visit: workerd ties one to the request that made it ("Cannot perform I/O on behalf
  // of a different request").
  const stub = (scope) => namespace.get(namespace.idFromName(`${name}:${scope}`));

  /** Makes the visit the core handed out for `run`'s scope; resolves once its answer is taken up. */
  function go(run, code) {
    const numbers = Array.from({ length: 10 }, (_, i) => core.number(i));
    const [weight, priority, earliest, latest, returned, hold, ban, within, breaker, probe] = numbers;
    x.rl_op_scope(run.op);
    const scope = core.text();
    const body = JSON.stringify({ limits, scope, priority: core.names.priority[priority], weight, earliest, latest, returned, hold, ban, breaker, probe });
    let asked;
    try {
      asked = visit(stub(scope), body, within);
    } catch {
      asked = Promise.resolve(null);
    }
    const taken = asked.then((answer) => {
      const [len] = core.put([scope]);
      const [tokens, from, heldUntil, bannedUntil, breakerUntil, probed] = answer ?? [0, 0, 0, 0, 0, 0];
      x.rl_contact_answered(budget.handle, len, answer === null ? 0 : 1, tokens, from, heldUntil, bannedUntil, breakerUntil, probed, within, now(), wall());
    });
    // A visit in the background is not waited for; the step goes on with its own bucket.
    return code === 2 ? undefined : taken;
  }

  budget.sharing = () => (x.rl_contact_unreachable(budget.handle) === 1 ? "unreachable" : label);
  budget.shared = {
    /** Before a budget step: a lease with room, and fresh news of holds and bans. */
    async enter(run) {
      const code = x.rl_contact_before(run.op, now(), wall());
      if (code !== 0) await go(run, code);
    },
    /** After a budget step: a hold or ban it set reaches the coordinator. */
    async leave(run) {
      const code = x.rl_contact_after(run.op, now(), wall());
      if (code !== 0) await go(run, code);
    },
    news: () => null,
  };
}
