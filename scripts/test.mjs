// npm test: every test of the project, on a fresh machine too (it installs what is missing).
//   1. the native core (cargo test)
//   2. the package build (scripts/build.mjs: one wasm per entry, cargo + wasm-opt -O1)
//   3. the Rust API's shell (src/web) in Node and headless Chrome (wasm-pack test), and
//      examples/rust-dashboard (a crate on the typed API) in Chrome
//   4. node --test (tests/js): the JavaScript shell against the mock exchange, ccxt and ky, the
//      layers, the packed tarball in workerd and Vite, the examples, the dashboard in Chromium
//   5. the Node integration suites (the shell in Node against the mock exchange) again on each
//      Node line of scripts/node-lines.mjs (22 and 24; binaries cached in ~/.cache/retryline)
// Usage: node scripts/test.mjs [--only rust|wasm|js] [--update-docs]
//   --update-docs: also refresh the tracked docs/dashboard.png and docs/stream-panel.png from tests/js/www.test.mjs
//   (RETRYLINE_UPDATE_DOCS=1 for node --test); without it the tests write nothing tracked.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ensureToolchain } from "./bootstrap.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
const updateDocs = process.argv.includes("--update-docs");
const results = [];

function step(name, cmd, args, env = {}, cwd = root) {
  const started = Date.now();
  console.log(`\n── ${name}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd, stdio: "inherit", env: { ...process.env, ...env } });
  const ok = r.status === 0;
  results.push({ name, ok, seconds: Math.round((Date.now() - started) / 1000) });
  return ok;
}

/** Starts the mock exchange in its own process; resolves with its URL and a stop function. */
async function startMock() {
  const child = spawn(process.execPath, ["tests/js/mock-exchange.mjs", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the mock exchange did not start in 10 s")), 10_000);
    createInterface({ input: child.stdout }).once("line", (l) => (clearTimeout(timer), resolve(l)));
    child.once("exit", (code) => reject(new Error(`the mock exchange exited with ${code}`)));
  });
  return { url: JSON.parse(line).url, stop: () => child.kill("SIGTERM") };
}

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(path).isDirectory()) return name === "fixtures" ? [] : testFiles(path);
    return name.endsWith(".test.mjs") ? [path] : [];
  });
}

const { nodeLines } = ensureToolchain({ browser: only === null || only === "wasm", redis: only === null || only === "js", nodeLines: only === null || only === "js" });

if (!only || only === "rust") step("core (native)", "cargo", ["test", "--quiet"]);

if (!only || only !== "rust") {
  if (!step("build", process.execPath, ["scripts/build.mjs"])) {
    console.error("the build failed: nothing else can run");
    process.exit(1);
  }
}

if (!only || only === "wasm") {
  const mock = await startMock();
  const env = { RETRYLINE_MOCK_URL: mock.url, CHROMEDRIVER: "/usr/bin/chromedriver", WASM_BINDGEN_TEST_TIMEOUT: "120" };
  try {
    step("shell in Node", "wasm-pack", ["test", "--node", "--test", "node"], env);
    step("shell in headless Chrome", "wasm-pack", ["test", "--headless", "--chrome", "--chromedriver", "/usr/bin/chromedriver", "--test", "web"], env);
    // A user's crate on the typed Rust API, as its own tests run it (issue 13).
    step("Rust consumer crate in headless Chrome", "wasm-pack", ["test", "--headless", "--chrome", "--chromedriver", "/usr/bin/chromedriver"], env, `${root}examples/rust-dashboard`);
  } finally {
    mock.stop();
  }
}

if (!only || only === "js") {
  // One file at a time: timing proofs run on shared 2-core machines.
  step(`node --test (Node ${process.versions.node}, this machine's)`, process.execPath, ["--test", "--test-concurrency=1", ...testFiles("tests/js")], updateDocs ? { RETRYLINE_UPDATE_DOCS: "1" } : {});

  // The same integration suites on the other supported lines, each its own step. Left out are the
  // tests of the toolchain rather than the runtime: the source layout (layers), the declarations
  // (types: tsc), Chromium (www, share-tabs, stream-tabs), the packed tarball in workerd and Vite (package/), and
  // examples.test.mjs's workerd, Wrangler-bundle, Chromium and Vite examples (its Node ones stay).
  // Two files at a time: hostile.test.mjs is most of a line's CPU and shares its core with no other
  // CPU-bound file (timing proofs): 70-95 s a line on a 2-core machine, not ~125 s one at a time.
  // The fleet (fleet.test.mjs, examples/fleet) runs once, on this machine's line, one file at a time:
  // four Node processes and a redis-server are a whole 2-core machine's CPU.
  const toolchainOnly = /^tests\/js\/(layers|types|www|share-tabs|stream-tabs|fleet)\.test\.mjs$|^tests\/js\/package\//;
  const suites = testFiles("tests/js").filter((path) => !toolchainOnly.test(path));
  const skip = "^examples/(workerd|cloudflare-worker|shared-tabs|vite-dashboard|fleet)";
  for (const { line, version, bin } of nodeLines) {
    if (version === process.versions.node) continue; // this machine's own, run above
    const path = `${dirname(bin)}:${process.env.PATH}`; // a child that runs `node` by name gets this one too
    step(`node --test on Node ${line} (${version})`, bin, ["--test", "--test-concurrency=2", `--test-skip-pattern=${skip}`, ...suites], { PATH: path });
  }
}

console.log("\n── summary");
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name} (${r.seconds} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
