// The npm tarball in fresh projects, built by each bundler with its default configuration and run
// in headless Chromium or a server runtime against the mock exchange (issue 26, "How it is tested"):
// webpack 5 (import and require), esbuild (esm; iife with retryline/inline), Rollup 4, Bun's
// bundler, a Next.js 16 app (a client component and a Route Handler), Bun and Deno scripts, Node 20.0.0
// (require and import), an esbuild-bundled Node service (esm and cjs), and pages under a strict CSP.
// Every call is the README's one import and one client.fetch; the mock is scripted 503, 503, 200
// and its own log must show exactly those three requests.
// Run: node --test tests/js/package/bundlers.test.mjs
//
// Installs: retryline from the tarball (pack.mjs, npm --offline); the tools symlinked from the
// repo's pinned devDependencies, except Next.js: Turbopack compiles nothing outside the project
// root, so next, react, react-dom and their dependencies are hard links into the project (copies
// if /tmp is another filesystem). Bun 1.4.5 and Node 20.0.0 are fetched once into
// ~/.cache/retryline (cached-tools.mjs). Every project is built once, all at the same time, in before().
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { installFresh, removeDir, repoNodeModules } from "./pack.mjs";
import { ensureBun, ensureOldestNode, BUN, OLDEST_NODE } from "./cached-tools.mjs";
import { startMockExchange } from "../mock-exchange.mjs";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "bundlers");
const DENO = join(repoNodeModules, "@deno", "linux-x64-glibc", "deno");
const BUILD_TIMEOUT_MS = 180_000;
const RUN_TIMEOUT_MS = 20_000;
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const STRICT_CSP = "script-src 'self'";
const WASM_CSP = "script-src 'self' 'wasm-unsafe-eval'";

let mock;
let browser; // Promise of the one Chromium
const dirs = []; // scratch directories, removed in after()
const servers = []; // static servers, closed in after()
const children = new Set(); // live child processes (process group leaders)
const timings = {}; // build name → ms
let built; // name → Promise of what the build left (dir, origin, output); awaited by each test

// ---- processes -------------------------------------------------------------------------------

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}
process.once("exit", () => { for (const child of children) killGroup(child); });

/** Runs a command in its own process group; resolves to { code, out } (stdout + stderr), never rejects. */
function run(cmd, args, { cwd, env = {}, timeout = BUILD_TIMEOUT_MS } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...cleanEnv(), ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => { out += `\n[killed after ${timeout} ms]`; killGroup(child); }, timeout);
    child.once("error", (err) => { clearTimeout(timer); children.delete(child); resolve({ code: -1, out: `${out}\n${err.message}` }); });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code: code ?? signal, out: out.replace(/\x1b\[[0-9;]*m/g, "") });
    });
  });
}

function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_|^NODE_OPTIONS$|^NODE_TEST/i.test(k)) env[k] = v;
  return { ...env, NEXT_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", NO_COLOR: "1" };
}

async function mustRun(name, cmd, args, options) {
  const start = Date.now();
  const r = await run(cmd, args, options);
  timings[name] = Date.now() - start;
  if (r.code !== 0) throw new Error(`${name}: ${cmd} ${args.join(" ")} exited with ${r.code}:\n${r.out.slice(-6000)}`);
  return r.out;
}

/** Runs a script that prints one line of JSON (script.mjs/.cjs); resolves to that object. */
async function runScript(cmd, args, options) {
  const r = await run(cmd, args, { timeout: RUN_TIMEOUT_MS, ...options });
  const line = r.out.trim().split("\n").findLast((l) => l.startsWith("{"));
  assert.ok(r.code === 0 && line, `${cmd} ${args.join(" ")} exited with ${r.code}:\n${r.out}`);
  return JSON.parse(line);
}

// ---- projects --------------------------------------------------------------------------------

