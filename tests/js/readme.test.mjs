// Every ```js block of README.md and of docs/*.md, read at test time (not copied) and run as a
// module against the loopback mock exchange, with wire counts from the server's own log (issues 26, 36).
//
// How a block runs (tests/js/support/readme-blocks.mjs): its text is written to
// target/test-output/readme/ as printed — a whole program: nothing is given to it that it does not
// define or import — with only its package specifiers (`"retryline"`, `"retryline/fetch"`,
// `"retryline/durable-object"`, `"retryline/profiles/…"`) pointed at the repo's files, `"ccxt"` at
// ccxt whose binance talks to the mock, and the hosts https://api.binance.com,
// wss://stream.binance.com:9443 and https://api.exchange.example replaced by the mock's 127.0.0.1
// URL. A Node block's top-level names are exported after it, for the assertions. A block with
// `export default { fetch }` is a worker: the test calls its fetch with a Request (in Node), or, for
// the Durable Object block, bundles it as Wrangler would and serves it with workerd, its binding
// taken from docs' ```jsonc block.
//
// Each expectation below is keyed to its block by a distinctive line of the block. A js block no
// expectation matches fails the first test, so a new block cannot slip in untested; an expectation
// whose line is gone from the README fails too.
//
// Out of scope: ```sh (commands; `npm test` is what runs them), ```toml and ```rust (the typed
// Rust API: the same calls are run by examples/rust-dashboard's tests in headless Chrome, as part
// of `npm test`, though not extracted from this README), and the unlabelled diagram. Any other
// language fails the first test until someone decides how it runs.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, rmSync, rmdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ccxtModule from "ccxt";
import { startMockExchange } from "./mock-exchange.mjs";
import { startRedis } from "./support/redis-server.mjs";
import { rejection } from "./support/rejection.mjs";
import { exchangeInfo, ticker } from "./support/binance.mjs";
import { readmeBlocks, setContext, writeBlock } from "./support/readme-blocks.mjs";
import { startWorkerd } from "./package/workerd-harness.mjs";
import { bundleLikeWrangler, workerdConfig } from "./support/wrangler-bundle.mjs";
import { RetryClient, RetryError } from "../../js/node.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
// The README and every page of docs/: each block runs, wherever it lives.
const documents = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
const blocks = documents.flatMap((file) => readmeBlocks(readFileSync(join(root, file), "utf8"), file));
const jsBlocks = blocks.filter((b) => b.lang === "js");
const NOT_RUN = new Set(["sh", "toml", "rust", ""]); // see the top of this file; "jsonc" is read by the Durable Object test
const scratch = join(root, "target", "test-output", "readme", `run-${process.pid}`);
const node = { retryline: join(root, "js", "node.js"), fetch: join(root, "js", "fetch.js"), durableObject: join(root, "js", "durable-object.js") };
const PRICE = "/api/v3/ticker/price";
const ORDER = "/api/v3/order";
const price = { symbol: "BTCUSDT", price: "50000.00" };

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => {
  setContext(null);
  await mock?.close();
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(dirname(scratch)); // target/test-output/readme, if no other run is using it
  } catch {}
});
beforeEach(() => mock.reset());

let runs = 0;
/**
 * Runs a block in Node as a fresh module instance (each run its own evaluation), exactly as printed
 * but for its package specifiers and provider hosts (pointed at the repo's entries and the mock):
 * nothing is given to it that it does not define or import itself. Resolves with its namespace and
 * what it console.logged while it was imported, or rejects with what it threw.
 */
async function runBlock(block) {
  const { file } = writeBlock(scratch, block, { entries: node, mockUrl: mock.url });
  // What a reader sets in their environment (the ccxt order's keys); ccxt's binance is pointed at the mock.
  Object.assign(process.env, { BINANCE_API_KEY: "readme-key", BINANCE_SECRET: "readme-secret" });
  setContext({ mockUrl: mock.url });
  const logged = [];
  const log = console.log;
  console.log = (...args) => logged.push(args);
  try {
    const module = await import(`${pathToFileURL(file).href}?run=${++runs}`);
    return { module, logged };
  } finally {
    console.log = log;
  }
}

