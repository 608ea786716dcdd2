// A store call a keyed call's machine asks for. Accepted shapes, sync or async: { get, set, delete }
// (a Map works), { get, put, delete } (Durable Object storage, KV), and Web Storage (localStorage:
// getItem/setItem/removeItem). Values are JSON text under "retryline:<key>", which every one of
// them can hold. Without a store, a client keeps state in memory. The machine bounds each call with
// its deadline; nothing here throws.

import { describe } from "./describe.js";
import { FULFILLED, follow } from "./race.js";

const PREFIX = "retryline:";

/** Calls `c.store`'s `method` ("get", "set" or "delete") for `key` (with `value` for set);
 * `answer({ value } | { words })` hears what came of it, always later than now. */
export function storeCall(c, method, key, value, answer) {
  if (c.store === undefined) {
    c.memory ??= new Map();
    if (method === "get") return later(answer, parsed(key, c.memory.get(key)));
    if (method === "set") c.memory.set(key, value);
    else c.memory.delete(key);
    return later(answer, { value: null });
  }
  let called;
  try {
    called = Reflect.apply(c.store[method], c.store.target, method === "set" ? [PREFIX + key, value] : [PREFIX + key]);
  } catch (error) {
    return later(answer, { words: `store.${method} failed: ${describe(error)}` });
  }
  follow(called, ([how, got]) => {
    if (how !== FULFILLED) return answer({ words: `store.${method} failed: ${describe(got)}` });
    answer(method === "get" ? parsed(key, got) : { value: null });
  });
}

/** What a store held: a saved state (parsed JSON, or the object a store handed back), or nothing. */
function parsed(key, stored) {
  if (stored === undefined || stored === null) return { value: null };
  if (typeof stored !== "string") return { value: stored };
  try {
    return { value: JSON.parse(stored) };
  } catch (error) {
    return { words: `the stored state of key "${key}" is not JSON (${describe(error)})` };
  }
}

const later = (answer, result) => void Promise.resolve().then(() => answer(result));