async function project(tools = [], { commonjs = false } = {}) {
  const dir = await installFresh(undefined, tools);
  dirs.push(dir);
  if (commonjs) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    delete pkg.type;
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  }
  return dir;
}

/** src/index.js (the tools' default entry) from a fixture page, with probe.js beside it. */
function page(dir, fixture, entry = "index.js") {
  mkdirSync(join(dir, "src"), { recursive: true });
  copyFileSync(join(fixtures, fixture), join(dir, "src", entry));
  copyFileSync(join(fixtures, "probe.js"), join(dir, "src", "probe.js"));
}

/** index.html + errors.js beside a bundle, so the folder can be served as is. */
function html(outDir, script, { module = true } = {}) {
  copyFileSync(join(fixtures, "errors.js"), join(outDir, "errors.js"));
  writeFileSync(join(outDir, "index.html"), `<!doctype html>
<html><head><meta charset="utf-8"><title>retryline</title></head>
<body><pre id="status">loading</pre>
<script src="errors.js"></script>
<script ${module ? 'type="module" ' : ""}src="${script}"></script>
</body></html>
`);
}

const MIME = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css" };

/** Serves `root` on 127.0.0.1 with `csp` (a Content-Security-Policy) on every response, if given. */
async function serve(root, csp) {
  const srv = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = normalize(join(root, path === "/" ? "index.html" : path));
    if (!file.startsWith(root + sep)) return res.writeHead(403).end();
    const headers = { "cache-control": "no-store", ...(csp ? { "content-security-policy": csp } : {}) };
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, "content-type": MIME[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404, headers).end("not found");
    }
  });
  await new Promise((resolve, reject) => { srv.once("error", reject); srv.listen(0, "127.0.0.1", resolve); });
  servers.push(srv);
  return `http://127.0.0.1:${srv.address().port}`;
}

const tool = (dir, ...path) => join(dir, "node_modules", ...path);

/** A build's warning lines, as test diagnostics (they go in the README's table if they matter). */
function warnings(t, what, out) {
  for (const line of out.split("\n").filter((l) => /warn/i.test(l))) t.diagnostic(`${what}: ${line.trim()}`);
}

async function buildWebpack(name, fixture, commonjs) {
  const dir = await project(["webpack", "webpack-cli"], { commonjs });
  page(dir, fixture);
  const out = await mustRun(name, process.execPath, [tool(dir, "webpack", "bin", "webpack.js"), "--mode", "production"], { cwd: dir });
  html(join(dir, "dist"), "main.js", { module: false });
  return { dir, out, origin: await serve(join(dir, "dist")) };
}

async function buildEsbuild() {
  const dir = await project(["esbuild"]);
  page(dir, "page.js");
  page(dir, "page-inline.js", "inline.js");
  page(dir, "page-csp.js", "csp.js");
  copyFileSync(join(fixtures, "script.mjs"), join(dir, "script.mjs"));
  const esbuild = tool(dir, "esbuild", "bin", "esbuild");
  const service = await mkdtemp(join(tmpdir(), "retryline-service-")); // no node_modules: the bundle stands alone
  dirs.push(service);
  const [esm, iife, iifePlain, csp, nodeEsm, nodeCjs] = await Promise.all([
    mustRun("esbuild esm", esbuild, ["src/index.js", "--bundle", "--format=esm", "--platform=browser", "--outfile=dist-esm/main.js"], { cwd: dir }),
    mustRun("esbuild iife inline", esbuild, ["src/inline.js", "--bundle", "--format=iife", "--outfile=dist-iife/main.js"], { cwd: dir }),
    run(esbuild, ["src/index.js", "--bundle", "--format=iife", "--outfile=dist-iife-plain/main.js"], { cwd: dir }),
    mustRun("esbuild csp", esbuild, ["src/csp.js", "--bundle", "--format=esm", "--platform=browser", "--outfile=dist-csp/main.js"], { cwd: dir }),
    mustRun("esbuild node esm", esbuild, ["script.mjs", "--bundle", "--platform=node", "--format=esm", `--outfile=${join(service, "service.mjs")}`], { cwd: dir }),
    mustRun("esbuild node cjs", esbuild, ["script.mjs", "--bundle", "--platform=node", "--format=cjs", `--outfile=${join(service, "service.cjs")}`], { cwd: dir }),
  ]);
  html(join(dir, "dist-esm"), "main.js");
  html(join(dir, "dist-iife"), "main.js", { module: false });
  html(join(dir, "dist-csp"), "main.js");
  return {
    dir, service, iifePlain, out: { esm, iife, csp, nodeEsm, nodeCjs },
    esm: await serve(join(dir, "dist-esm")),
    iife: await serve(join(dir, "dist-iife")),
    strict: await serve(join(dir, "dist-esm"), STRICT_CSP),
    wasmCsp: await serve(join(dir, "dist-esm"), WASM_CSP),
    csp: await serve(join(dir, "dist-csp"), STRICT_CSP),
  };
}

