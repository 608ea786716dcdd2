// GET /price?symbol=BTCUSDT → { symbol, price, attempts }: the exchange's price, retried within a
// 5 s deadline, with how many attempts it took. A failure answers 503 with the stop reason.
import { Budget, RetryClient, RetryError } from "retryline";

// Per isolate: one budget for the exchange, so a burst of requests cannot spend its limit.
const budget = new Budget({ capacity: 50, refillPerSecond: 20 });
const client = new RetryClient({ budget, policy: { maxAttempts: 3, baseDelayMs: 100, attemptTimeoutMs: 2000, deadlineMs: 5000 } });

export default {
  async fetch(request, env) {
    const symbol = new URL(request.url).searchParams.get("symbol") ?? "BTCUSDT";
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
