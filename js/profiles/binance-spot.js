// A starting point for Binance Spot (REST and market streams): public market data, private account
// reads, order placement and cancellation, the user-data-stream key. Use it as the options of a
// RetryClient, or copy its families into your own:
//   import binance, { budgetOptions, streamOptions } from "retryline/profiles/binance-spot";
//   const client = new RetryClient({ ...binance, budget: new Budget(budgetOptions) });
// The numbers come from the reference article (429 and 418 with Retry-After; continued requests
// after a 429 can earn an IP ban; the execution-unknown timeout and 5xx on orders) and from
// Binance's published limits as this project knew them (request weight per minute per IP,
// reported in X-MBX-USED-WEIGHT-1M; 300 connection attempts per 5 minutes per IP on streams,
// 5 incoming messages a second per connection, a cut at 24 h). They were NOT re-read against
// the live pages when this file was written, so no `checked` date is claimed: read each page,
// correct what changed, and set `docs.checked` — the worksheet flags every family until you do.

const API = "https://api.binance.com";
const DOCS = "https://developers.binance.com/docs/binance-spot-api-docs";

/** Statuses Binance documents as final for a request as sent (a malformed or refused request). */
const FINAL = [400, 401, 403, 404];

/** Request weight of GET /api/v3/ticker/price and /ticker/24hr: one symbol is light, all are heavy. */
const tickerWeight = ({ url }) => (new URL(url).searchParams.has("symbol") ? 2 : url.includes("/24hr") ? 80 : 4);

/** The client order id of an order request (its body, or its query). */
const clientOrderId = ({ url, init }) => {
  const body = typeof init?.body === "string" ? new URLSearchParams(init.body) : init?.body instanceof URLSearchParams ? init.body : null;
  return body?.get("newClientOrderId") ?? body?.get("origClientOrderId") ?? new URL(url).searchParams.get("newClientOrderId") ?? undefined;
};

export default {
  families: [
    {
      name: "market data",
      match: { method: "GET", url: `${API}/api/v3/ticker/*` },
      operation: "read",
      priority: "refresh",
      weight: tickerWeight,
      policy: { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 2000, attemptTimeoutMs: 2000, deadlineMs: 8000 },
      docs: { url: `${DOCS}/rest-api/market-data-endpoints`, final: FINAL },
    },
    {
      name: "order book",
      match: { method: "GET", url: `${API}/api/v3/depth` },
      operation: "read",
      weight: ({ url }) => (Number(new URL(url).searchParams.get("limit") ?? 100) > 100 ? 25 : 5),
      policy: { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 2000, attemptTimeoutMs: 2000, deadlineMs: 8000 },
      docs: { url: `${DOCS}/rest-api/market-data-endpoints`, final: FINAL },
    },
    {
      name: "account reads",
      match: { method: "GET", url: `${API}/api/v3/:endpoint` },
      operation: "read",
      weight: 20,
      policy: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 4000, attemptTimeoutMs: 3000, deadlineMs: 12_000, retryOn: [429, 500, 502, 503, 504] },
      docs: { url: `${DOCS}/rest-api/account-endpoints`, final: FINAL },
    },
    {
      name: "orders",
      match: { method: ["POST", "DELETE"], url: `${API}/api/v3/order` },
      operation: "order",
      key: clientOrderId,
      weight: 1,
      // A lost answer is an unknown outcome (reconciled, never resubmitted); only a 429 is retried.
      policy: { maxAttempts: 2, baseDelayMs: 500, maxDelayMs: 2000, attemptTimeoutMs: 5000, deadlineMs: 12_000 },
      docs: { url: `${DOCS}/rest-api/trading-endpoints`, final: FINAL },
    },
    {
      name: "user data stream key",
      match: { method: ["POST", "PUT", "DELETE"], url: `${API}/api/v3/userDataStream` },
      // Creating or keeping a listen key alive twice is harmless: Binance returns the same key.
      operation: "idempotent",
      weight: 2,
      policy: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 4000, attemptTimeoutMs: 3000, deadlineMs: 15_000 },
      docs: { url: `${DOCS}/user-data-stream`, final: FINAL },
    },
  ],
};

/** Binance's order statuses (GET /api/v3/order's `status`) as evidence, for
 * `client.reconcile(key, query, { statuses: orderStatuses })`: a query may return the status as it
 * comes. PENDING_CANCEL is still live; an expired order was ended by the matching engine (its fills,
 * if any, are in `executedQty`). */
export const orderStatuses = {
  NEW: "open",
  PARTIALLY_FILLED: "partially-filled",
  FILLED: "filled",
  CANCELED: "canceled",
  PENDING_CANCEL: "open",
  REJECTED: "rejected",
  EXPIRED: "canceled",
  EXPIRED_IN_MATCH: "canceled",
};

/** The Budget to share these under: one IP's request weight a minute, as X-MBX-USED-WEIGHT-1M reports it. */
export const budgetOptions = { capacity: 6000, refillPerSecond: 100, usedWeightHeader: "X-MBX-USED-WEIGHT-1M" };

/** For client.stream(…): the REST calls' scope (one IP, one ban), 5 messages a second, rotation before the 24 h cut. */
export const streamOptions = { scope: API, sendPerSecond: 5, rotateAfterMs: 23 * 3600_000 };
