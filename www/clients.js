// The page's clients, every one built from the dashboard's configuration (config.js): its
// families on the mock exchange and a budget of its limits, so what the panels run is what the
// worksheet panel shows. `extra` adds what a panel's client needs of its own (draws, onAttempt, a
// shared budget); a call's own options stay for what is not configuration (onAttempt, signal).
import { Budget, RetryClient } from "retryline";
import { BUDGET, clientOptions, families } from "./config.js";

/** A client of the page on the mock exchange `ex` (exchange.js). */
export function client(ex, { budget, ...extra } = {}) {
  return new RetryClient({ ...clientOptions({ exchange: ex.url, Budget, budget }), ...extra });
}

/** A budget of the configuration's limits, for clients that share one. */
export const budget = () => new Budget(BUDGET);

/** The policy of the family named `name` (what a panel draws or tells, e.g. its deadline). */
export function policyOf(name) {
  const family = families("http://x").find((f) => f.name === name);
  if (!family) throw new Error(`www/config.js has no family ${JSON.stringify(name)}`);
  return family.policy;
}
