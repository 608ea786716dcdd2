// Real clients from npm through client.asFetch(): ccxt's binance class (its fetchImplementation)
// and ky (its fetch option), against the loopback mock exchange. ccxt maps HTTP errors itself, so
// what it must see is what the platform fetch would have given it. Wire counts are the server's.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import ccxt from "ccxt";
import ky from "ky";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { exchangeInfo, ticker } from "./support/binance.mjs";
import { Budget, RetryClient } from "../../js/node.js";

const ORDER = "/api/v3/order";
const TICKER = "/api/v3/ticker/24hr";
const INFO = "/api/v3/exchangeInfo";
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

/** Binance's newClientOrderId from a form-encoded order body: the operation's key. */
const describe = async (request) => {
  if (request.method !== "POST") return undefined;
  const id = new URLSearchParams(await request.text()).get("newClientOrderId");
  return id ? { key: id } : undefined;
};

/** A ccxt binance whose every request goes through `fetchImplementation` to the mock exchange. */
async function binance(fetchImplementation, { timeout = 3000 } = {}) {
  const exchange = new ccxt.binance({
    apiKey: "key", secret: "secret", fetchImplementation, timeout, enableRateLimit: false,
    options: { fetchMarkets: { types: ["spot"] }, fetchCurrencies: false },
  });
  for (const name of Object.keys(exchange.urls.api)) exchange.urls.api[name] = exchange.urls.api[name].replace(/^https:\/\/[^/]+/, mock.url);
  mock.script(INFO, [{ status: 200, body: exchangeInfo }]);
  await exchange.loadMarkets();
  return exchange;
}

const fast = () => new RetryClient({ policy: { baseDelayMs: 10, maxDelayMs: 20 }, budget: new Budget() });
const buy = (exchange, id) => exchange.createOrder("BTC/USDT", "limit", "buy", 0.001, 50000, { newClientOrderId: id });

test("ccxt: a ticker through asFetch, its 503 retried; an order placed once", async () => {
  const exchange = await binance(fast().asFetch({ describe }));
  mock.script(TICKER, [{ status: 503 }, { status: 200, body: ticker }]);
  const t = await exchange.fetchTicker("BTC/USDT");
  assert.equal(t.last, 50000);
  assert.equal(mock.requests({ path: TICKER }).length, 2);
  const order = await buy(exchange, "ccxt-ok-1");
  assert.equal(order.clientOrderId, "ccxt-ok-1");
  assert.equal(order.status, "closed");
  assert.equal(mock.requests({ path: ORDER, method: "POST" }).length, 1);
});

test("ccxt: a 418 and a second 429 reach ccxt as responses, which it maps to DDoSProtection; during the ban nothing is sent", async () => {
  const exchange = await binance(fast().asFetch({ describe }));
  mock.script(TICKER, [{ status: 418, retryAfter: 60, body: { code: -1003, msg: "Way too many requests; IP banned." } }]);
  const banned = await rejection(exchange.fetchTicker("BTC/USDT"));
  assert.ok(banned instanceof ccxt.DDoSProtection, String(banned));
  // The ban covers the scope: no request reaches the wire, and ccxt gets a NetworkError saying why.
  const refused = await rejection(exchange.fetchTicker("BTC/USDT"));
  assert.ok(refused instanceof ccxt.NetworkError, String(refused));
  assert.match(refused.message, /banned/);
  assert.equal(mock.requests({ path: TICKER }).length, 1);

  const other = await binance(fast().asFetch({ describe }));
  mock.script(TICKER, [{ status: 429, retryAfter: 1 }, { status: 429, retryAfter: 1 }]);
  const started = performance.now();
  const limited = await rejection(other.fetchTicker("BTC/USDT"));
  assert.ok(limited instanceof ccxt.DDoSProtection, String(limited));
  const requests = mock.requests({ path: TICKER });
  assert.equal(requests.length, 3); // the 418 above, then the two 429s
  const [first, second] = requests.slice(1);
  // The first Retry-After was honoured, measured at the server (a 1 s header: ≥ 1000 ms apart).
  assert.ok(second.receivedAtMs - first.respondedAtMs >= 1000, `${second.receivedAtMs - first.respondedAtMs} ms`);
  assert.ok(performance.now() - started < 2900);
});