async function buildRollup() {
  const dir = await project(["rollup", "@rollup/plugin-node-resolve"]);
  page(dir, "page.js");
  for (const f of ["rollup.config.mjs", "rollup.file.config.mjs"]) copyFileSync(join(fixtures, f), join(dir, f));
  const rollup = tool(dir, "rollup", "dist", "bin", "rollup");
  const [out, file] = await Promise.all([
    mustRun("rollup", process.execPath, [rollup, "-c"], { cwd: dir }),
    run(process.execPath, [rollup, "-c", "rollup.file.config.mjs"], { cwd: dir }),
  ]);
  html(join(dir, "dist"), "index.js");
  return { dir, out, file, origin: await serve(join(dir, "dist")) };
}

async function buildBun(bun) {
  const dir = await project();
  page(dir, "page.js");
  copyFileSync(join(fixtures, "script.mjs"), join(dir, "script.mjs"));
  const out = await mustRun("bun build", bun, ["build", "src/index.js", "--target=browser", "--outdir=dist"], { cwd: dir });
  html(join(dir, "dist"), "index.js");
  return { dir, out, origin: await serve(join(dir, "dist")) };
}

async function buildScripts() {
  const dir = await project();
  for (const f of ["script.mjs", "script.cjs"]) copyFileSync(join(fixtures, f), join(dir, f));
  return { dir };
}

/** Names of `roots` and everything they depend on (dependencies, optional and peer ones), as installed in the repo. */
function closure(roots) {
  const seen = new Set();
  const walk = (name) => {
    const manifest = join(repoNodeModules, name, "package.json");
    if (seen.has(name) || !existsSync(manifest)) return; // an optional dependency for another platform
    seen.add(name);
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies })) walk(dep);
  };
  roots.forEach(walk);
  return [...seen];
}

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