/** What ccxt's binance asks for as it loads its markets (spot, linear, inverse; with keys, the currencies). */
function scriptBinanceMarkets({ keys = false } = {}) {
  mock.script("/api/v3/exchangeInfo", [{ status: 200, body: exchangeInfo }]);
  mock.script("/fapi/v1/exchangeInfo", [{ status: 200, body: { symbols: [] } }]);
  mock.script("/dapi/v1/exchangeInfo", [{ status: 200, body: { symbols: [] } }]);
  if (keys) {
    mock.script("/sapi/v1/capital/config/getall", [{ status: 200, body: [] }]);
    mock.script("/sapi/v1/margin/allPairs", [{ status: 200, body: [] }, { status: 200, body: [] }]);
    mock.script("/sapi/v1/margin/isolated/allPairs", [{ status: 200, body: [] }]);
  }
}

const statuses = (path, method) => mock.requests({ path, method }).map((r) => r.status ?? r.outcome);

// ---------------------------------------------------------------------------------------------
// The expectations, each keyed to its block by a line of it.

const expectations = [
  {
    marker: "  onRetry: (info) => console.log(`retry #${info.attempt} in ${info.plannedWaitMs} ms after ${info.reason}`),",
    title: "onRetry and onEnd: a 503 then a 200 at the server, one retry heard with its plan, one end",
    async run(block) {
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }]);
      const { logged } = await runBlock(block);
      assert.deepEqual(logged, [["retry #2 in 100 ms after retryable"], ["ended success after 2 requests"]]);
      assert.deepEqual(statuses(PRICE), [503, 200]);
    },
  },
  {
    marker: "const traced = new RetryClient({ telemetry: { tracerProvider }, policy: { baseDelayMs: 100, deadlineMs: 6_000 } });",
    title: "traces: a span per request the server answered, then the call's span with its reason",
    async run(block) {
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }]);
      const { logged } = await runBlock(block);
      assert.deepEqual(logged, [["GET", 503], ["GET", 200], ["GET read", "success"]]);
      assert.deepEqual(statuses(PRICE), [503, 200]);
    },
  },
  {
    marker: "const widgets = new RetryClient({ budget: new Budget(), coalesce: true, policy: { deadlineMs: 6_000 } });",
    title: "coalescing: fifty reads of one ticker are one request at the server, and each caller reads the price",
    async run(block) {
      mock.script(PRICE, [{ delayMs: 50, status: 200, body: price }]);
      const { logged } = await runBlock(block);
      assert.deepEqual(logged, [[50, price.price]]);
      assert.deepEqual(statuses(PRICE), [200]);
    },
  },
  {
    marker: "const quotes = new RetryClient({ staleIfErrorMs: 30_000, policy: { maxAttempts: 2, deadlineMs: 6_000 } });",
    title: "the last good answer: the second poll fails twice at the server and serves the first's, marked stale",
    async run(block) {
      mock.script(PRICE, [{ status: 200, body: price }, { status: 503 }, { status: 503 }]);
      const { logged } = await runBlock(block);
      assert.deepEqual(logged.map(([p, s]) => [p, s.replace(/\d+ s old$/, "N s old")]), [[price.price, "live"], [price.price, "stale (attempts), N s old"]]);
      assert.deepEqual(statuses(PRICE), [200, 503, 503]);
    },
  },
  {
    marker: 'const res = await client.fetch("https://api.binance.com/api/v3/ticker/price?symbol=BTCUSDT")',
    title: "the first example: 503, 503, then 200, resolved within its 8 s deadline",
    async run(block) {
      mock.script(PRICE, [{ status: 503 }, { status: 503 }, { status: 200, body: price }]);
      const { module, logged } = await runBlock(block);
      assert.equal(module.res.status, 200);
      assert.deepEqual(logged, [[price]]);
      assert.deepEqual(statuses(PRICE), [503, 503, 200]);
      assert.deepEqual(mock.requests({ path: PRICE }).map((r) => r.query.symbol), ["BTCUSDT", "BTCUSDT", "BTCUSDT"]);
    },
  },
  {
    marker: 'share: "binance", redis: process.env.REDIS_URL',
    title: "a fleet's budget: kept in the Redis that REDIS_URL names, a call goes through it",
    async run(block) {
      const redis = await startRedis();
      const was = process.env.REDIS_URL;
      process.env.REDIS_URL = redis.url;
      try {
        mock.script(PRICE, [{ status: 200, body: price }]);
        const { module } = await runBlock(block);
        assert.equal((await module.client.fetch(`${mock.url}${PRICE}?symbol=BTCUSDT`)).status, 200);
        assert.equal(module.budget.sharing, "redis");
        assert.match(redis.command("KEYS", "retryline:budget:binance:*"), /^retryline:budget:binance:http:\/\/127\.0\.0\.1:\d+$/, "the scope's hash");
        module.budget.free();
      } finally {
        if (was === undefined) delete process.env.REDIS_URL;
        else process.env.REDIS_URL = was;
        await redis.close();
      }
    },
  },
  {
    marker: "new ccxt.binance({ fetchImplementation: client.asFetch() })",
    title: "ccxt through asFetch: a 503 retried, the ticker printed; a 418 is still ccxt's DDoSProtection",
    async run(block) {
      scriptBinanceMarkets();
      mock.script("/api/v3/ticker/24hr", [{ status: 503 }, { status: 200, body: ticker }]);
      const { logged } = await runBlock(block);
      assert.equal(logged.length, 1);
      assert.equal(logged[0][0].symbol, "BTC/USDT");
      assert.equal(logged[0][0].last, 50000);
      assert.deepEqual(statuses("/api/v3/ticker/24hr"), [503, 200]);

      mock.reset();
      scriptBinanceMarkets();
      mock.script("/api/v3/ticker/24hr", [{ status: 418, retryAfter: 60, body: { code: -1003, msg: "Way too many requests; IP banned." } }]);
      const banned = await rejection(runBlock(block));
      assert.ok(banned instanceof ccxtModule.DDoSProtection, String(banned));
      assert.deepEqual(statuses("/api/v3/ticker/24hr"), [418]);
    },
  },
  {
    marker: "const trades = binance.stream(",
    title: "streams: the Binance stream subscribes on every open, resyncs from REST, renders trades, and reconnects after a drop",
    async run(block) {
      mock.streams.setTickMs(20);
      mock.script(PRICE, [{ status: 200, body: price }, { status: 200, body: price }]);
      // What the stream prints comes after the block's import: caught here, not by runBlock alone.
      const later = [];
      const log = console.log;
      console.log = (...args) => later.push(args);
      try {
        const { module } = await runBlock(block);
        const until = async (check, what) => {
          for (let i = 0; !check(); i++) {
            assert.ok(i < 800, `timed out waiting for ${what}`);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        };
        try {
          await until(() => later.some((l) => l[0] === "BTC") && module.trades.state === "open", "a rendered trade");
          const rendered = later.find((l) => l[0] === "BTC");
          assert.equal(typeof rendered[1], "string", "render(price, lastMessageAt)");
          assert.match(rendered[2], /^\d{4}-\d{2}-\d{2}T/);
          await until(() => statuses(PRICE).length === 1, "the resync's snapshot");
          mock.streams.dropAll(1012);
          await until(() => mock.streams.connections({ path: "/ws" }).length === 2 && statuses(PRICE).length === 2, "the reconnect and its resync");
          await until(() => mock.streams.messages({ path: "/ws" }).length === 2, "the second SUBSCRIBE");
          const subscribed = mock.streams.messages({ path: "/ws" }).map((m) => JSON.parse(m.data).method);
          assert.deepEqual(subscribed, ["SUBSCRIBE", "SUBSCRIBE"], "onOpen subscribes on every open");
        } finally {
          module.trades.close();
        }
        assert.equal(module.trades.state, "stopped");
        assert.equal(later.filter((l) => l[0] === "stale:").at(-1)?.[1], "aborted");
      } finally {
        console.log = log;
      }
    },
  },
  {
    marker: "const trading = new RetryClient({",
    title: "families: the worksheet printed has a row per family; a ticker read runs under its family, with its weight",
    async run(block) {
      const { module, logged } = await runBlock(block);
      const text = logged[0][0];
      assert.match(text, /^\| family \| match \|/);
      assert.match(text, /\| market data \| `GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/ticker\/\*` \| read \|/);
      assert.match(text, /\| orders \| `POST\/DELETE http:\/\/127\.0\.0\.1:\d+\/api\/v3\/order` \| order \|/);
      const rows = module.trading.worksheet().rows;
      assert.deepEqual(rows.map((r) => [r.family, r.operation, r.policy.maxAttempts]), [["market data", "read", 3], ["orders", "order", 2], [null, "read", 3]]);
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }]);
      const records = [];
      await module.trading.fetch(`${mock.url}${PRICE}?symbol=BTCUSDT`, undefined, { onAttempt: (r) => records.push(r) });
      assert.deepEqual(records.map((r) => [r.family, r.status]), [["market data", 503], ["market data", 200]]);
      assert.deepEqual(statuses(PRICE), [503, 200]);
    },
  },
  {
    marker: "const prices = new RetryClient(",
    title: "the dashboard: a 503 retried under the shared budget, each price printed; a ban marks both stale: banned, the second unsent",
    async run(block) {
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }, { status: 200, body: price }]);
      const ok = await runBlock(block);
      assert.deepEqual(ok.logged, [["BTCUSDT", price.price], ["ETHUSDT", price.price]]);
      assert.deepEqual(statuses(PRICE), [503, 200, 200]);
      assert.deepEqual(mock.requests({ path: PRICE }).map((r) => r.query.symbol), ["BTCUSDT", "BTCUSDT", "ETHUSDT"]);
      // The used weight the exchange reported lowered the budget's bucket below what the calls spent alone.
      const [scope] = ok.module.budget.snapshot();
      assert.ok(scope.tokens <= 1200 - 2, JSON.stringify(scope));

      mock.reset();
      mock.script(PRICE, [{ status: 418, retryAfter: 60 }]);
      const banned = await runBlock(block);
      assert.deepEqual(banned.logged, [["BTCUSDT", "stale:", "banned"], ["ETHUSDT", "stale:", "banned"]]);
      assert.deepEqual(statuses(PRICE), [418], "the ban held the scope: nothing more was sent");
    },
  },
  {
    marker: "const upstream = new URL(new URL(request.url).pathname",
    title: "the edge worker: its fetch proxies the path with retries; a 400 rejects with a RetryError",
    async run(block) {
      const { module } = await runBlock(block);
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }]);
      // (The block forwards the path alone: the request's query string does not reach the exchange.)
      const res = await module.default.fetch(new Request(`http://worker.test${PRICE}?symbol=BTCUSDT`, { headers: { accept: "application/json" } }));
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), price);
      assert.deepEqual(statuses(PRICE), [503, 200]);
      assert.equal(mock.requests({ path: PRICE })[0].headers.accept, "application/json", "the request's headers are passed on");
      mock.script("/api/v3/missing", [{ status: 400, body: { code: -1121, msg: "Invalid symbol." } }]);
      const error = await rejection(module.default.fetch(new Request("http://worker.test/api/v3/missing")));
      assert.ok(error instanceof RetryError, String(error));
      assert.equal(error.reason, "non-retryable");
      assert.deepEqual(statuses("/api/v3/missing"), [400]);
    },
  },
  {
    marker: "const result = await orders.reconcile(id,",
    title: "an order whose answer is lost: sent once, unknown-outcome, reconciled from Binance's own status; answered, placed",
    async run(block) {
      mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
      const lost = await runBlock(block);
      assert.deepEqual(statuses(ORDER, "POST"), ["dropped"]);
      assert.equal(mock.orders.get("my-order-1")?.status, "FILLED");
      assert.equal(mock.orders.get("my-order-1")?.duplicates, 0);
      assert.deepEqual(statuses(ORDER, "GET"), [200], "one status query");
      assert.deepEqual(lost.logged, [["reconciled:", "filled"]]);

      mock.reset();
      const placed = await runBlock(block);
      assert.deepEqual(statuses(ORDER, "POST"), [200]);
      assert.deepEqual(placed.logged, [["placed:", "FILLED"]]);
    },
  },
  {
    marker: "onAttempt: (r) => console.log(`attempt ${r.attempt}:",
    title: "log every attempt: a record printed per attempt; a refusal's reason and message printed",
    async run(block) {
      mock.script("/api/v3/time", [{ status: 503 }, { status: 200, body: { serverTime: 1 } }]);
      const ok = await runBlock(block);
      assert.equal(ok.logged.length, 2);
      assert.match(ok.logged[0][0], /^attempt 1: sent, 503, retryable, waited 0 ms$/);
      assert.match(ok.logged[1][0], /^attempt 2: sent, 200, success, waited \d+ ms$/);
      assert.deepEqual(statuses("/api/v3/time"), [503, 200]);
      mock.reset();
      mock.script("/api/v3/time", [{ status: 400, body: { code: -1100 } }]);
      const stopped = await runBlock(block);
      assert.equal(stopped.logged.length, 2);
      assert.match(stopped.logged[1][0], /^stopped: non-retryable: GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/time: non-retryable after 1 request/);
    },
  },
  {
    marker: "const once = await client.fetch(url, { method: \"POST\" }, { policy: { maxAttempts: 1 } });",
    title: "POST: once is sent once even after a 503; the keyed idempotent POST is retried past a 503",
    async run(block) {
      const path = "/post";
      mock.script(path, [{ status: 200, body: { listenKey: "k" } }, { status: 503 }, { status: 200, body: { listenKey: "k" } }], { method: "POST" });
      const { logged } = await runBlock(block);
      assert.deepEqual(logged, [[200, 200]]);
      assert.deepEqual(statuses(path, "POST"), [200, 503, 200]);
      assert.deepEqual(mock.requests({ path, method: "POST" }).map((r) => r.headers["idempotency-key"] ?? null), [null, "payment-42", "payment-42"]);
      mock.reset();
      mock.script(path, [{ status: 503 }], { method: "POST" });
      const once = await rejection(runBlock(block));
      assert.ok(once instanceof RetryError, String(once));
      assert.deepEqual(statuses(path, "POST"), [503], "sent once");
    },
  },
  {
    marker: 'share: "binance" });',
    title: "one budget across tabs: in Node there are no tabs, so it runs on its own ('local') and says so",
    async run(block) {
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }]);
      const { logged, module } = await runBlock(block);
      assert.deepEqual(logged, [[price.price, "— sharing:", "local"]]);
      assert.equal(module.budget.sharing, "local");
      assert.deepEqual(statuses(PRICE), [503, 200]);
    },
  },
  {
    marker: 'const trades = client.stream("wss://stream.binance.com:9443/ws", {',
    title: "the README's stream: subscribes on open, prints trades, one connection attempt recorded, closed by its timer",
    async run(block) {
      mock.streams.setTickMs(20);
      // What the stream prints comes after the block's import: caught here, not by runBlock alone.
      const later = [];
      const log = console.log;
      console.log = (...args) => later.push(args);
      try {
        const { logged: atImport, module } = await runBlock(block);
        const logged = () => [...atImport, ...later];
        const until = Date.now() + 5000;
        const seen = () => logged().some((l) => l[0] === "BTC") && logged().some((l) => /^connection attempt/.test(l[0]));
        while (!seen() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        assert.ok(logged().some((l) => l[0] === "BTC" && typeof l[1] === "string"), JSON.stringify(logged().slice(0, 5)));
        assert.deepEqual(logged().find((l) => /^connection attempt/.test(l[0])), ["connection attempt 1: sent"], JSON.stringify(logged().filter((l) => l[0] !== "BTC")));
        assert.ok(logged().some((l) => l[0] === "state:" && l[1] === "open"));
        assert.equal(mock.streams.connections({ path: "/ws" }).length, 1, "the server saw one connection");
        assert.equal(JSON.parse(mock.streams.messages({ path: "/ws" })[0].data).method, "SUBSCRIBE");
        module.trades.close();
        assert.equal(module.trades.state, "stopped");
      } finally {
        console.log = log;
      }
    },
  },
  {
    marker: 'newClientOrderId: "my-order-1"',
    title: "ccxt orders keyed by their client order id: placed once; a lost one is a NetworkError, not resubmitted",
    async run(block) {
      scriptBinanceMarkets({ keys: true });
      await runBlock(block);
      assert.deepEqual(statuses(ORDER, "POST"), [200]);
      assert.equal(new URLSearchParams(mock.requests({ path: ORDER, method: "POST" })[0].body).get("newClientOrderId"), "my-order-1");
      assert.equal(mock.requests({ path: ORDER, method: "POST" })[0].headers["x-mbx-apikey"], "readme-key");
      assert.equal(mock.orders.get("my-order-1")?.status, "FILLED");

      mock.reset();
      scriptBinanceMarkets({ keys: true });
      mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
      const lost = await rejection(runBlock(block));
      assert.ok(lost instanceof ccxtModule.NetworkError, String(lost));
      assert.match(lost.message, /may have executed; reconcile it, do not resubmit/);
      assert.deepEqual(statuses(ORDER, "POST"), ["dropped"]);
      assert.equal(mock.orders.get("my-order-1")?.duplicates, 0);
    },
  },
  {
    marker: 'export { BudgetCoordinator } from "retryline/durable-object"',
    title: "the worker with a BudgetCoordinator, in workerd with the README's jsonc binding: the price; a 418 bans the scope",
    run: durableObjectWorker,
  },
  {
    marker: 'from "retryline/fetch"; // the fetch path alone',
    title: "the lean entry: calls retried as the default entry's are; a stream, a key or a shared budget is a TypeError naming \"retryline\"",
    async run(block) {
      await runBlock(block);
      const lean = await import(pathToFileURL(node.fetch).href);
      mock.script(PRICE, [{ status: 503 }, { status: 200, body: price }]);
      const client = new lean.RetryClient({ policy: { baseDelayMs: 1, maxAttempts: 3 } });
      assert.equal((await client.fetch(`${mock.url}${PRICE}`)).status, 200);
      assert.deepEqual(statuses(PRICE), [503, 200]);
      assert.throws(() => client.stream(`${mock.url.replace(/^http/, "ws")}/ws`), (e) => e instanceof TypeError && /"retryline"/.test(e.message));
      const keyed = await rejection(client.fetch(`${mock.url}${ORDER}`, { method: "POST" }, { key: "lean-1" }));
      assert.ok(keyed instanceof TypeError && /"retryline"/.test(keyed.message), String(keyed));
      assert.deepEqual(statuses(ORDER), [], "nothing sent");
      // A budget shared across tabs is the default entry's: the lean core has none of its code.
      assert.throws(() => new lean.Budget({ share: "exchange" }), (e) => e instanceof TypeError && /share/.test(e.message) && /import \{ Budget \} from "retryline"/.test(e.message));
      assert.equal(new lean.Budget({}).share, undefined);
    },
  },
  {
    marker: "new RetryClient({ readBody: true })",
    title: "readBody: a buffering client, and a call that opts out",
    async run(block) {
      mock.script(PRICE, [{ status: 200, body: price }, { status: 200, body: price }]);
      const { module } = await runBlock(block);
      assert.deepEqual(statuses(PRICE), [200]);
      // The block's client, buffering, answers a call of its own (the body read inside the attempt).
      const buffered = await module.client.fetch(module.url);
      assert.equal(buffered.status, 200);
      assert.deepEqual(await buffered.json(), price);
      assert.deepEqual(statuses(PRICE), [200, 200]);
    },
  },
];

