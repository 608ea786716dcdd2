// `new Budget({ redis })` (Node): the budget kept with a fleet's other processes in Redis. The visits
// are the coordinator's; the authority that answers them runs here, compiled when the first such budget is made.

import { bind } from "../core/instance.js";
import { authority } from "../platform/authority.js";
import { coordinator } from "../platform/coordinator.js";
import { redisClient } from "../platform/redis-client.js";
import { JOIN_MS, redisNamespace } from "../platform/redis.js";

let budgets = null;
const load = () =>
  (budgets ??= import("../../pkg/authority-inline.js").then(({ wasmBytes }) =>
    authority(bind(new WebAssembly.Instance(new WebAssembly.Module(wasmBytes()), {})))));

/** Keeps `inner` (a Budget's) in the Redis that `value` names or is. @throws {TypeError} naming redis. */
export function fleet(inner, core, value, name, given) {
  const redis = redisClient(value);
  load().catch(() => {}); // at construction, so that the first call does not wait for the authority's compile
  coordinator(inner, core, redisNamespace(redis, load), name, given, "redis", JOIN_MS);
  inner.close = redis.close;
}
