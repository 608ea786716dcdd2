// Node: a retried read and an order that is never sent twice.
//   node examples/node/ticker.mjs [exchange URL]     (default: Binance's public API)
import { RetryClient, RetryError } from "retryline";

const base = process.argv[2] ?? "https://api.binance.com";
const client = new RetryClient({
  policy: { maxAttempts: 4, attemptTimeoutMs: 2000, deadlineMs: 8000 },
  onAttempt: (record) => console.error(`attempt ${record.attempt}: ${record.decision} ${record.status ?? record.outcome ?? ""} ${record.reason ?? ""}`),
});

try {
  const res = await client.fetch(`${base}/api/v3/ticker/price?symbol=BTCUSDT`);
  console.log(JSON.stringify(await res.json()));
} catch (error) {
  if (!(error instanceof RetryError)) throw error;
  console.log(JSON.stringify({ reason: error.reason, message: error.message }));
  process.exitCode = 1;
}
