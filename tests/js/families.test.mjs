// Endpoint families: declared once on the client, applied to fetch, asFetch and streams, checked
// like every option, and shown as the worksheet. Wire counts at the mock exchange.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { Budget, RetryClient } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(() => mock?.close());
beforeEach(() => mock.reset());

/** A Binance-like configuration of three families, on the mock's origin. */
function families(origin) {
  return [
    { name: "market", match: { method: "GET", url: `${origin}/api/v3/ticker/*` }, weight: ({ url }) => (new URL(url).searchParams.has("symbol") ? 2 : 4),
      policy: { maxAttempts: 4, deadlineMs: 8000, attemptTimeoutMs: 1500, baseDelayMs: 5 }, docs: { url: "https://developers.binance.com/docs/binance-spot-api-docs/rest-api/market-data-endpoints", checked: new Date().toISOString().slice(0, 10) } },
    { name: "account", match: { method: "GET", url: `${origin}/api/v3/account` }, scope: "binance-account", priority: "read", policy: { maxAttempts: 2, baseDelayMs: 5 } },
    { name: "orders", match: { method: ["POST", "DELETE"], url: `${origin}/api/v3/order` }, operation: "order", key: ({ init }) => new URLSearchParams(init?.body ?? "").get("newClientOrderId"),
      policy: { attemptTimeoutMs: 300, deadlineMs: 3000 }, docs: { url: "https://developers.binance.com/docs/binance-spot-api-docs/rest-api/trading-endpoints", checked: "2020-01-01", final: [400, 401, 403] } },
  ];
}

test("the worksheet of three families, field by field", () => {
  const client = new RetryClient({ budget: new Budget({ capacity: 1200, refillPerSecond: 20 }), families: families("https://api.binance.com") });
  const { rows } = client.worksheet();
  assert.deepEqual(rows.map((r) => r.family), ["market", "account", "orders", null]);
  const [market, account, orders, rest] = rows;
  assert.deepEqual([market.operation, market.scope, market.weight, market.priority], ["read", "https://api.binance.com", "by request", "read"]);
  assert.deepEqual(market.windowsMs, [5, 10, 20]);
  assert.equal(market.longestScheduleMs, 4 * 1500 + 35);
  assert.equal(market.attemptsThatFit, 4);
  assert.deepEqual(market.retried, [408, 429, 500, 502, 503, 504]);
  assert.deepEqual(market.banned, [418]);
  assert.equal(market.timeouts, "retryable");
  assert.deepEqual(market.bucket, { capacity: 1200, refillMilliPerSecond: 20000 });
  assert.deepEqual(market.flags, []);
  assert.deepEqual([account.scope, account.policy.maxAttempts, account.windowsMs], ["binance-account", 2, [5]]);
  assert.equal(orders.operation, "order");
  assert.deepEqual(orders.retried, [429]);
  assert.deepEqual(orders.unknownOutcome, [408, 500, 502, 503, 504]);
  assert.equal(orders.timeouts, "unknown-outcome");
  assert.match(orders.exhausted, /never resubmitted/);
  assert.ok(orders.flags.some((f) => /checked 2020-01-01, more than 90 days ago/.test(f)), orders.flags.join("; "));
  assert.equal(rest.match, "anything no family matches");
  const md = client.worksheet().toMarkdown();
  assert.match(md, /^\| family \| match \|/);
  assert.match(md, /\| orders \| `POST\/DELETE https:\/\/api\.binance\.com\/api\/v3\/order` \| order \|/);
});

test("the worksheet flags a mutation declared read, a schedule that cannot fit, and a shadowed family", () => {
  const client = new RetryClient({
    families: [
      { name: "all-v3", match: { url: "https://x.test/api/v3/*" } },
      { name: "orders", match: { method: "POST", url: "https://x.test/api/v3/order" }, operation: "read", policy: { maxAttempts: 6, attemptTimeoutMs: 1000, deadlineMs: 3000 } },
    ],
  });
  const orders = client.worksheet().rows[1];
  assert.ok(orders.flags.some((f) => /a mutation \(POST\) declared "read"/.test(f)));
  assert.ok(orders.flags.some((f) => /only 2 of 6 attempts fit the 3000 ms deadline/.test(f)));
  assert.ok(orders.flags.some((f) => /shadowed by the earlier family "all-v3"/.test(f)));
  assert.ok(orders.flags.some((f) => /no provider documentation/.test(f)));
});

