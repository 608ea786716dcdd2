// A price that every open tab of this page polls through one budget: `share` names it, and every
// Budget of the origin (tabs, frames, dedicated workers) made with that name is the same budget.
//   npm install retryline vite && npx vite      then open the page in two tabs
// (VITE_EXCHANGE=http://… aims it elsewhere; ?capacity=&refill= set the limits, for trying it out.)
import { Budget, RetryClient, RetryError } from "retryline";

const exchange = import.meta.env.VITE_EXCHANGE ?? "https://api.binance.com";
const query = new URLSearchParams(location.search);
const budget = new Budget({
  capacity: Number(query.get("capacity") ?? 1200),
  refillPerSecond: Number(query.get("refill") ?? 20),
  share: "binance",
});
const client = new RetryClient({ budget, policy: { maxAttempts: 1, attemptTimeoutMs: 2000, deadlineMs: 3000 } });
const show = (id, text) => (document.getElementById(id).textContent = text);
let sent = 0, refused = 0;

// Stops after `?ms=` (a test's run); a dashboard would poll for as long as it is open.
async function poll(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    try {
      const res = await client.fetch(`${exchange}/api/v3/ticker/price?symbol=BTCUSDT`);
      show("price", (await res.json()).price);
      show("sent", ++sent);
    } catch (error) {
      if (!(error instanceof RetryError)) throw error;
      show("refused", ++refused);
      show("why", error.reason);
      await new Promise((r) => setTimeout(r, 100));
    }
    show("budget", `${budget.sharing}: ${JSON.stringify(budget.snapshot(), null, 1)}`);
  }
  document.body.dataset.done = "true";
}

poll(Number(query.get("ms") ?? Infinity));
