// Option values in the wire form the core reads (src/abi/wire.rs): the shape of a JSON-like value
// in text, its numbers apart, so the core never parses a number from text, and its strings as they
// are (only `"` and `\` escaped), so it decodes no escapes. Every read is guarded: a getter or
// Proxy trap that throws becomes `!u"what it threw"`, which the core names as the field that could
// not be read. Nothing here throws.

import { describe } from "../platform/describe.js";

/** Deeper than any option object; stops a cycle. */
const MAX_DEPTH = 32;
/** Longer than any option's list; stops a `length` of 2^32 from taking forever. */
const MAX_ITEMS = 100_000;
/** More values than any options hold: objects that point at each other many times (an SDK's
 * provider) would otherwise be written 2^depth times over. */
const MAX_VALUES = 100_000;

/** `{ text, numbers }` of `value`; `regexps` lets RegExps through as such (`redact`). */
export function encode(value, regexps = false) {
  const numbers = [];
  const text = write(value, 0, numbers, regexps, walk());
  return { text, numbers };
}

/** What one encoding has been through: the objects on the way down (a cycle is one of them
 * again) and how many values it has written. */
const walk = () => ({ path: new Set(), values: 0 });

/** An object from fields the glue has read itself: `[key, value]`, or `[key, THREW, error]`
 * for one whose getter threw. */
export const THREW = Symbol("threw");

export function encodeFields(pairs) {
  const numbers = [];
  const seen = walk();
  let text = "{";
  for (const [key, value, error] of pairs) {
    text += quote(key) + (value === THREW ? unreadable(error) : write(value, 1, numbers, false, seen));
  }
  return { text: `${text}}`, numbers };
}

/** A string as the wire carries it: between quotes, `"` and `\` escaped with a `\`. */
const quote = (text) => `"${text.replace(/["\\]/g, "\\$&")}"`;

const unreadable = (error) => `!u${quote(describe(error))}`;

function write(value, depth, numbers, regexps, seen) {
  if (++seen.values > MAX_VALUES) return "!z";
  switch (typeof value) {
    case "undefined":
      return "_";
    case "boolean":
      return value ? "t" : "f";
    case "number":
      numbers.push(value);
      return "n";
    case "string":
      return quote(value);
    case "function":
      return "!f";
    case "symbol":
      return "!s";
    case "bigint":
      return "!b";
  }
  if (value === null) return "_";
  if (depth >= MAX_DEPTH || seen.path.has(value)) return "!d";
  seen.path.add(value);
  try {
    if (regexps && value instanceof RegExp) return "!r";
    if (Array.isArray(value)) {
      const length = value.length;
      if (!(length >= 0 && length <= MAX_ITEMS)) return "!l";
      let out = "[";
      for (let i = 0; i < length; i++) {
        let item;
        try {
          item = value[i];
        } catch (error) {
          out += unreadable(error);
          continue;
        }
        out += write(item, depth + 1, numbers, regexps, seen);
      }
      return `${out}]`;
    }
    let out = "{";
    for (const key of Object.keys(value)) {
      let item;
      try {
        item = value[key];
      } catch (error) {
        out += `${quote(key)}${unreadable(error)}`;
        continue;
      }
      out += quote(key) + write(item, depth + 1, numbers, regexps, seen);
    }
    return `${out}}`;
  } catch (error) {
    return unreadable(error);
  } finally {
    seen.path.delete(value);
  }
}

/** Writes `value` into the core's input (after `strings`) and numbers areas; the lengths. */
export function putWire(core, strings, value, lengths) {
  const { text, numbers } = value;
  core.putNumbers(numbers);
  return core.put([...strings, text], lengths);
}
