// ccxt through retryline: ccxt keeps its own error classes, retryline decides what is sent again.
//   node examples/ccxt/ticker.mjs [exchange URL]     (default: Binance's own API)
import ccxt from "ccxt";
import { RetryClient } from "retryline";

const client = new RetryClient({ policy: { maxAttempts: 4, baseDelayMs: 200 } });
const exchange = new ccxt.binance({
  fetchImplementation: client.asFetch({
    // An order's client id is its key: a lost response is reconciled, never resubmitted.
    describe: async (request) => {
      if (request.method !== "POST") return undefined;
      const id = new URLSearchParams(await request.text()).get("newClientOrderId");
      return id ? { key: id } : undefined;
    },
  }),
  options: { fetchMarkets: { types: ["spot"] }, fetchCurrencies: false },
});

const base = process.argv[2];
if (base) for (const name of Object.keys(exchange.urls.api)) exchange.urls.api[name] = exchange.urls.api[name].replace(/^https:\/\/[^/]+/, base);

try {
  const ticker = await exchange.fetchTicker("BTC/USDT");
  console.log(JSON.stringify({ symbol: ticker.symbol, last: ticker.last }));
} catch (error) {
  // ccxt's own classes: DDoSProtection for a 418/429, RequestTimeout, NetworkError (its message says why).
  console.log(JSON.stringify({ error: error.constructor.name, message: error.message }));
  process.exitCode = 1;
}
