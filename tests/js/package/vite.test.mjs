// The npm tarball, installed in a fresh project, built by Vite (production build only — no dev
// server), served as static files and run in headless Chromium against the mock exchange.
// Run: node --test tests/js/package/vite.test.mjs
//
// The fresh project has the tarball installed by npm and vite symlinked from the repo's
// node_modules (see pack.mjs); playwright-core is used by this test process only, from the repo.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { readFileSync, readdirSync, copyFileSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, extname, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { installFresh, importNodeEntry, importRepoNodeEntry, removeDir, repoRoot } from "./pack.mjs";
import { startMockExchange } from "../mock-exchange.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const WORKED_EXAMPLE = JSON.parse(readFileSync(join(repoRoot, "examples", "worked_example.json"), "utf8"));
const BUILD_TIMEOUT_MS = 90_000;
const STEP_TIMEOUT_MS = 20_000;
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let dir; // the fresh project
let mock;
let server; // static server for dist/
let origin;
let browser;
let page;
let node; // the package's Node entry (js/node.js) from the same tarball: the reference
const pageProblems = []; // console errors and uncaught exceptions in the page
const served = []; // paths the static server was asked for

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

function viteBuild() {
  return new Promise((resolve, reject) => {
    // The project's vite (a symlink to the repo's copy), run with the project as cwd and root.
    const child = spawn(process.execPath, [join(dir, "node_modules", "vite", "bin", "vite.js"), "build"], {
      cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", CI: "1" },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), BUILD_TIMEOUT_MS);
    child.once("error", (err) => { clearTimeout(timer); reject(err); });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`vite build failed (code ${code}, signal ${signal}):\n${out}`));
    });
  });
}

const MIME = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css",
  ".wasm": "application/wasm", ".svg": "image/svg+xml", ".json": "application/json" };

async function serveDist(root) {
  const srv = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    served.push(path);
    const file = normalize(join(root, path === "/" ? "index.html" : path));
    if (!file.startsWith(root + sep)) { res.writeHead(403).end(); return; }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": MIME[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((resolve, reject) => { srv.once("error", reject); srv.listen(0, "127.0.0.1", resolve); });
  return srv;
}

const inPage = (fn, arg, what) => withTimeout(page.evaluate(fn, arg), STEP_TIMEOUT_MS, what);
const pageFetch = (request) => inPage((r) => window.retrylineTest.fetch(r), request, `page fetch ${request.url}`);

before(async () => {
  mock = await startMockExchange({ port: 0 });
  dir = await installFresh(undefined, ["vite"]);
  node = await importNodeEntry(dir);
  for (const f of ["index.html", "main.js"]) copyFileSync(join(here, "fixtures", "vite", f), join(dir, f));
  await viteBuild();
  server = await serveDist(join(dir, "dist"));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS, timeout: 30_000 });
  page = await browser.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    // Chromium logs every non-2xx response; the mock's scripted 429/503s are expected.
    if (msg.location()?.url?.startsWith(mock.url) && /^Failed to load resource: the server responded with a status of/.test(msg.text())) return;
    pageProblems.push(`console.error: ${msg.text()} (${msg.location()?.url ?? "?"})`);
  });
  await page.goto(origin + "/", { waitUntil: "load" });
  await page.waitForFunction(() => window.retrylineReady === true || undefined, undefined, { timeout: STEP_TIMEOUT_MS })
    .catch((err) => { throw new Error(`the page never became ready: ${err.message}\n${pageProblems.join("\n")}`); });
}, { timeout: 600_000 }); // includes the wasm build (and waiting for another one) when pkg/ is stale

after(async () => {
  if (browser) await withTimeout(browser.close(), 10_000, "browser.close").catch((err) => console.log(err.message));
  if (server) { server.closeAllConnections(); await new Promise((r) => server.close(r)); }
  await mock?.close();
  await removeDir(dir);
});

const jsAssets = () => readdirSync(join(dir, "dist", "assets")).filter((f) => f.endsWith(".js"));

const wasmAssets = () => readdirSync(join(dir, "dist", "assets")).filter((f) => f.endsWith(".wasm"));

