// The methods of a caller's store, read once when the client is made (the store's calls live in
// ./store.js, which only keyed calls load).

import { describe, kind } from "./describe.js";

/** The methods of a store, checked when the client is made; throws what `invalid(field, problem)` makes. */
export function storeMethods(target, invalid) {
  const method = (names) => {
    for (const name of names) {
      let value;
      try {
        value = target[name];
      } catch (error) {
        throw invalid(`store.${name}`, `could not be read: ${describe(error)}`);
      }
      if (typeof value === "function") return value;
    }
    return undefined;
  };
  const get = method(["get", "getItem"]);
  const set = method(["set", "put", "setItem"]);
  const del = method(["delete", "removeItem"]);
  if (get === undefined || set === undefined || del === undefined) {
    throw invalid("store", `must be an object with get/set/delete (or put, or getItem/setItem/removeItem), got ${kind(target)}`);
  }
  return { target, get, set, delete: del };
}
