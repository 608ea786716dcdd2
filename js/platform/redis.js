// Budgets shared by a fleet of Node processes (`new Budget({ redis })`). Each scope's authority state
// lives in one Redis hash, "retryline:budget:<share>:<scope>" (its state and a version), and each
// process runs the authority itself (./authority.js) on the state it read, writing the result back
// only if no process wrote in between: one Lua script, compare and set, which also counts the fleet
// (a sorted set of the processes that visited lately). The visits, leases, bound and fallback are the
// coordinator's (./coordinator.js): this is a Durable Object namespace over Redis.

import { readVisit } from "./visit.js";
import { wall } from "./clock.js";

// KEYS[1] the scope's hash, KEYS[2] the fleet's members; ARGV: the version read, the new state ("":
// unchanged, only checked to be the one read), its time to live (ms), this process's id, how long a
// member that stopped visiting still counts (ms). Returns {written (or current), version, the state
// (when another process wrote first), the fleet's members}.
const CAS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], now, ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local n = redis.call('ZCARD', KEYS[2])
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {0, v, redis.call('HGET', KEYS[1], 's') or '', n} end
if ARGV[2] == '' then return {1, v, '', n} end
redis.call('HSET', KEYS[1], 'v', v + 1, 's', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, v + 1, '', n}`;
/** The script's SHA-1, for EVALSHA (Web Crypto: no node: import in the entry's graph). */
let sha = null;
const scriptSha = () =>
  (sha ??= crypto.subtle.digest("SHA-1", new TextEncoder().encode(CAS)).then((d) => [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("")));
/** A visit whose writes keep losing to other processes gives up after this long (the coordinator
 * stopped waiting for it long before): contention is retried, not taken for an outage. */
const CONTENDED_MS = 1000;
/** A command not answered in this long is no answer: the scope's queue moves on. */
const COMMAND_MS = 1000;
/** A process's first visit includes its connection (a refused one fails at once); it must hear of the
 * fleet's bans before it sends, so it is waited for up to this, or the latest start of its attempt. */
export const JOIN_MS = 5000;
/** A scope's key outlives its last visit by this, or its hold or ban if that ends later. */
export const IDLE_MS = 10 * 60_000;
/** A process that stopped visiting leaves the fleet's count after this long. */
export const MEMBER_MS = 15_000;

const bounded = (promise) => {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("Redis did not answer")), COMMAND_MS)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

/** A name for this process among the fleet's members. */
const memberId = () => (typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${wall()}-${Math.random()}`);

/** A namespace (idFromName, get) whose stubs' fetch visits the scope's state in Redis. */
export function redisNamespace(redis, load, name = "retryline") {
  const known = new Map(); // key → { version, saved, handle, limits }: what this process last wrote or read
  const waiting = new Map(); // key → the visits queued behind the one in flight: [{ visit, resolve, reject }]
  const member = memberId();
  const members = `retryline:members:${name}`;

  async function cas(key, version, state, ttl) {
    const args = [key, members, version, state, Math.max(1, Math.ceil(ttl)), member, MEMBER_MS];
    try {
      return await bounded(redis.command(["EVALSHA", await scriptSha(), 2, ...args]));
    } catch (error) {
      if (!String(error?.message).includes("NOSCRIPT")) throw error;
      return bounded(redis.command(["EVAL", CAS, 2, ...args]));
    }
  }

  /** Runs the authority for every visit of `batch` on the scope's state and writes it once: one
   * round trip for the calls queued behind a visit. Each answer carries the fleet's count. */
  async function visitScope(key, batch) {
    const budgets = await load();
    let scope = known.get(key) ?? { version: -1, saved: "", handle: 0, limits: null };
    const until = Date.now() + CONTENDED_MS;
    try {
      do {
        const answers = [];
        for (const { visit } of batch) {
          if (scope.handle === 0 || scope.limits !== visit.limits) {
            if (scope.handle !== 0) scope.saved = budgets.save(scope.handle);
            scope.handle = budgets.open(visit.limits, scope.saved);
            scope.limits = visit.limits;
          }
          answers.push(budgets.lease(scope.handle, visit));
        }
        // Visits that took, told and were granted nothing write nothing: they only check that the
        // state they were answered from is the fleet's, so news visits do not contend with leases.
        const changed = answers.some((a) => a[6] !== 0); // anything but a clear "unchanged" is written
        const saved = changed ? budgets.save(scope.handle) : "";
        const ends = answers.flatMap((a) => [a[2], a[3]]);
        const reply = await cas(key, scope.version, saved, Math.max(wall(), ...ends) - wall() + IDLE_MS);
        if (Number(reply?.[0]) === 1) {
          if (changed) Object.assign(scope, { version: Number(reply[1]), saved });
          known.set(key, scope);
          const fleet = Number(reply?.[3]) || 0;
          return answers.map((a) => [...a.slice(0, 6), fleet]);
        }
        // Another process wrote first: take its state up and lease again from it.
        budgets.free(scope.handle);
        known.delete(key); // its handle is freed: never to be used again
        scope = { version: Number(reply?.[1]), saved: String(reply?.[2] ?? ""), handle: 0, limits: null };
      } while (Date.now() < until);
      return batch.map(() => null);
    } catch (error) {
      if (scope.handle !== 0) budgets.free(scope.handle);
      known.delete(key);
      throw error;
    }
  }

  /** Visits `key` for what queued up meanwhile, one batch at a time, until nothing waits. */
  async function drain(key) {
    for (let batch = waiting.get(key); batch?.length; batch = waiting.get(key)) {
      waiting.set(key, []);
      try {
        const answers = await visitScope(key, batch);
        batch.forEach((v, i) => v.resolve(answers[i]));
      } catch (error) {
        batch.forEach((v) => v.reject(error));
      }
    }
    waiting.delete(key);
  }

  /** POST /lease as the Durable Object answers it: [tokens, from, hold, ban, breaker, probe, members], or not ok. */
  function lease(key, body) {
    const visit = readVisit(JSON.parse(body));
    if (typeof visit === "string") throw new TypeError(visit);
    const answered = new Promise((resolve, reject) => {
      const queued = waiting.get(key);
      if (queued !== undefined) return void queued.push({ visit, resolve, reject });
      waiting.set(key, [{ visit, resolve, reject }]);
      drain(key);
    });
    return answered.then((answer) => ({ ok: answer !== null, json: async () => answer }));
  }

  return { idFromName: (name) => `retryline:budget:${name}`, get: (key) => ({ fetch: (_, init) => lease(key, init.body) }) };
}
