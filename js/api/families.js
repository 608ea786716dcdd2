// `families`: endpoint families declared once on the client — which requests they match, and the
// call options they give (operation, scope, weight, priority, policy, key). The first match wins;
// a call's own options override it field by field, policies merged. What the core decides on is
// still checked by the core (a dry run at construction, named by the family).

import { describe } from "../platform/describe.js";
import { field, optionKeys, wrongType } from "./invalid.js";
import { splitPolicy } from "./predicate.js";

const FIELDS = new Set(["name", "match", "operation", "scope", "weight", "priority", "policy", "key", "docs", "providerWaitHeaders", "staleIfErrorMs", "coalesce"]);

/** A URL pattern string (URLPattern syntax: `*` any run, `:name` one path segment) as a RegExp
 * over the URL; the query and fragment count only where the pattern names them. */
function patternRegExp(pattern) {
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/:[A-Za-z_]\w*/g, "[^/?#]+");
  return new RegExp(`^${source}${/[?#]/.test(pattern) ? "" : "(?:[?#].*)?"}$`);
}

/** `match.url`: a pattern string, a URLPattern, or a RegExp; a `test(url)` function. */
function readUrlMatch(where, value) {
  if (typeof value === "string") {
    const re = patternRegExp(value);
    return { test: (url) => re.test(url), text: value };
  }
  let isRegExp = false;
  try {
    isRegExp = value instanceof RegExp;
  } catch {}
  if (isRegExp) {
    const re = new RegExp(value.source, value.flags.replace(/[gy]/g, ""));
    return { test: (url) => re.test(url), text: String(value) };
  }
  let test;
  try {
    test = typeof URLPattern === "function" && value instanceof URLPattern ? value.test.bind(value) : undefined;
  } catch {}
  if (test === undefined) throw wrongType(where, "match.url", "a URL pattern string, a URLPattern or a RegExp", value);
  return { test: (url) => test(url), text: "a URLPattern" };
}

/** `match`: `{ method, url }` or a function of `{ method, url }`. */
function readMatch(where, value) {
  if (typeof value === "function") return { test: (request) => value(request) === true, text: "a function" };
  if (value === null || typeof value !== "object") throw wrongType(where, "match", "{ method, url } or a function", value);
  let methods;
  let url;
  for (const key of optionKeys(where, value)) {
    const item = field(where, value, key, `match.${key}`);
    if (key === "method") {
      const list = Array.isArray(item) ? item : [item];
      if (!list.every((m) => typeof m === "string" && m !== "")) throw wrongType(where, "match.method", "a method or a list of methods", item);
      methods = list.map((m) => m.toUpperCase());
    } else if (key === "url") url = readUrlMatch(where, item);
    else throw new TypeError(`${where}: match.${key} is not an option (method, url)`);
  }
  if (url === undefined && methods === undefined) throw new TypeError(`${where}: match needs a method or a url`);
  const text = `${methods ? methods.join("/") : "*"} ${url ? url.text : "*"}`;
  return { test: (request) => (methods === undefined || methods.includes(request.method)) && (url === undefined || url.test(request.url)), text, methods, url: url?.text };
}

/** `docs: { url, checked, final }`: the provider's page, the ISO date (YYYY-MM-DD) it was read,
 * and the statuses it documents as final (the worksheet flags a policy that retries them). */
function readDocs(where, value) {
  if (value === undefined || value === null) return undefined;
  const docs = {};
  for (const key of optionKeys(where, value)) {
    const item = field(where, value, key, `docs.${key}`);
    if (key === "url" && typeof item === "string") docs.url = item;
    else if (key === "checked" && typeof item === "string" && /^\d{4}-\d{2}-\d{2}$/.test(item) && !Number.isNaN(Date.parse(item))) docs.checked = item;
    else if (key === "final" && Array.isArray(item) && item.every((s) => Number.isInteger(s) && s >= 100 && s <= 599)) docs.final = [...item];
    else if (key === "url" || key === "checked" || key === "final") throw wrongType(where, `docs.${key}`, { url: "a string", checked: "an ISO date (YYYY-MM-DD)", final: "a list of HTTP statuses" }[key], item);
    else throw new TypeError(`${where}: docs.${key} is not an option (url, checked, final)`);
  }
  return docs;
}

