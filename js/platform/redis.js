// Budgets shared by a fleet of Node processes (`new Budget({ redis })`). Each scope's authority state
// lives in one Redis hash, "retryline:budget:<share>:<scope>" (its state and a version), and each
// process runs the authority itself (./authority.js) on the state it read, writing the result back
// only if no process wrote in between: one Lua script, compare and set. The visits, leases, bound and
// fallback are the coordinator's (./coordinator.js): this is a Durable Object namespace over Redis.

import { readVisit } from "./visit.js";
import { wall } from "./clock.js";

// KEYS[1] the scope's hash; ARGV: the version read, the new state, its time to live (ms).
const CAS = `local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {0, v, redis.call('HGET', KEYS[1], 's') or ''} end
redis.call('HSET', KEYS[1], 'v', v + 1, 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, v + 1}`;
/** The script's SHA-1, for EVALSHA (Web Crypto: no node: import in the entry's graph). */
let sha = null;
const scriptSha = () =>
  (sha ??= crypto.subtle.digest("SHA-1", new TextEncoder().encode(CAS)).then((d) => [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("")));
/** Writes lost to another process before a visit gives up (each is one round trip). */
const TRIES = 8;
/** A command not answered in this long is no answer: the scope's queue moves on. */
const COMMAND_MS = 1000;
/** A process's first visit includes its connection; it must hear of the fleet's bans before it sends. */
export const JOIN_MS = 1000;
/** A scope's key outlives its last visit by this, or its hold or ban if that ends later. */
export const IDLE_MS = 10 * 60_000;

const bounded = (promise) => {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("Redis did not answer")), COMMAND_MS)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

/** A namespace (idFromName, get) whose stubs' fetch visits the scope's state in Redis. */
export function redisNamespace(redis, load) {
  const known = new Map(); // key → { version, saved, handle, limits }: what this process last wrote or read
  const queues = new Map(); // key → the tail of this process's visits to it, one at a time

  async function cas(key, version, state, ttl) {
    const args = [key, version, state, Math.max(1, Math.ceil(ttl))];
    try {
      return await bounded(redis.command(["EVALSHA", await scriptSha(), 1, ...args]));
    } catch (error) {
      if (!String(error?.message).includes("NOSCRIPT")) throw error;
      return bounded(redis.command(["EVAL", CAS, 1, ...args]));
    }
  }

  async function visitScope(key, visit) {
    const budgets = await load();
    let scope = known.get(key) ?? { version: -1, saved: "", handle: 0, limits: null };
    try {
      for (let tries = 0; tries < TRIES; tries++) {
        if (scope.handle === 0 || scope.limits !== visit.limits) {
          if (scope.handle !== 0) scope.saved = budgets.save(scope.handle);
          scope.handle = budgets.open(visit.limits, scope.saved);
          scope.limits = visit.limits;
        }
        const answer = budgets.lease(scope.handle, visit);
        const saved = budgets.save(scope.handle);
        const reply = await cas(key, scope.version, saved, Math.max(answer[2], answer[3], wall()) - wall() + IDLE_MS);
        if (Number(reply?.[0]) === 1) {
          Object.assign(scope, { version: Number(reply[1]), saved });
          known.set(key, scope);
          return answer;
        }
        // Another process wrote first: take its state up and lease again from it.
        budgets.free(scope.handle);
        scope = { version: Number(reply?.[1]), saved: String(reply?.[2] ?? ""), handle: 0, limits: null };
      }
      return null;
    } catch (error) {
      if (scope.handle !== 0) budgets.free(scope.handle);
      known.delete(key);
      throw error;
    }
  }

  /** POST /lease as the Durable Object answers it: [tokens, from, hold, ban], or not ok. */
  function lease(key, body) {
    const visit = readVisit(JSON.parse(body));
    if (typeof visit === "string") throw new TypeError(visit);
    const run = (queues.get(key) ?? Promise.resolve()).then(() => visitScope(key, visit));
    queues.set(key, run.catch(() => {}));
    return run.then((answer) => ({ ok: answer !== null, json: async () => answer }));
  }

  return { idFromName: (name) => `retryline:budget:${name}`, get: (key) => ({ fetch: (_, init) => lease(key, init.body) }) };
}
