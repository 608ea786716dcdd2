// npm test: every test of the project, on a fresh machine too (it installs what is missing).
//   1. the native core (cargo test)         4. the shell in headless Chrome (wasm-pack test)
//   2. the package build (wasm-pack, wasm-opt -O1)   5. node --test: mock exchange, client, replay, package in workerd and Vite
//   3. the shell in Node (wasm-pack test), and examples/rust-dashboard (a crate on the typed API) in Chrome
// Usage: node scripts/test.mjs [--only rust|wasm|js]
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ensureToolchain } from "./bootstrap.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
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

ensureToolchain({ browser: only === null || only === "wasm" });

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
  step("node --test", process.execPath, ["--test", "--test-concurrency=1", ...testFiles("tests/js")]);
}

console.log("\n── summary");
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name} (${r.seconds} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
