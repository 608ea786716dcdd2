// `policy.shouldRetry`: the caller's veto over a retry the core has admitted. It is a JavaScript
// function, so the glue takes it out of the policy before the core reads the rest.

import { field, unreadable, wrongType } from "./invalid.js";

/** `policy` without `shouldRetry` (a plain copy, or the value as given when it is no object), and
 * the predicate; `context` names where the policy was given. */
export function splitPolicy(context, policy) {
  if (policy === null || typeof policy !== "object") return { policy, shouldRetry: undefined };
  let keys;
  try {
    // An array is the core's to refuse, by name; a revoked Proxy or a throwing ownKeys trap is named here.
    if (Array.isArray(policy)) return { policy, shouldRetry: undefined };
    keys = Object.keys(policy);
  } catch (error) {
    throw unreadable(context, "policy", error);
  }
  if (!keys.includes("shouldRetry")) return { policy, shouldRetry: undefined };
  let shouldRetry;
  const rest = {};
  for (const key of keys) {
    const value = field(context, policy, key, `policy.${key}`);
    if (key !== "shouldRetry") rest[key] = value;
    else if (value !== undefined && value !== null) {
      if (typeof value !== "function") throw wrongType(context, "policy.shouldRetry", "a function", value);
      shouldRetry = value;
    }
  }
  return { policy: rest, shouldRetry };
}
