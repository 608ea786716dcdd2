// A dashboard's price widgets: one budget for the exchange shared by every widget, so that
// fifty widgets cannot spend its limit between them; a widget that cannot refresh says why.
//   npm install retryline vite && npx vite      (VITE_EXCHANGE=http://… to aim it elsewhere)
import { Budget, RetryClient, RetryError } from "retryline";

const exchange = import.meta.env.VITE_EXCHANGE ?? "https://api.binance.com";
const budget = new Budget({ capacity: 1200, refillPerSecond: 20, usedWeightHeader: "X-MBX-USED-WEIGHT-1M" });
const client = new RetryClient({ budget, policy: { maxAttempts: 3, baseDelayMs: 200, attemptTimeoutMs: 2000, deadlineMs: 5000 } });

async function refresh(row) {
  const symbol = row.dataset.symbol;
  const records = [];
  const show = (price, how) => {
    row.querySelector(".price").textContent = price;
    row.querySelector(".how").textContent = how;
  };
  try {
    const res = await client.fetch(`${exchange}/api/v3/ticker/price?symbol=${symbol}`, undefined, {
      priority: "refresh",
      onAttempt: (record) => records.push(record),
    });
    const sent = records.filter((r) => r.decision === "sent").length;
    show((await res.json()).price, `${sent} attempt${sent === 1 ? "" : "s"}`);
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    // Cross-origin, Retry-After is readable only if the exchange sends
    // Access-Control-Expose-Headers: Retry-After.
    show("stale", error.reason);
  }
}

for (const row of document.querySelectorAll("tr[data-symbol]")) refresh(row);
