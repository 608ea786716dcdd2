// The runnable files of examples/, run as a user runs them, against the loopback mock exchange.
// Each imports "retryline" by name: in the repo that is the package itself (its exports map), in
// workerd the package's files in a node_modules/retryline that links to the repo.
import { bucketBound } from "./support/windows.mjs";
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import { startMockExchange } from "./mock-exchange.mjs";
import { startRedis } from "./support/redis-server.mjs";
import { exchangeInfo, ticker } from "./support/binance.mjs";
import { startWorkerd } from "./package/workerd-harness.mjs";
import { bundleLikeWrangler, workerdConfig } from "./support/wrangler-bundle.mjs";
import { repoRoot } from "./package/pack.mjs";
import { serveStatic } from "../../scripts/static-server.mjs";

const run = promisify(execFile);
const example = (...parts) => join(repoRoot, "examples", ...parts);
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

/** Runs an example with Node; resolves with its parsed last line of output and its exit code. */
async function node(file, ...args) {
  try {
    const { stdout } = await run(process.execPath, [file, ...args], { cwd: repoRoot, timeout: 30_000 });
    return { out: JSON.parse(stdout.trim().split("\n").at(-1)), code: 0 };
  } catch (error) {
    if (typeof error.code !== "number") throw error;
    return { out: JSON.parse(error.stdout.trim().split("\n").at(-1)), code: error.code };
  }
}

test("examples/node/ticker.mjs: a 503 retried, the price printed", async () => {
  mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 200, body: { symbol: "BTCUSDT", price: "50000.00" } }]);
  const { out, code } = await node(example("node", "ticker.mjs"), mock.url);
  assert.equal(code, 0);
  assert.deepEqual(out, { symbol: "BTCUSDT", price: "50000.00" });
  assert.equal(mock.requests({ path: "/api/v3/ticker/price" }).length, 2);
});

test("examples/fleet: four processes on one Redis send one bucket's worth, all of it counted at the server", { timeout: 60_000 }, async () => {
  const redis = await startRedis();
  try {
    const { out, code } = await node(example("fleet", "run.mjs"), redis.url, mock.url, "4", "3");
    assert.equal(code, 0);
    assert.deepEqual(out.sharing, ["redis", "redis", "redis", "redis"]);
    const received = mock.requests({ path: "/api/v3/ticker/price" }).length;
    assert.equal(out.sent, received, "every send was counted at the server");
    // One bucket over the span the server saw (each process floods 3 s from its own start, and they
    // start apart): 10 + 5 × (span + 0.2), +1 for a token on the edge; about 27 for 3 s, where one
    // process alone would send 25 and four apart 100.
    const at = mock.requests({ path: "/api/v3/ticker/price" }).map((r) => r.receivedAtMs);
    const span = (Math.max(...at) - Math.min(...at)) / 1000;
    const allowed = Math.floor(10 + 5 * (span + 0.2)) + 1;
    assert.ok(received <= allowed && received >= 15, `${received} requests from the fleet over ${span.toFixed(2)} s (one bucket: ${allowed})`);
  } finally {
    await redis.close();
  }
});

test("examples/ccxt/ticker.mjs: ccxt's binance through asFetch, a 503 retried; a 418 is ccxt's DDoSProtection", async () => {
  mock.script("/api/v3/exchangeInfo", [{ status: 200, body: exchangeInfo }, { status: 200, body: exchangeInfo }]);
  mock.script("/api/v3/ticker/24hr", [{ status: 503 }, { status: 200, body: ticker }]);
  const ok = await node(example("ccxt", "ticker.mjs"), mock.url);
  assert.equal(ok.code, 0);
  assert.deepEqual(ok.out, { symbol: "BTC/USDT", last: 50000 });
  assert.equal(mock.requests({ path: "/api/v3/ticker/24hr" }).length, 2);
  mock.script("/api/v3/ticker/24hr", [{ status: 418, retryAfter: 30 }]);
  const banned = await node(example("ccxt", "ticker.mjs"), mock.url);
  assert.equal(banned.code, 1);
  assert.equal(banned.out.error, "DDoSProtection");
  assert.equal(mock.requests({ path: "/api/v3/ticker/24hr" }).length, 3);
});

/** A copy of an example in a project whose node_modules/retryline is this repo (as npm install would). */
function project(name) {
  const dir = mkdtempSync(join(tmpdir(), `retryline-example-${name}-`));
  cpSync(example(name), dir, { recursive: true });
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repoRoot, join(dir, "node_modules", "retryline"));
  return dir;
}

/** examples/workerd, its config aimed at the mock exchange. */
function workerdProject({ allowPrivate = true } = {}) {
  const dir = project("workerd");
  let config = readFileSync(join(dir, "config.capnp"), "utf8")
    .replace('"127.0.0.1:8787"', '"127.0.0.1:0"')
    .replace('"https://api.binance.com"', JSON.stringify(mock.url));
  if (!allowPrivate) config = config.replace('allow = ["public", "private", "local"]', 'allow = ["public"]');
  assert.ok(config.includes(mock.url), "the example's UPSTREAM binding was rewritten");
  return { dir, config };
}

