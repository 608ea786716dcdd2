// The runnable files of examples/, run as a user runs them, against the loopback mock exchange.
// Each imports "retryline" by name: in the repo that is the package itself (its exports map), in
// workerd the package's files in a node_modules/retryline that links to the repo.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startMockExchange } from "./mock-exchange.mjs";
import { exchangeInfo, ticker } from "./support/binance.mjs";
import { startWorkerd } from "./package/workerd-harness.mjs";
import { repoRoot } from "./package/pack.mjs";

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

/** examples/workerd in a project whose node_modules/retryline is this repo, aimed at the mock. */
function workerdProject({ allowPrivate = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "retryline-example-workerd-"));
  cpSync(example("workerd"), dir, { recursive: true });
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(repoRoot, join(dir, "node_modules", "retryline"));
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