/** The `families` option, read and checked; `dryRun(where, coreOptions)` lets the core check
 * what it decides on. */
/** `providerWaitHeaders`: which of the headers the core reads as provider waits this family's
 * responses may set (e.g. only Retry-After, where the provider says to trust it alone). */
function readWaitHeaders(where, value, known) {
  if (!Array.isArray(value) || value.length === 0 || !value.every((h) => typeof h === "string")) throw wrongType(where, "providerWaitHeaders", "a non-empty list of header names", value);
  const names = value.map((h) => h.toLowerCase());
  for (const name of names) {
    if (name !== "retry-after" && !known.includes(name)) throw new TypeError(`${where}: providerWaitHeaders: ${JSON.stringify(name)} is not a header retryline reads as a provider wait (retry-after, ${known.join(", ")})`);
  }
  return { retryAfter: names.includes("retry-after"), reset: known.map((name, i) => [i, name]).filter(([, name]) => names.includes(name)), names };
}

export function readFamilies(context, value, dryRun, known = []) {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw wrongType(context, "families", "an array", value);
  const names = new Set();
  return value.map((family, i) => {
    const at = `${context}: families[${i}]`;
    if (family === null || typeof family !== "object") throw wrongType(context, `families[${i}]`, "an object", family);
    const read = { name: undefined, match: undefined, core: {}, weight: undefined, key: undefined, docs: undefined, shouldRetry: undefined };
    for (const key of optionKeys(at, family)) {
      const item = field(at, family, key);
      if (!FIELDS.has(key)) throw new TypeError(`${at}: ${key} is not a field of a family (${[...FIELDS].join(", ")})`);
      if (item === undefined) continue;
      if (key === "name") {
        if (typeof item !== "string" || item === "") throw wrongType(at, "name", "a non-empty string", item);
        read.name = item;
      } else if (key === "match") read.match = readMatch(at, item);
      else if (key === "docs") read.docs = readDocs(at, item);
      else if (key === "key") {
        if (typeof item !== "function") throw wrongType(at, "key", "a function of the request", item);
        read.key = item;
      } else if (key === "weight" && typeof item === "function") read.weight = item;
      else if (key === "providerWaitHeaders") read.waits = readWaitHeaders(at, item, known);
      else if (key === "policy") {
        const split = splitPolicy(at, item);
        read.core.policy = split.policy;
        read.shouldRetry = split.shouldRetry;
      } else read.core[key] = item;
    }
    if (read.name === undefined) throw new TypeError(`${at}: name is required`);
    if (names.has(read.name)) throw new TypeError(`${at}: name ${JSON.stringify(read.name)} is taken by an earlier family`);
    names.add(read.name);
    if (read.match === undefined) throw new TypeError(`${at} (${read.name}): match is required`);
    dryRun(`${at} (${read.name})`, read.core);
    return read;
  });
}

/** The first family matching `request` ({ method, url }), or undefined. */
export function familyOf(families, request) {
  for (const family of families) {
    let matched = false;
    try {
      matched = family.match.test(request);
    } catch (error) {
      throw new TypeError(`fetch: family ${JSON.stringify(family.name)}: match threw ${describe(error)}`);
    }
    if (matched) return family;
  }
  return undefined;
}

/** The call options `family` gives `request`, under `given` (the call's own, which win field by
 * field; policies merged). Weight and key functions run here; a throw names the family. */
export function withFamily(family, request, given) {
  const options = { ...family.core };
  if (family.weight !== undefined) {
    let weight;
    try {
      weight = family.weight(request);
    } catch (error) {
      throw new TypeError(`fetch: family ${JSON.stringify(family.name)}: weight threw ${describe(error)}`);
    }
    options.weight = weight;
  }
  if (family.key !== undefined && given?.key === undefined) {
    let key;
    try {
      key = family.key(request);
    } catch (error) {
      throw new TypeError(`fetch: family ${JSON.stringify(family.name)}: key threw ${describe(error)}`);
    }
    if (key !== undefined && key !== null) options.key = key;
  }
  if (given === undefined) return options;
  const merged = { ...options, ...given };
  if (options.policy && given.policy) merged.policy = { ...options.policy, ...given.policy };
  return merged;
}