test("examples/workerd: the worker proxies with retries; without the private allow, the loopback exchange is unreachable", async () => {
  const { dir, config } = workerdProject();
  const worker = await startWorkerd({ dir, config });
  try {
    mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 200, body: { price: "1.00" } }]);
    assert.deepEqual(await worker.call("/api/v3/ticker/price?symbol=BTCUSDT"), { price: "1.00" });
    assert.equal(mock.requests({ path: "/api/v3/ticker/price" }).length, 2);
  } finally {
    await worker.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const closed = workerdProject({ allowPrivate: false });
  const denied = await startWorkerd(closed);
  try {
    const res = await fetch(`${denied.base}/api/v3/ticker/price`);
    assert.equal(res.status, 502);
    const body = await res.json();
    assert.equal(body.reason, "attempts");
    // What a user sees: every attempt a network error, "internal error; reference = …" in the
    // records, the reason only in workerd's own log; nothing at the exchange.
    assert.match(body.lastError, /internal error; reference = /);
    assert.match(denied.log(), /connecting to 127\.0\.0\.1:\d+ is not allowed/);
    assert.equal(mock.requests({ path: "/api/v3/ticker/price" }).length, 2);
  } finally {
    await denied.stop();
    rmSync(closed.dir, { recursive: true, force: true });
  }
});