test("families apply to fetch: the order family's key and kind, the market family's weight; a call's own options win", async () => {
  const records = [];
  const client = new RetryClient({ families: families(mock.url), onAttempt: (r) => records.push(r), budget: new Budget({ capacity: 10, refillPerSecond: 1 }) });
  mock.script("/api/v3/order", [{ action: "execute-then-500" }]);
  const body = "symbol=BTCUSDT&side=BUY&type=MARKET&quantity=1&newClientOrderId=fam-1";
  const lost = await rejection(client.fetch(`${mock.url}/api/v3/order`, { method: "POST", body }));
  assert.equal(lost.reason, "unknown-outcome");
  assert.equal(lost.key, "fam-1", "the family's key function named the order");
  assert.equal(mock.requests({ path: "/api/v3/order" }).length, 1, "never resubmitted");
  assert.ok(lost.records.every((r) => r.family === "orders"));

  mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 200 }]);
  await client.fetch(`${mock.url}/api/v3/ticker/price?symbol=BTCUSDT`);
  const ticker = records.filter((r) => r.url?.includes("ticker"));
  assert.deepEqual(ticker.map((r) => [r.family, r.status]), [["market", 503], ["market", 200]]);
  const [scope] = client.worksheet().rows; // (the worksheet does not spend tokens)
  assert.equal(scope.family, "market");

  // A call's own options win field by field: here its policy's attempts.
  mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 503 }, { status: 200 }]);
  const own = await rejection(client.fetch(`${mock.url}/api/v3/ticker/price?symbol=ETHUSDT`, undefined, { policy: { maxAttempts: 2 } }));
  assert.equal(own.reason, "attempts");
  assert.equal(own.records.filter((r) => r.decision === "sent").length, 2);

  // No family matches: the client's defaults, and the records say so.
  mock.script("/api/v3/time", [{ status: 200 }]);
  records.length = 0;
  await client.fetch(`${mock.url}/api/v3/time`);
  assert.equal(records[0].family, null);
});

test("families apply to asFetch (a ccxt user declares orders once) and to a stream's scope", async () => {
  const client = new RetryClient({ families: families(mock.url) });
  const f = client.asFetch();
  mock.script("/api/v3/order", [{ action: "execute-then-500" }]);
  await assert.rejects(f(`${mock.url}/api/v3/order`, { method: "POST", body: "newClientOrderId=fam-2" }), (e) => e instanceof TypeError && /unknown-outcome after 1 request/.test(e.cause?.message));
  assert.equal(mock.requests({ path: "/api/v3/order" }).length, 1);

  const { WebSocket } = await import("ws");
  const streaming = new RetryClient({ families: [{ name: "ws", match: { url: `${mock.url.replace("http", "ws")}/ws/*` }, scope: "binance-ws", weight: 3 }] });
  const records = [];
  const stream = streaming.stream(`${mock.url.replace("http", "ws")}/ws/ticker`, { WebSocket, minUptimeMs: 0, onAttempt: (r) => records.push(r) });
  for (let i = 0; i < 300 && records.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  stream.close();
  assert.equal(records[0].scope, "binance-ws");
});

test("bad families get a clear error naming the family and the field", async () => {
  const bad = (families) => () => new RetryClient({ families });
  assert.throws(bad({}), /RetryClient: families must be an array/);
  assert.throws(bad([{ name: "a", match: { url: "https://x.test/*" }, wieght: 2 }]), /families\[0\]: wieght is not a field of a family/);
  assert.throws(bad([{ name: "a", match: { url: 42 } }]), /families\[0\]: match\.url must be a URL pattern string, a URLPattern or a RegExp/);
  assert.throws(bad([{ name: "a", match: { url: "https://x.test/*" }, policy: { maxAttempts: 0 } }]), /families\[0\] \(a\): policy\.maxAttempts/);
  assert.throws(bad([{ name: "a", match: { url: "https://x.test/*" }, operation: "stream" }]), /families\[0\] \(a\): operation/);
  assert.throws(bad([{ name: "a", match: { url: "https://x.test/*" } }, { name: "a", match: { url: "https://y.test/*" } }]), /name "a" is taken/);
  assert.throws(bad([{ match: { url: "https://x.test/*" } }]), /families\[0\]: name is required/);
  assert.throws(bad([{ name: "a", match: { url: "https://x.test/*" }, docs: { checked: "last week" } }]), /docs\.checked must be an ISO date/);
  const client = new RetryClient({ families: [{ name: "weights", match: { url: `${mock.url}/*` }, weight: () => { throw new Error("no weight table"); } }] });
  await assert.rejects(client.fetch(`${mock.url}/api/v3/time`), /family "weights": weight threw Error: no weight table/);
  assert.equal(mock.requests().length, 0, "nothing sent");
});