test("vite build of a fresh project: the core is one wasm asset; the page loads its chunks and that wasm, and no chunk it never runs", () => {
  const assets = readdirSync(join(dir, "dist", "assets"));
  const js = jsAssets();
  const code = js.map((f) => readFileSync(join(dir, "dist", "assets", f)));
  const text = code.map((b) => b.toString("utf8")).join("\n");
  assert.ok(!/node:fs|readFileSync/.test(text), "the chunks are the browser entry's, not the node one's");
  const wasm = wasmAssets().find((f) => /^browser-(?!fetch-)/.test(f));
  assert.ok(wasm && text.includes(wasm), `a chunk refers to the emitted wasm asset of the default entry's core (${assets.join(", ")})`);
  const wasmBytes = readFileSync(join(dir, "dist", "assets", wasm));
  const loaded = served.filter((p) => p.endsWith(".js")).map((p) => p.slice("/assets/".length));
  // Inlined wasm in a chunk is a long base64 literal (replay's own is one): the browser's is only
  // in the fallback chunk for bundlers that emit no asset, which this page never loads.
  const inlinedIn = js.filter((f, i) => [...code[i].toString("utf8").matchAll(/["'`]([A-Za-z0-9+/]{4000,}={0,2})["'`]/g)]
    .some((m) => Buffer.from(m[1], "base64").equals(wasmBytes)));
  assert.ok(inlinedIn.every((f) => f.startsWith("browser-inline-") && !loaded.includes(f)), `the browser wasm inlined in a loaded chunk: ${inlinedIn}`);
  assert.deepEqual(served.filter((p) => !p.endsWith(".js") && p !== "/"), [`/assets/${wasm}`], "the page requested the HTML, its chunks and the wasm, nothing else");
  // The page makes plain calls and replays: asFetch and the inlined core (for bundlers that emit no
  // asset) are chunks it never loads.
  for (const lazy of ["as-fetch", "browser-inline"]) {
    const chunk = js.find((f) => f.startsWith(`${lazy}-`));
    assert.ok(chunk, `a chunk of its own for ${lazy}: ${js.join(", ")}`);
    assert.ok(!loaded.includes(chunk), `the page loaded ${chunk}, which it never runs`);
  }
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const loadedJs = js.filter((f) => loaded.includes(f)).map((f) => readFileSync(join(dir, "dist", "assets", f)));
  const total = loadedJs.reduce((n, b) => n + gz(b), 0) + gz(wasmBytes);
  console.log(`vite build: ${loadedJs.length} chunks loaded, ${(loadedJs.reduce((n, b) => n + gz(b), 0) / 1024).toFixed(1)} KiB gzip, + ` +
    `${wasm} ${(wasmBytes.length / 1024).toFixed(1)} KiB (${(gz(wasmBytes) / 1024).toFixed(1)} KiB gzip) = ${(total / 1024).toFixed(1)} KiB gzip (level 9)`);
  assert.ok(statSync(join(dir, "dist", "index.html")).size > 0);
  assert.deepEqual(pageProblems, []);
});

// One core per page: one wasm asset, referred to once (a second loader would ship it twice).
test("vite build emits the core's wasm once: one core per page", () => {
  const emitted = wasmAssets();
  assert.deepEqual(emitted.map((f) => f.replace(/-[\w-]{8}\.wasm$/, ".wasm")), ["browser.wasm"], `wasm assets: ${emitted.join(", ")}`);
  const js = jsAssets().map((f) => readFileSync(join(dir, "dist", "assets", f), "utf8")).join("\n");
  assert.equal(js.split(emitted[0]).length - 1, 1, "one reference to the wasm asset");
});

test("in the page: imports are there and replay of the worked example equals Node's replay", async (t) => {
  assert.deepEqual(await inPage(() => window.retrylineTest.exports, undefined, "exports"),
    { RetryClient: "function", RetryError: "function", replay: "function" });
  const inBrowser = await inPage((spec) => window.retrylineTest.replay(spec), WORKED_EXAMPLE, "replay");
  assert.deepEqual(inBrowser, JSON.parse(JSON.stringify(node.replay(WORKED_EXAMPLE))));
  const repoNode = await importRepoNodeEntry(dir); // the repo's js/node.js, if pkg/ is still the packed build
  if (repoNode) assert.deepEqual(inBrowser, JSON.parse(JSON.stringify(repoNode.replay(WORKED_EXAMPLE))));
  else t.diagnostic("the repo's pkg/ was rebuilt since the pack (someone else's build): compared with the tarball's js/node.js only");
  assert.equal(inBrowser.wireRequests, 4);
  assert.deepEqual(inBrowser.records.filter((r) => r.decision === "sent").map((r) => r.startMs), [0, 1900, 4200, 6900]);
  assert.deepEqual(inBrowser.stop, { reason: "deadline", atMs: 8400 });
});

test("in the page: cross-origin 503 then 200 with a short base delay → success after 2 server requests", async () => {
  mock.script("/api/v3/ticker/price", [{ status: 503 }, { status: 200, body: { symbol: "BTCUSDT", price: "1" } }]);
  const r = await pageFetch({
    url: `${mock.url}/api/v3/ticker/price?symbol=BTCUSDT`,
    options: { policy: { baseDelayMs: 20, maxDelayMs: 40, jitter: "full", maxAttempts: 3, attemptTimeoutMs: 5000, deadlineMs: 10000 } },
  });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.body), { symbol: "BTCUSDT", price: "1" });
  const reqs = mock.requests({ path: "/api/v3/ticker/price" });
  assert.deepEqual(reqs.map((q) => q.status), [503, 200]);
  assert.deepEqual(r.records.map((x) => [x.decision, x.status, x.reason]), [["sent", 503, "retryable"], ["sent", 200, "success"]]);
  assert.match(reqs[0].headers.origin ?? "", /^http:\/\/127\.0\.0\.1:\d+$/, "a real cross-origin request from the page");
});

test("in the page: 429 with Retry-After: 1 then 200 → the retry reaches the server ≥ 1000 ms after the 429", async () => {
  mock.script("/api/v3/depth", [{ status: 429, retryAfter: 1 }, { status: 200 }]);
  const r = await pageFetch({
    url: `${mock.url}/api/v3/depth?symbol=BTCUSDT`,
    options: { policy: { baseDelayMs: 20, maxDelayMs: 40, jitter: "none", maxAttempts: 3, attemptTimeoutMs: 5000, deadlineMs: 10000 } },
  });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  const reqs = mock.requests({ path: "/api/v3/depth" });
  assert.deepEqual(reqs.map((q) => q.status), [429, 200]);
  const gap = reqs[1].receivedAtMs - reqs[0].respondedAtMs;
  console.log(`429 → retry gap at the mock (server clock), Chromium: ${gap.toFixed(1)} ms`);
  assert.ok(gap >= 1000, `the retry came ${gap} ms after the 429 was answered: Retry-After: 1 was shortened`);
  assert.ok(gap < 2000, `the retry came ${gap} ms after the 429: far more than asked`);
  assert.equal(r.records[1].retryAfter, "seconds", "Retry-After was readable cross-origin (exposed by CORS)");
  assert.deepEqual(pageProblems, []);
});
