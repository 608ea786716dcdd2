// Where keyed operations keep their state across restarts. Accepted shapes, sync or async:
// { get, set, delete } (a Map works), { get, put, delete } (Durable Object storage, KV), and Web
// Storage (localStorage: getItem/setItem/removeItem). Values are JSON text under
// "retryline:<key>", which every one of them can hold. Without a store, a client keeps state in
// memory. Every call races the operation's bounds: a store that never settles is bounded like a
// fetch. Nothing here throws: a failure is a Fault.

import { describe } from "./describe.js";
import { CUT, FULFILLED, REJECTED } from "./race.js";

const PREFIX = "retryline:";

/** Why a store call gave no answer: `{ pending, detail }` (it failed) or `{ pending, cut }`. */
export class Fault {
  constructor(pending, detail, cut) {
    this.pending = pending;
    this.detail = detail;
    this.cut = cut;
  }
}

/** The Store of a client: the caller's methods (`c.store`, as options read them), or memory. */
export function storeOf(c) {
  c.storeImpl ??= c.store === undefined ? new Store() : new Store(c.store.target, c.store.get, c.store.set, c.store.delete);
  return c.storeImpl;
}

export class Store {
  constructor(target = null, get, set, del) {
    this.target = target;
    this.methods = target === null ? null : { get, set, delete: del };
    this.memory = target === null ? new Map() : null;
  }

  /** Calls one method within `race`; `[FULFILLED, value]` or a Fault. */
  async #call(race, name, pending, args) {
    let called;
    try {
      called = Reflect.apply(this.methods[name], this.target, args);
    } catch (error) {
      return new Fault(pending, `store.${name} failed: ${describe(error)}`);
    }
    const [how, value] = await race.wait(called);
    if (how === FULFILLED) return [FULFILLED, value];
    if (how === REJECTED) return new Fault(pending, `store.${name} failed: ${describe(value)}`);
    return new Fault(pending, undefined, value);
  }

  /** The saved state under `key` (parsed JSON, or the object a store handed back), `null` if
   * none, or a Fault. */
  async get(key, race) {
    const pending = "store-get";
    let stored;
    if (this.memory !== null) stored = this.memory.get(key);
    else {
      const got = await this.#call(race, "get", pending, [PREFIX + key]);
      if (got instanceof Fault) return got;
      stored = got[1];
    }
    if (stored === undefined || stored === null) return null;
    if (typeof stored !== "string") return stored;
    try {
      return JSON.parse(stored);
    } catch (error) {
      return new Fault(pending, `the stored state of key "${key}" is not JSON (${describe(error)})`);
    }
  }

  /** Stores `text` (JSON) under `key`; a Fault, or null. */
  async set(key, text, race) {
    if (this.memory !== null) {
      this.memory.set(key, text);
      return null;
    }
    const done = await this.#call(race, "set", "store-set", [PREFIX + key, text]);
    return done instanceof Fault ? done : null;
  }

  async delete(key, race) {
    if (this.memory !== null) {
      this.memory.delete(key);
      return null;
    }
    const done = await this.#call(race, "delete", "store-delete", [PREFIX + key]);
    return done instanceof Fault ? done : null;
  }
}

export { CUT };
