// Errors for options the glue reads itself (JavaScript values: functions, budgets, stores,
// signals), worded as the core words its own (src/input/mod.rs).

import { describe, kind } from "../platform/describe.js";

/** `context: field must be expected, got <kind of value>` */
export const wrongType = (context, field, expected, value) =>
  new TypeError(`${context}: ${field} must be ${expected}, got ${kind(value)}`);

/** `context: field could not be read: <what was thrown>` */
export const unreadable = (context, field, error) => new TypeError(`${context}: ${field} could not be read: ${describe(error)}`);

/** The own enumerable keys of an options object (undefined and null have none); throws the
 * context's TypeError for anything else. */
export function optionKeys(context, options) {
  if (options === undefined || options === null) return [];
  let array;
  try {
    array = Array.isArray(options);
  } catch (error) {
    throw unreadable(context, "options", error);
  }
  if (typeof options !== "object" || array) throw wrongType(context, "options", "an object", options);
  try {
    return Object.keys(options);
  } catch (error) {
    throw unreadable(context, "options", error);
  }
}

/** `options[key]`, its getter's throw named as an error of `name` (default: `key`). */
export function field(context, options, key, name = key) {
  try {
    return options[key];
  } catch (error) {
    throw unreadable(context, name, error);
  }
}

/** A function, or undefined for null/undefined. */
export function callback(context, key, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "function") throw wrongType(context, key, "a function", value);
  return value;
}

/** An AbortSignal that works: a look-alike whose `aborted` throws is refused here, once. */
export function signal(context, key, value) {
  let genuine = false;
  try {
    genuine = value instanceof AbortSignal;
  } catch {}
  if (!genuine) throw wrongType(context, key, "an AbortSignal", value);
  try {
    void value.aborted;
  } catch (error) {
    throw unreadable(context, `${key}.aborted`, error);
  }
  return value;
}
