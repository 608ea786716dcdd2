// The store calls a keyed call's machine asks for. Accepted shapes, sync or async: { get, set,
// delete } (a Map works), { get, put, delete } (Durable Object storage, KV), and Web Storage
// (localStorage: getItem/setItem/removeItem). Values are JSON text under "retryline:<key>", which
// every one of them can hold. Without a store, a client keeps state in memory. The machine bounds
// each call with its deadline; nothing here throws.

import { describe } from "../platform/describe.js";
import { FULFILLED, follow } from "../platform/race.js";
import { GET, SET } from "../core/calls.js";

const PREFIX = "retryline:";
const NAMES = { [GET]: ["get", "store.get"], [SET]: ["set", "store.set"] };

/** Makes the store call `effect` (GET, SET or DELETE) for `key`; `answer({ value } | { words })`
 * gets what came of it, always later than now. */
export function storeCall(c, effect, key, answer) {
  const [name, what] = NAMES[effect.type] ?? ["delete", "store.delete"];
  if (c.store === undefined) {
    c.memory ??= new Map();
    if (effect.type === GET) return later(answer, parsed(key, c.memory.get(key)));
    if (effect.type === SET) c.memory.set(key, effect.value);
    else c.memory.delete(key);
    return later(answer, { value: null });
  }
  let called;
  try {
    const args = effect.type === SET ? [PREFIX + key, effect.value] : [PREFIX + key];
    called = Reflect.apply(c.store[name], c.store.target, args);
  } catch (error) {
    return later(answer, { words: `${what} failed: ${describe(error)}` });
  }
  follow(called, ([how, value]) => {
    if (how !== FULFILLED) return answer({ words: `${what} failed: ${describe(value)}` });
    answer(effect.type === GET ? parsed(key, value) : { value: null });
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