// ---------------------------------------------------------------------------------------------

test("README.md and docs/: every js block is run by an expectation below, and every expectation finds its block", () => {
  assert.ok(jsBlocks.length > 0, "README.md has no js blocks: is the README where this test reads it?");
  const problems = [];
  for (const block of blocks) {
    if (block.lang !== "js" && block.lang !== "jsonc" && !NOT_RUN.has(block.lang)) problems.push(`${block.file} line ${block.line}: a \`\`\`${block.lang} block no test runs, nor says why not`);
  }
  for (const block of jsBlocks) {
    const matched = expectations.filter((e) => block.code.includes(e.marker));
    if (matched.length === 0) problems.push(`${block.file} line ${block.line}: a js block no test runs`);
    if (matched.length > 1) problems.push(`${block.file} line ${block.line}: a js block that ${matched.length} expectations claim`);
  }
  for (const e of expectations) {
    const found = jsBlocks.filter((b) => b.code.includes(e.marker));
    if (found.length !== 1) problems.push(`${found.length} js blocks of README.md and docs/ have the line ${JSON.stringify(e.marker)} (expected exactly one)`);
  }
  assert.deepEqual(problems, []);
});

for (const e of expectations) {
  const block = jsBlocks.find((b) => b.code.includes(e.marker));
  test(`${block?.file ?? "?"} line ${block?.line ?? "?"}: ${e.title}`, async (t) => {
    assert.ok(block, `no js block of README.md has the line ${JSON.stringify(e.marker)}`);
    await e.run(block, t);
  });
}

