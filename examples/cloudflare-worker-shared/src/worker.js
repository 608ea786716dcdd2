// GET /price?symbol=BTCUSDT → { symbol, price, attempts }, as examples/cloudflare-worker, but the
// exchange's limit is kept for every isolate of the worker at once: the budget's tokens are leased
// from a BudgetCoordinator, and a ban one isolate is answered reaches the rest within 50 ms.
// GET /budget → how this isolate's budget is kept, and what it knows.
import { Budget, RetryClient, RetryError } from "retryline";
export { BudgetCoordinator } from "retryline/durable-object";

let client, budget;

export default {
  async fetch(request, env) {
    // Made at the first request: the coordinator's binding comes with `env`.
    budget ??= new Budget({ capacity: 50, refillPerSecond: 20, coordinator: env.RETRY_BUDGET });
    client ??= new RetryClient({ budget, policy: { maxAttempts: 3, baseDelayMs: 100, attemptTimeoutMs: 2000, deadlineMs: 5000 } });
    const url = new URL(request.url);
    if (url.pathname === "/budget") return Response.json({ sharing: budget.sharing, scopes: budget.snapshot() });
    const symbol = url.searchParams.get("symbol") ?? "BTCUSDT";
    const records = [];
    try {
      const res = await client.fetch(`${env.UPSTREAM}/api/v3/ticker/price?symbol=${encodeURIComponent(symbol)}`, undefined, {
        onAttempt: (record) => records.push(record),
      });
      const { price } = await res.json();
      return Response.json({ symbol, price, attempts: records.filter((r) => r.decision === "sent").length });
    } catch (error) {
      if (!(error instanceof RetryError)) throw error;
      return Response.json({ symbol, reason: error.reason }, { status: 503, headers: { "retry-after": "5" } });
    }
  },
};
