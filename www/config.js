// The dashboard's retry configuration, in one place: the endpoint families of the routes its panels
// call on the mock exchange, and the budget's per-scope limits. Every client the page makes is
// built from `clientOptions` (www/clients.js), and the server builds the worksheet the page shows
// from the same call (scripts/www.mjs: the browser build has no worksheet), so the two cannot
// drift. Plain data and functions only: imported by the page (through Vite) and by Node alike.

/** The budget's limits: a token bucket for the widgets' scope alone (20 tokens, 10 a second), and a
 * breaker for the trades scope (open after 3 failures in a row, for 1 s). */
export const BUDGET = {
  scopes: {
    widgets: { capacity: 20, refillPerSecond: 10 },
    trades: { breaker: { consecutiveFailures: 3, openMs: 1000, maxOpenMs: 1000 } },
  },
};

/** The worked example's policy: the reference article's numbers. */
const WORKED_EXAMPLE = { deadlineMs: 12_000, attemptTimeoutMs: 1500, maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 4000, jitter: "full" };

/** The families whose flags are on purpose, and why: the worksheet panel says so beside them. */
export const ON_PURPOSE = {
  "worked example": "the reference article's own policy: its fifth attempt cannot fit the deadline, which is what the timeline shows",
};

/** The provider's documentation, for every family: the mock exchange is the provider here, and its
 * source is its documentation (read on the date given). */
const DOCS = { url: "https://github.com/retryline/retryline/blob/main/tests/js/mock-exchange.mjs", checked: "2026-12-05" };

/** The families on the mock exchange at `exchange` (http://127.0.0.1:PORT). Each panel's run has
 * routes of its own under a prefix (`/timeline/<run>/…`, `/budget/<run>/…`, exchange.js), which
 * the patterns match with `*`. */
export function families(exchange) {
  const ws = exchange.replace(/^http/, "ws");
  return withDocs([
    { name: "worked example", match: { method: "GET", url: `${exchange}/timeline/*/api/v3/ticker/price` }, policy: WORKED_EXAMPLE },
    { name: "429 storm", match: { method: "GET", url: `${exchange}/timeline/*/api/v3/depth` },
      policy: { deadlineMs: 5000, attemptTimeoutMs: 1000, baseDelayMs: 100, retryAfterSpreadMs: 200 } },
    // A ban ends a read at once: one attempt, which fits.
    { name: "418 ban", match: { method: "GET", url: `${exchange}/timeline/*/api/v3/klines` }, policy: { maxAttempts: 1, deadlineMs: 2000, attemptTimeoutMs: 1000 } },
    { name: "account (background tab)", match: { method: "GET", url: `${exchange}/timeline/*/api/v3/account` },
      policy: { maxAttempts: 2, deadlineMs: 4000, attemptTimeoutMs: 1000, jitter: "none", baseDelayMs: 500 } },
    { name: "trades (breaker)", match: { method: "GET", url: `${exchange}/timeline/*/api/v3/trades` }, scope: "trades",
      policy: { maxAttempts: 1, deadlineMs: 2000, attemptTimeoutMs: 1000 } },
    { name: "hedged read", match: { method: "GET", url: `${exchange}/timeline/*/api/v3/avgPrice` },
      policy: { maxHedges: 1, hedgeAfterMs: 150, deadlineMs: 8000, attemptTimeoutMs: 2000 } },
    // The lost-order scenario's submissions: the body is JSON, its newClientOrderId the order's identity.
    { name: "orders", match: { method: "POST", url: `${exchange}/api/v3/order` }, operation: "order",
      key: ({ init }) => JSON.parse(init?.body ?? "{}").newClientOrderId, policy: { maxAttempts: 2, deadlineMs: 5000, attemptTimeoutMs: 2000 } },
    { name: "widgets", match: { method: "GET", url: `${exchange}/budget/*/price` }, scope: "widgets", priority: "refresh",
      policy: { maxAttempts: 2, deadlineMs: 2000, attemptTimeoutMs: 750 } },
    // The stream panel's connection attempts, and the one REST read an episode makes beside them.
    { name: "ticker stream", match: { method: "GET", url: `${ws}/ws/ticker` },
      policy: { baseDelayMs: 200, maxDelayMs: 1000, attemptTimeoutMs: 2000, maxAttempts: 30, deadlineMs: 90_000 } },
    { name: "stream's REST read", match: { method: "GET", url: `${exchange}/stream/*` }, policy: { maxAttempts: 1 } },
  ]);
}

/** Every family with the provider's documentation. */
const withDocs = (list) => list.map((family) => ({ docs: DOCS, ...family }));

/** A client's options on `exchange`: the families, and `budget` (else a new one of BUDGET's limits,
 * made with `Budget`: the page's class or Node's). */
export function clientOptions({ exchange, Budget, budget = new Budget(BUDGET) }) {
  // Three attempts of 10 s, the library's default, cannot all fit its 30 s: what no family matches gets 5 s each.
  return { families: families(exchange), budget, policy: { attemptTimeoutMs: 5000 } };
}
