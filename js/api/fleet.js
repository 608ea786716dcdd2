// `new Budget({ redis })` (Node): the budget kept with a fleet's other processes in Redis. The visits
// are the coordinator's; the authority that answers them runs here, compiled when the first such budget is made.

import { authorityOf } from "../core/authority.js";
import { coordinator } from "../platform/coordinator.js";
import { redisClient } from "../platform/redis-client.js";
import { JOIN_MS, redisNamespace } from "../platform/redis.js";

let budgets = null;
const load = () =>
  (budgets ??= import("../../pkg/authority-inline.cjs").then(({ wasmBytes }) =>
    authorityOf(new WebAssembly.Instance(new WebAssembly.Module(wasmBytes()), {}))));

/** Keeps a budget in the Redis that `value` names or is. @throws {TypeError} naming redis. */
export function fleet(value, name, given) {
  const redis = redisClient(value);
  load().catch(() => {}); // at construction, so that the first call does not wait for the authority's compile
  return { ...coordinator(redisNamespace(redis, load, name), name, given, "redis", JOIN_MS), close: redis.close };
}