test("ccxt: a Binance JSON error reaches ccxt's own mapping, by its message or by its code", async () => {
  const exchange = await binance(fast().asFetch({ describe }));
  mock.script(ORDER, [{ status: 400, body: { code: -2010, msg: "Account has insufficient balance for requested action." } }], { method: "POST" });
  const error = await rejection(buy(exchange, "ccxt-funds-1"));
  assert.ok(error instanceof ccxt.InsufficientFunds, String(error));
  // A message ccxt does not know: mapped by the code alone (-2010 NEW_ORDER_REJECTED).
  mock.script(ORDER, [{ status: 400, body: { code: -2010, msg: "Order rejected by the mock." } }], { method: "POST" });
  const byCode = await rejection(buy(exchange, "ccxt-code-1"));
  assert.ok(byCode instanceof ccxt.InvalidOrder, String(byCode));
  assert.equal(mock.requests({ path: ORDER, method: "POST" }).length, 2);
});

test("ccxt: a lost order is executed once and reported as unknown; the same id is then refused without a request", async () => {
  const exchange = await binance(fast().asFetch({ describe }));
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const lost = await rejection(buy(exchange, "ccxt-lost-1"));
  assert.ok(lost instanceof ccxt.NetworkError, String(lost));
  assert.match(lost.message, /may have executed; reconcile it, do not resubmit/);
  assert.equal(mock.orders.get("ccxt-lost-1")?.status, "FILLED");
  const again = await rejection(buy(exchange, "ccxt-lost-1"));
  assert.ok(again instanceof ccxt.NetworkError, String(again));
  assert.match(again.message, /outcome is unknown; reconcile it/);
  assert.equal(mock.requests({ path: ORDER, method: "POST" }).length, 1);
});

test("ccxt: its timeout on a slow read is a RequestTimeout; on an order in flight, an unknown outcome (NetworkError)", async () => {
  const exchange = await binance(fast().asFetch({ describe }), { timeout: 400 });
  mock.script(TICKER, [{ action: "hang" }]);
  const slow = await rejection(exchange.fetchTicker("BTC/USDT"));
  assert.ok(slow instanceof ccxt.RequestTimeout, String(slow));
  mock.script(ORDER, [{ action: "execute-then-hang" }], { method: "POST" });
  const inFlight = await rejection(buy(exchange, "ccxt-slow-1"));
  assert.ok(inFlight instanceof ccxt.NetworkError && !(inFlight instanceof ccxt.RequestTimeout), String(inFlight));
  assert.match(inFlight.message, /outcome is unknown|may have executed/);
  assert.equal(mock.orders.get("ccxt-slow-1")?.status, "FILLED");
  assert.equal(mock.requests({ path: ORDER, method: "POST" }).length, 1);
});

test("ky: asFetch as its fetch option; ky's own retry off, ky's HTTPError from the 400 retryline hands on", async () => {
  const api = ky.create({ fetch: fast().asFetch(), retry: 0 });
  mock.script(TICKER, [{ status: 503 }, { status: 200, body: ticker }]);
  assert.deepEqual(await api.get(`${mock.url}${TICKER}`).json(), ticker);
  assert.equal(mock.requests({ path: TICKER }).length, 2);
  mock.script(TICKER, [{ status: 400, body: { code: -1121, msg: "Invalid symbol." } }]);
  const error = await rejection(api.get(`${mock.url}${TICKER}`).json());
  assert.equal(error.name, "HTTPError");
  assert.equal(error.response.status, 400);
  assert.equal(mock.requests({ path: TICKER }).length, 3);
});
