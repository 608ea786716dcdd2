// The options of `new RetryClient(options)` and of a call, read once each. What is a JavaScript
// value (a function, a budget, a store, a signal) is checked here; what the core decides on (the
// policy, seed, draws, readBody, redact names; a call's operation, key, scope, weight, deadline…)
// is handed to it in the wire form, with any field this does not know, so the core names it.

import { describe } from "../platform/describe.js";
import { storeMethods } from "../platform/store-methods.js";
import { budgetOf } from "./budget.js";
import { splitPolicy } from "./predicate.js";
import { callback, field, optionKeys, signal, unreadable, wrongType } from "./invalid.js";
import { readTelemetry } from "./telemetry-options.js";

/** A RegExp of the caller's, copied without the g/y flags that would make `test` stateful. */
function copyPattern(context, at, pattern) {
  try {
    return new RegExp(pattern.source, String(pattern.flags).replace(/[gy]/g, ""));
  } catch (error) {
    throw unreadable(context, at, error);
  }
}

/** `redact`'s items read once: the list the core checks, and the RegExps the glue will test. */
function redactList(context, value) {
  let array;
  try {
    array = Array.isArray(value);
  } catch (error) {
    throw unreadable(context, "redact", error);
  }
  if (!array) return { items: value, patterns: [] };
  const length = Math.min(field(context, value, "length") >>> 0, 10_000);
  const items = [];
  const patterns = [];
  for (let i = 0; i < length; i++) {
    const item = field(context, value, i, `redact[${i}]`);
    let isPattern = false;
    try {
      isPattern = item instanceof RegExp;
    } catch {}
    if (isPattern) patterns.push(copyPattern(context, `redact[${i}]`, item));
    items.push(item);
  }
  return { items, patterns };
}

/** `new RetryClient(options)`, as far as the glue reads it; `core` is what goes to the core. */
export function readClientOptions(options) {
  const context = "RetryClient";
  const read = { core: {}, budget: undefined, fetch: undefined, onAttempt: undefined, onEscalation: undefined, store: undefined, patterns: [], readBody: false, shouldRetry: undefined };
  for (const key of optionKeys(context, options)) {
    const value = field(context, options, key);
    switch (key) {
      case "budget":
        if (value !== undefined) read.budget = { inner: budgetOf(context, value), object: value };
        break;
      case "families":
        // Read by the client once it exists: the core checks each family's options then.
        read.families = value;
        break;
      case "fetch":
        read.fetch = callback(context, key, value);
        break;
      case "onAttempt":
      case "onEscalation":
      case "onRetry":
      case "onEnd":
        read[key] = callback(context, key, value);
        break;
      case "telemetry":
        read.telemetry = readTelemetry(context, value, ["tracerProvider", "meterProvider"]);
        break;
      case "store":
        if (value !== undefined && value !== null) read.store = storeMethods(value, (f, problem) => new TypeError(`${context}: ${f} ${problem}`));
        break;
      case "policy": {
        const split = splitPolicy(context, value);
        read.core.policy = split.policy;
        read.shouldRetry = split.shouldRetry;
        break;
      }
      case "redact": {
        if (value === undefined || value === null) break;
        const { items, patterns } = redactList(context, value);
        read.core.redact = items;
        read.patterns = patterns;
        break;
      }
      default:
        if (key === "readBody") read.readBody = value === true;
        read.core[key] = value;
    }
  }
  if (read.fetch === undefined) {
    let global;
    try {
      global = globalThis.fetch;
    } catch (error) {
      throw unreadable(context, "fetch", error);
    }
    if (typeof global !== "function") throw wrongType(context, "fetch", "a function (there is no global fetch)", global);
  }
  return read;
}

/** The key under which asFetch marks its calls of client.fetch, with its default that yields to
 * every layer's own (a symbol: no caller sets it by chance, and optionKeys never lists it). */
export const FROM_AS_FETCH = Symbol.for("retryline.asFetch");

/** A call's third argument: `{ core, signal, onAttempt, onRetry, onEnd, key, readBody }`; `core` undefined if there
 * is nothing for the core to read. */
export function readCallOptions(options) {
  const context = "fetch options";
  const read = { core: undefined, signal: undefined, onAttempt: undefined, key: undefined, readBody: undefined, shouldRetry: undefined };
  for (const key of optionKeys(context, options)) {
    const value = field(context, options, key);
    if (value === undefined || value === null) continue;
    if (key === "signal") read.signal = signal(context, key, value);
    else if (key === "onAttempt" || key === "onRetry" || key === "onEnd") read[key] = callback(context, key, value);
    else if (key === "policy") {
      const split = splitPolicy(context, value);
      read.shouldRetry = split.shouldRetry;
      (read.core ??= {}).policy = split.policy;
    } else {
      if (key === "key") read.key = value;
      if (key === "readBody") read.readBody = value;
      (read.core ??= {})[key] = value;
    }
  }
  return read;
}