// ---------------------------------------------------------------------------------------------
// The Durable Object block, as Wrangler would deploy it: bundled by esbuild with the workerd
// entries (the package's .wasm kept as modules), served by workerd with the README's jsonc
// binding and migration, in-memory Durable Object storage, and an outbound network that reaches
// the loopback mock exchange.

async function durableObjectWorker(block, t) {
  const jsonc = blocks.filter((b) => b.lang === "jsonc");
  assert.equal(jsonc.length, 1, "the README's wrangler.jsonc fragment");
  const wrangler = JSON.parse(`{${jsonc[0].code.replace(/(^|\s)\/\/.*$/gm, "$1")}}`);
  const objects = wrangler.durable_objects.bindings;
  assert.ok(objects.length > 0, `${jsonc[0].file} line ${jsonc[0].line}: no Durable Object binding`);
  for (const { class_name } of objects) {
    assert.ok(wrangler.migrations.some((m) => [...(m.new_sqlite_classes ?? []), ...(m.new_classes ?? [])].includes(class_name)),
      `${jsonc[0].file} line ${jsonc[0].line}: no migration creates ${class_name}`);
    assert.match(block.code, new RegExp(`export \\{[^}]*\\b${class_name}\\b`), `the worker exports ${class_name}`);
  }

  const dir = join(scratch, "durable-object");
  const { file } = writeBlock(join(dir, "src"), block, {
    entries: { retryline: join(root, "js", "workerd.js"), durableObject: node.durableObject },
    mockUrl: mock.url, exportTopLevel: false,
  });
  const wasms = await bundleLikeWrangler(file, join(dir, "dist"));
  const bindings = objects.map(({ name, class_name }) => `(name = ${JSON.stringify(name)}, durableObjectNamespace = ${JSON.stringify(class_name)})`);
  const namespaces = objects.map(({ class_name }) => `(className = ${JSON.stringify(class_name)}, uniqueKey = ${JSON.stringify(`readme-${class_name}`)})`);
  const config = workerdConfig({ wasms, compatibilityDate: "2025-01-01", bindings, namespaces });
  const worker = await startWorkerd({ dir, config });
  try {
    mock.script(PRICE, [{ status: 200, body: price }]);
    assert.deepEqual(await worker.call(PRICE), price);
    assert.deepEqual(statuses(PRICE), [200]);

    // A 503 whose Retry-After (1 s) outlives the coordinator's lease (200 ms): the retry's tokens
    // are leased for its start after the wait (they once were leased at once, and void by then).
    await t.test("a 503 with Retry-After: 1, then 200: retried after the wait", async () => {
      mock.reset();
      mock.script(PRICE, [{ status: 503, retryAfter: 1 }, { status: 200, body: price }]);
      const res = await fetch(`${worker.base}/`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 200, worker.log().split("\n").filter((l) => /RetryError/.test(l)).at(-1));
      assert.deepEqual(statuses(PRICE), [503, 200]);
      const [first, second] = mock.requests({ path: PRICE });
      assert.ok(second.receivedAtMs - first.respondedAtMs >= 1000, "Retry-After honoured at the server");
    });

    await new Promise((resolve) => setTimeout(resolve, 1100)); // the 503's Retry-After held the scope for 1 s

    // A 418 bans the scope: that call throws (workerd answers 500), and the next is refused unsent.
    mock.reset();
    mock.script(PRICE, [{ status: 418, retryAfter: 60 }]);
    const banned = await fetch(`${worker.base}/`);
    assert.equal(banned.status, 500);
    assert.deepEqual(statuses(PRICE), [418]);
    const seen = worker.log().length;
    const refused = await fetch(`${worker.base}/`);
    assert.equal(refused.status, 500);
    assert.deepEqual(statuses(PRICE), [418], "nothing sent during the ban");
    // Its uncaught RetryError, in workerd's log (which may come after the 500 it answered).
    const said = /RetryError: GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/ticker\/price\?symbol=BTCUSDT: banned after 0 requests/;
    for (const until = Date.now() + 3000; !said.test(worker.log().slice(seen)) && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
    assert.match(worker.log().slice(seen), said);
  } finally {
    await worker.stop();
  }
}
