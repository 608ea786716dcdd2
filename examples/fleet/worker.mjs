// One process of a fleet: reads the ticker as fast as the fleet's one budget lets it, for a while.
// Every process that names the same Redis and share spends one bucket (10 at once, 5 a second here),
// and a 418 answered to any of them stops them all until it expires.
//   node examples/fleet/worker.mjs <redis URL> [exchange URL] [seconds]
import { Budget, RetryClient, RetryError } from "retryline";

const [redis = "redis://127.0.0.1:6379", base = "https://api.binance.com", seconds = "3"] = process.argv.slice(2);
const budget = new Budget({ capacity: 10, refillPerSecond: 5, share: "binance", redis });
const client = new RetryClient({ budget, policy: { maxAttempts: 2, attemptTimeoutMs: 1000, deadlineMs: 2000 } });

const until = Date.now() + Number(seconds) * 1000;
const refused = {};
let sent = 0;
while (Date.now() < until) {
  try {
    await (await client.fetch(`${base}/api/v3/ticker/price?symbol=BTCUSDT`)).json();
    sent++;
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    refused[error.reason] = (refused[error.reason] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, 50));
  }
}
console.log(JSON.stringify({ pid: process.pid, sent, refused, sharing: budget.sharing }));
budget.free(); // closes its Redis connection, so the process ends