test("examples/workerd: its module list is what `npx retryline workerd-modules` prints for this version", async () => {
  const dir = project("workerd");
  try {
    const listed = (text) => text.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("(name = ")).map((l) => l.replace(/,?\s*(#.*)?$/, ""));
    const { stdout } = await run(process.execPath, [join(dir, "node_modules", "retryline", "bin", "retryline.mjs"), "workerd-modules"], { cwd: dir, timeout: 30_000 });
    const printed = listed(stdout);
    assert.ok(printed.some((l) => l.includes('wasm = embed "node_modules/retryline/pkg/server.wasm"')), stdout);
    const config = readFileSync(join(dir, "config.capnp"), "utf8");
    // workerd does not care about the order: the same modules, each named and embedded alike.
    assert.deepEqual(listed(config.slice(config.indexOf("modules = ["), config.indexOf("],", config.indexOf("modules = [")))).sort(), printed.sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * What `wrangler deploy` makes of a Wrangler example, without Wrangler (it needs Node 22): its
 * config read, `main` bundled by esbuild with Wrangler's export conditions and the package's .wasm
 * kept as a module of its own, then served by workerd (the runtime Wrangler runs locally) with the
 * config's vars as bindings, and its Durable Object bindings (in memory) if it has any.
 */
async function serveWrangler(name) {
  const dir = project(name);
  const wrangler = JSON.parse(readFileSync(join(dir, "wrangler.jsonc"), "utf8").replace(/^\s*\/\/.*$/gm, ""));
  assert.equal(wrangler.main, "src/worker.js");
  assert.match(wrangler.compatibility_date, /^\d{4}-\d{2}-\d{2}$/);
  const wasms = await bundleLikeWrangler(join(dir, wrangler.main), join(dir, "dist"));
  const bindings = Object.entries({ ...wrangler.vars, UPSTREAM: mock.url }).map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`);
  const objects = wrangler.durable_objects?.bindings ?? [];
  for (const { name, class_name } of objects) {
    bindings.push(`(name = ${JSON.stringify(name)}, durableObjectNamespace = ${JSON.stringify(class_name)})`);
    assert.ok(wrangler.migrations?.some((m) => [...(m.new_sqlite_classes ?? []), ...(m.new_classes ?? [])].includes(class_name)), `a migration creates ${class_name}`);
  }
  const namespaces = objects.map(({ class_name }) => `(className = ${JSON.stringify(class_name)}, uniqueKey = ${JSON.stringify(`${name}-${class_name}`)})`);
  const config = workerdConfig({ wasms, compatibilityDate: wrangler.compatibility_date, bindings, namespaces });
  const worker = await startWorkerd({ dir, config });
  return { worker, async close() { await worker.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

test("examples/cloudflare-worker: the wrangler.jsonc's worker, bundled as Wrangler does, answers from workerd", async () => {
  const { worker, close } = await serveWrangler("cloudflare-worker");
  try {
    mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 200, body: { symbol: "ETHUSDT", price: "3000.00" } }]);
    assert.deepEqual(await worker.call("/price?symbol=ETHUSDT"), { symbol: "ETHUSDT", price: "3000.00", attempts: 2 });
    assert.deepEqual(mock.requests({ path: "/api/v3/ticker/price" }).map((r) => r.query.symbol), ["ETHUSDT", "ETHUSDT"]);
  } finally {
    await close();
  }
});

test("examples/cloudflare-worker-shared: its budget is kept by the BudgetCoordinator it binds; a ban is held there", async () => {
  const { worker, close } = await serveWrangler("cloudflare-worker-shared");
  try {
    mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 200, body: { price: "3000.00" } }, { status: 418, retryAfter: 60 }]);
    assert.deepEqual(await worker.call("/price?symbol=ETHUSDT"), { symbol: "ETHUSDT", price: "3000.00", attempts: 2 });
    const banned = await fetch(`${worker.base}/price?symbol=ETHUSDT`);
    assert.equal(banned.status, 503);
    assert.equal((await banned.json()).reason, "banned");
    assert.equal((await (await fetch(`${worker.base}/price`)).json()).reason, "banned", "refused without a request");
    assert.equal(mock.requests({ path: "/api/v3/ticker/price" }).length, 3);
    const { sharing, scopes } = await worker.call("/budget");
    assert.equal(sharing, "coordinator");
    assert.ok(scopes[0].banRemainingMs > 50_000, JSON.stringify(scopes));
  } finally {
    await close();
  }
});

/** A Vite example built against the mock exchange (VITE_EXCHANGE), served, and a Chromium to open it in. */
async function viteExample(name) {
  const dir = project(name);
  const { build: viteBuild } = await import("vite");
  process.env.VITE_EXCHANGE = mock.url;
  try {
    await viteBuild({ root: dir, logLevel: "silent", build: { outDir: join(dir, "dist") } });
  } finally {
    delete process.env.VITE_EXCHANGE;
  }
  const site = await serveStatic({ root: join(dir, "dist") });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  const close = async () => {
    await browser.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, site, browser, close };
}

test("examples/shared-tabs: the page opened twice keeps one budget: together the tabs stay within it", async () => {
  const { dir, site, browser, close } = await viteExample("shared-tabs");
  try {
    mock.script("/api/v3/ticker/price", Array.from({ length: 100 }, () => ({ status: 200, body: { price: "42.00" } })));
    const context = await browser.newContext();
    const problems = [];
    const tabs = [await context.newPage(), await context.newPage()];
    // 4 tokens, 2 a second, each tab polling for 2.5 s.
    for (const tab of tabs) tab.on("pageerror", (e) => problems.push(String(e)));
    await Promise.all(tabs.map((tab) => tab.goto(`${site.origin}/?capacity=4&refill=2&ms=2500`)));
    await Promise.all(tabs.map((tab) => tab.waitForFunction(() => document.body.dataset.done === "true", null, { timeout: 15_000 })));
    const sent = await Promise.all(tabs.map((tab) => tab.$eval("#sent", (b) => Number(b.textContent))));
    const how = await Promise.all(tabs.map((tab) => tab.$eval("#budget", (p) => p.textContent.split(":")[0])));
    assert.deepEqual(problems, []);
    assert.deepEqual(how, ["tabs", "tabs"]);
    const log = mock.requests({ path: "/api/v3/ticker/price" });
    const requests = log.length;
    assert.equal(sent[0] + sent[1], requests);
    // One budget: 4 + 2 a second over the span the server saw (2.5 s: 10 with a token on the edge;
    // longer on a busy machine); two budgets would send twice that.
    const bound = bucketBound(log, { capacity: 4, refillPerSecond: 2 });
    assert.ok(requests <= bound, `${requests} requests from two tabs (${sent}), bound ${bound}`);
    assert.ok(sent.every((n) => n > 0), `both tabs sent: ${sent}`);
  } finally {
    await close();
  }
});

test("examples/vite-dashboard: Vite builds it, and in Chromium each widget shows its price, one after a retried 503", async () => {
  const { dir, browser, site, close } = await viteExample("vite-dashboard");
  try {
    const assets = readdirSync(join(dir, "dist", "assets"));
    assert.ok(assets.some((f) => f.endsWith(".wasm")), `the wasm is emitted as an asset: ${assets}`);
    const price = { status: 200, body: { price: "42.00" } };
    mock.script("/api/v3/ticker/price", [{ status: 503 }, price, price]);
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(site.origin);
    await page.waitForFunction(() => [...document.querySelectorAll(".price")].every((c) => c.textContent !== "…"), null, { timeout: 15_000 });
    const rows = await page.$$eval("tr[data-symbol]", (trs) => trs.map((tr) => [tr.querySelector(".price").textContent, tr.querySelector(".how").textContent]));
    assert.deepEqual(problems, []);
    // Whichever widget got the 503 took two attempts.
    assert.deepEqual(rows.sort(), [["42.00", "1 attempt"], ["42.00", "2 attempts"]]);
    assert.equal(mock.requests({ path: "/api/v3/ticker/price" }).length, 3);
  } finally {
    await close();
  }
});