/** `client.reconcile`'s options: `{ core, signal, statuses }`, `core` what the core checks
 * (`policy`), `statuses` a Map of a provider's order statuses to the evidence names `names`. */
export function readReconcileOptions(options, names) {
  const context = "reconcile options";
  const read = { core: {}, signal: undefined, statuses: undefined };
  for (const key of optionKeys(context, options)) {
    const value = field(context, options, key);
    if (key === "signal") {
      if (value !== undefined) read.signal = signal(context, key, value);
    } else if (key === "statuses") {
      if (value !== undefined && value !== null) read.statuses = readStatuses(context, value, names);
    } else read.core[key] = value;
  }
  return read;
}

/** `statuses`: `{ PROVIDER_STATUS: evidence }`, every value one of `names`. */
function readStatuses(context, value, names) {
  if (typeof value !== "object" || Array.isArray(value)) throw wrongType(context, "statuses", "an object of the provider's statuses, e.g. { FILLED: \"filled\" }", value);
  const statuses = new Map();
  for (const status of optionKeys(context, value)) {
    const evidence = field(context, value, status, `statuses.${status}`);
    if (!names.includes(evidence)) throw wrongType(context, `statuses.${status}`, `one of ${names.map((n) => `"${n}"`).join(", ")}`, evidence);
    statuses.set(status, evidence);
  }
  return statuses;
}

/** Members of RequestInit that a Request takes up; any other (workerd's `cf`, undici's
 * `dispatcher`) is handed to each attempt's fetch as given. */
const REQUEST_MEMBERS = new Set(["method", "headers", "body", "referrer", "referrerPolicy", "mode", "credentials", "cache", "redirect", "integrity", "keepalive", "signal", "window", "priority"]);
/** RequestInit's own `priority` (Fetch Priority): not retryline's. */
const FETCH_PRIORITIES = new Set(["high", "low", "auto"]);

/** Other retry libraries' options (ky, axios-retry, fetch-retry) that fetch would ignore: each
 * refused with where retryline's equivalent goes, since a silent one sends requests unasked. */
const FOREIGN = {
  retry: "retries are policy.maxAttempts (1: no retry), in the third argument: client.fetch(input, init, { policy: { maxAttempts: 1 } })",
  retries: "retries are policy.maxAttempts (1: no retry), in the third argument: client.fetch(input, init, { policy: { maxAttempts: 1 } })",
  retryDelay: "the delays are policy.baseDelayMs and policy.maxDelayMs, in the third argument: client.fetch(input, init, { policy: { baseDelayMs } })",
  timeout: "the time limits are policy.attemptTimeoutMs (each attempt) and deadlineMs (the whole call), in the third argument: client.fetch(input, init, { deadlineMs })",
  hooks: "to watch every attempt, pass onAttempt: client.fetch(input, init, { onAttempt })",
  throwHttpErrors: "client.fetch resolves only with a success; a failure rejects with a RetryError whose response is the last one (client.asFetch() resolves with any response, as fetch does)",
};

/** What of `init` goes to every attempt's fetch besides the Request (null: nothing), refusing
 * retryline's own options, which belong in the third argument, and other libraries'. */
export function readInit(init, callOptions, asFetch = false) {
  if (init === undefined || init === null || typeof init !== "object") return null;
  let keys;
  try {
    keys = Object.keys(init);
  } catch {
    return null; // the Request reads it, and throws as fetch would
  }
  let extra = null;
  for (const key of keys) {
    let value;
    try {
      value = init[key];
    } catch {
      continue;
    }
    if (value === undefined) continue;
    if (callOptions.has(key) && !(key === "priority" && FETCH_PRIORITIES.has(value))) {
      const where = asFetch ? `asFetch's options, client.asFetch({ ${key} })` : `the third argument, client.fetch(input, init, { ${key} })`;
      throw new TypeError(`fetch: ${key} is a retryline option, not a RequestInit member: it belongs in ${where}`);
    }
    if (Object.hasOwn(FOREIGN, key)) throw new TypeError(`fetch: init.${key} is not a fetch or retryline option: ${FOREIGN[key]}`);
    if (!REQUEST_MEMBERS.has(key)) (extra ??= {})[key] = value;
  }
  return extra;
}

export { describe };