async function buildNext() {
  const dir = await project();
  cpSync(join(fixtures, "next", "app"), join(dir, "app"), { recursive: true });
  for (const name of closure(["next", "react", "react-dom"])) {
    const to = tool(dir, ...name.split("/"));
    mkdirSync(dirname(to), { recursive: true });
    const linked = await run("cp", ["-al", join(repoNodeModules, name), to], { timeout: 60_000 });
    if (linked.code !== 0) await mustRun(`copy ${name}`, "cp", ["-r", join(repoNodeModules, name), to], { timeout: 120_000 });
  }
  const next = tool(dir, "next", "dist", "bin", "next");
  const out = await mustRun("next build", process.execPath, [next, "build"], { cwd: dir });
  const port = await freePort();
  const child = spawn(process.execPath, [next, "start", "-H", "127.0.0.1", "-p", String(port)],
    { cwd: dir, env: cleanEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  child.once("close", () => children.delete(child));
  const origin = `http://127.0.0.1:${port}`;
  for (const start = Date.now(); ; await new Promise((r) => setTimeout(r, 200))) {
    const up = await fetch(`${origin}/`).then((r) => r.ok, () => false);
    if (up) break;
    if (!children.has(child) || Date.now() - start > 30_000) throw new Error(`next start did not answer on ${origin}:\n${log}`);
  }
  return { dir, out, origin, child, log: () => log };
}

// ---- cases -----------------------------------------------------------------------------------

/** Scripts 503, 503, 200 at `path` on the mock; returns the URL to call. */
function scripted(path) {
  mock.script(path, [{ status: 503 }, { status: 503 }, { status: 200, body: { case: path } }]);
  return `${mock.url}${path}`;
}

/** The call resolved with the 200 and the server saw exactly 503, 503, 200 (and a page logged no error). */
function assertThree(path, result) {
  assert.equal(result.ok, true, `the call failed: ${JSON.stringify(result)}`);
  assert.deepEqual(result.problems ?? [], [], "errors in the page");
  assert.equal(result.status, 200);
  assert.deepEqual(JSON.parse(result.body), { case: path });
  assert.deepEqual(mock.requests({ path }).map((r) => r.status), [503, 503, 200], "the server's log");
}

/** Opens `origin`/?url=<mock path> in Chromium; resolves to what the page showed (window.retrylineResult or #status). */
async function inChromium(origin, path, { readStatus = false } = {}) {
  const url = scripted(path);
  const context = await (await browser).newContext();
  const tab = await context.newPage();
  const problems = [];
  tab.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  tab.on("console", (msg) => {
    const where = msg.location()?.url ?? "";
    // The mock's scripted 503s are logged by Chromium, and so is the favicon no page has.
    if (msg.type() === "error" && !where.startsWith(mock.url) && !where.endsWith("/favicon.ico")) problems.push(`console: ${msg.text()} (${where})`);
  });
  try {
    await tab.goto(`${origin}/?url=${encodeURIComponent(url)}`, { waitUntil: "load", timeout: RUN_TIMEOUT_MS });
    if (readStatus) {
      await tab.waitForFunction(() => /^\{/.test(document.getElementById("status")?.textContent ?? ""), undefined, { timeout: RUN_TIMEOUT_MS });
      return { ...JSON.parse(await tab.textContent("#status")), problems };
    }
    await tab.waitForFunction(() => window.retrylineResult, undefined, { timeout: RUN_TIMEOUT_MS });
    return { ...(await tab.evaluate(() => window.retrylineResult)), shown: await tab.textContent("#status"), problems };
  } catch (err) {
    throw new Error(`${origin} for ${path}: ${err.message}\n${problems.join("\n")}`);
  } finally {
    await context.close();
  }
}

before(async () => {
  mock = await startMockExchange({ port: 0 });
  const start = Date.now();
  // Fetched on the first run only; if that fails (no registry), only the cases that need them fail.
  const bun = ensureBun();
  const node20 = bun.catch(() => {}).then(ensureOldestNode);
  built = {
    bunBinary: bun,
    node20,
    webpackEsm: buildWebpack("webpack esm", "page.js", false),
    webpackCjs: buildWebpack("webpack require", "page-require.cjs", true),
    esbuild: buildEsbuild(),
    rollup: buildRollup(),
    bun: bun.then(buildBun),
    scripts: buildScripts(),
    next: buildNext(),
  };
  await Promise.allSettled(Object.values(built));
  timings["all builds (in parallel)"] = Date.now() - start;
  // Launched once the builds are done: on two cores it can miss its timeout beside them.
  browser = chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS, timeout: 60_000 });
  browser.catch(() => {}); // reported by the browser tests, not by the others
}, { timeout: 600_000 }); // includes building pkg/ and fetching Bun and Node 20 when not cached

after(async () => {
  console.log(`bundlers.test.mjs build times (ms): ${JSON.stringify(timings)}`);
  const next = await built?.next.catch(() => null);
  if (next?.child && children.has(next.child)) killGroup(next.child);
  if (browser) await browser.then((b) => b.close()).catch(() => {});
  for (const srv of servers) { srv.closeAllConnections(); await new Promise((r) => srv.close(r)); }
  await mock?.close();
  for (const child of children) killGroup(child);
  for (const dir of dirs) await removeDir(dir);
});

test("webpack 5, import (mode production, default config): 503, 503, 200 in three requests", async (t) => {
  const { origin, dir, out } = await built.webpackEsm;
  warnings(t, "webpack", out);
  assert.ok((await readFile(join(dir, "dist", "main.js"), "utf8")).length > 0);
  assertThree("/bundlers/webpack-esm", await inChromium(origin, "/bundlers/webpack-esm"));
});

test("webpack 5, require(\"retryline\") (pkg/inline.cjs): 503, 503, 200 in three requests", async (t) => {
  const { origin, out } = await built.webpackCjs;
  warnings(t, "webpack", out);
  assertThree("/bundlers/webpack-require", await inChromium(origin, "/bundlers/webpack-require"));
});

test("esbuild --bundle --format=esm --platform=browser: 503, 503, 200 in three requests", async (t) => {
  const { esm, out } = await built.esbuild;
  warnings(t, "esbuild", out.esm);
  assertThree("/bundlers/esbuild-esm", await inChromium(esm, "/bundlers/esbuild-esm"));
});

test("esbuild --bundle --format=iife: retryline/inline works; plain \"retryline\" is a build error naming its top-level await", async (t) => {
  const { iife, iifePlain, out } = await built.esbuild;
  warnings(t, "esbuild", out.iife);
  assert.notEqual(iifePlain.code, 0, `the iife build of "retryline" succeeded:\n${iifePlain.out}`);
  assert.match(iifePlain.out, /Top-level await is currently not supported with the "iife" output format/);
  assert.match(iifePlain.out, /node_modules\/retryline\/js\/browser\.js/);
  assertThree("/bundlers/esbuild-iife-inline", await inChromium(iife, "/bundlers/esbuild-iife-inline"));
});

test("Rollup 4 + node-resolve, output.dir: 503, 503, 200 in three requests (output.file is refused: more than one chunk)", async (t) => {
  const { origin, file, out } = await built.rollup;
  warnings(t, "rollup", out);
  assert.notEqual(file.code, 0, `output.file built:\n${file.out}`);
  assert.match(file.out, /when building multiple chunks, the "output\.dir" option must be used, not "output\.file"/);
  assert.match(file.out, /inlineDynamicImports/);
  assertThree("/bundlers/rollup", await inChromium(origin, "/bundlers/rollup"));
});

test(`bun build --target=browser (Bun ${BUN.version}): 503, 503, 200 in three requests`, async (t) => {
  const { origin, out } = await built.bun;
  warnings(t, "bun build", out);
  assertThree("/bundlers/bun-build", await inChromium(origin, "/bundlers/bun-build"));
});

test(`bun run script.mjs (Bun ${BUN.version}): 503, 503, 200 in three requests`, async () => {
  const { dir } = await built.scripts;
  const bun = await built.bunBinary;
  const path = "/bundlers/bun-script";
  assertThree(path, await runScript(bun, ["run", "script.mjs", scripted(path)], { cwd: dir }));
});

test("deno run --allow-net script.mjs (no --allow-read; node_modules as npm left it): 503, 503, 200 in three requests", async () => {
  const { dir } = await built.scripts;
  const path = "/bundlers/deno-script";
  const denoDir = join(dir, ".deno-cache");
  assertThree(path, await runScript(DENO, ["run", "--allow-net", "script.mjs", scripted(path)], { cwd: dir, env: { DENO_DIR: denoDir } }));
  // With a package.json and no flag, Deno 2 takes --node-modules-dir=manual: it reads node_modules
  // as npm left it ("auto" would have installed into node_modules/.deno).
  assert.ok(!existsSync(join(dir, "node_modules", ".deno")), "deno installed packages of its own");
});

test("Next.js 16, default config: next build; a Route Handler calls the mock server-side: 503, 503, 200 in three requests", async (t) => {
  const { origin, out } = await built.next;
  warnings(t, "next build", out);
  assert.match(out, /Compiled successfully/);
  const path = "/bundlers/next-route";
  const res = await fetch(`${origin}/api/x?url=${encodeURIComponent(scripted(path))}`, { signal: AbortSignal.timeout(RUN_TIMEOUT_MS) });
  assert.equal(res.status, 200);
  assertThree(path, await res.json());
});

test("Next.js 16: a \"use client\" component calls the mock from Chromium: 503, 503, 200 in three requests", async () => {
  const { origin } = await built.next;
  assertThree("/bundlers/next-client", await inChromium(origin, "/bundlers/next-client", { readStatus: true }));
});

test(`Node ${OLDEST_NODE.version} (engines: >=20): require("retryline") and import: 503, 503, 200 in three requests each`, async () => {
  const { dir } = await built.scripts;
  const node20 = await built.node20;
  const version = await run(node20, ["--version"]);
  assert.equal(version.out.trim(), `v${OLDEST_NODE.version}`);
  for (const script of ["script.cjs", "script.mjs"]) {
    const path = `/bundlers/node-${OLDEST_NODE.version}-${extname(script).slice(1)}`;
    assertThree(path, await runScript(node20, [script, scripted(path)], { cwd: dir }));
  }
});

test("esbuild --bundle --platform=node, --format=esm and --format=cjs, run by node with no node_modules: 503, 503, 200 in three requests each", async () => {
  const { service, out } = await built.esbuild;
  assert.doesNotMatch(out.nodeEsm + out.nodeCjs, /warning/i, "esbuild warned");
  for (const file of ["service.mjs", "service.cjs"]) {
    const path = `/bundlers/esbuild-node-${extname(file).slice(1)}`;
    assertThree(path, await runScript(process.execPath, [file, scripted(path)], { cwd: service }));
  }
});

test(`strict CSP (${STRICT_CSP}): "retryline" shows an Error naming retryline and 'wasm-unsafe-eval'; the server saw nothing`, async (t) => {
  const { strict } = await built.esbuild;
  const webpackStrict = await serve(join((await built.webpackEsm).dir, "dist"), STRICT_CSP);
  for (const [what, origin] of [["esbuild (inlined bytes)", strict], ["webpack (emitted asset, streaming)", webpackStrict]]) {
    const path = `/bundlers/csp-strict-${what.split(" ")[0]}`;
    const r = await inChromium(origin, path);
    assert.equal(r.ok, false, `${what}: the wasm compiled under ${STRICT_CSP}`);
    assert.equal(r.loadError, true, `${what}: ${JSON.stringify(r)}`);
    assert.match(r.message, /^retryline: /, what);
    assert.match(r.message, /'wasm-unsafe-eval'/, what);
    assert.match(r.message, /retryline\/csp/, what);
    assert.match(r.shown, /retryline: .*'wasm-unsafe-eval'/, `${what}: the page shows it`);
    assert.deepEqual(mock.requests({ path }), [], what);
    t.diagnostic(`${what}: ${r.message}`);
  }
});

test(`strict CSP (${STRICT_CSP}): "retryline/csp" (wasm2js) works: 503, 503, 200 in three requests`, async () => {
  const { csp } = await built.esbuild;
  assertThree("/bundlers/csp-wasm2js", await inChromium(csp, "/bundlers/csp-wasm2js"));
});

test(`CSP ${WASM_CSP}: "retryline" works: 503, 503, 200 in three requests`, async () => {
  const { wasmCsp } = await built.esbuild;
  assertThree("/bundlers/csp-wasm-unsafe-eval", await inChromium(wasmCsp, "/bundlers/csp-wasm-unsafe-eval"));
});
