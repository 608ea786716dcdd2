// npm test: every test of the project, on a fresh machine too (it installs what is missing).
//   1. the native core (cargo test), the transcript suite around the core's machines included, then
//      the crate as published (scripts/crate-check.mjs: its file list, cargo publish --dry-run)
//   2. the package build (scripts/build.mjs: one wasm per entry, cargo + wasm-opt -O1)
//   3. the Rust API's shell (src/web) in Node and headless Chrome, the transcript suite through the
//      Rust executor in Node, and examples/rust-dashboard (a crate on the typed API) in Chrome:
//      `cargo test --target wasm32-unknown-unknown` with wasm-bindgen-test-runner, which is what
//      `wasm-pack test` runs (so a fresh machine need not build wasm-pack)
//   4. node --test (tests/js): the JavaScript shell against the mock exchange, ccxt and ky, the
//      transcript suite through the JavaScript executor, the layers, the packed tarball in workerd
//      and Vite, the examples, the dashboard in Chromium
//   5. the Node integration suites again on each Node line of scripts/node-lines.mjs (22 and 24;
//      binaries cached in ~/.cache/retryline)
// What waits on the CPU overlaps what waits on timers and sockets: the compilers run beside the
// Node suites, at a lower priority (nice), so that the suites' timing proofs keep their CPU.
// Each step's output goes to target/test-output/<step>.log and is shown when the step fails.
// Usage: node scripts/test.mjs [--only rust|wasm|js] [--update-docs]
//   --update-docs: also refresh the tracked docs/dashboard.png and docs/stream-panel.png from tests/js/www.test.mjs
//   (RETRYLINE_UPDATE_DOCS=1 for node --test); without it the tests write nothing tracked.
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
if (only !== null && !["rust", "wasm", "js"].includes(only)) {
  console.error(`npm test: --only ${only}: expected rust, wasm or js`);
  process.exit(2);
}
const wants = (part) => only === null || only === part;
const updateDocs = process.argv.includes("--update-docs");
const logs = `${root}target/test-output`;
mkdirSync(logs, { recursive: true });
const began = Date.now();
const results = [];
const seconds = (ms) => Math.round(ms / 1000);

/** Runs one step as a child process, its output into its log; resolves true when it passed. With
 * `niced`, at a lower CPU priority: a compiler beside the timing proofs. */
function step(name, cmd, args, { env = {}, cwd = root, niced = false } = {}) {
  const started = Date.now();
  const file = `${logs}/${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.log`;
  const out = createWriteStream(file);
  console.log(`[${seconds(started - began)} s] ── ${name}: ${cmd} ${args.join(" ")}`);
  const [bin, argv] = niced ? ["nice", ["-n", "10", cmd, ...args]] : [cmd, args];
  const child = spawn(bin, argv, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  return new Promise((resolve) => {
    const finish = (ok, why = "") => {
      out.end(() => {
        const took = seconds(Date.now() - started);
        results.push({ name, ok, seconds: took });
        console.log(`[${seconds(Date.now() - began)} s] ${ok ? "ok  " : "FAIL"} ${name} (${took} s)${why}`);
        if (!ok) console.log(failureOf(file));
        resolve(ok);
      });
    };
    child.once("error", (error) => finish(false, `: ${error.message}`));
    child.once("close", (code, signal) => finish(code === 0, code === 0 ? "" : `: exit ${code ?? signal}; log ${file}`));
  });
}

/** What a failed step's log shows: its last 300 lines. */
function failureOf(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  const shown = lines.slice(-300).join("\n");
  return `${lines.length > 300 ? `… (${lines.length - 300} lines before these in ${file})\n` : ""}${shown}`;
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

// The longest files first, so that the pool of node --test ends together (seconds on an idle
// 2-core machine, one at a time); the rest follow in name order.
const LONGEST = ["www", "hostile", "package/workerd-coordinator", "package/cli-npx", "package/bundlers", "package/workerd-stream",
  "package/workerd", "package/workerd-orders", "package/vite", "fleet", "share-tabs", "stream-tabs", "cli"];
const rank = (path) => {
  const i = LONGEST.indexOf(path.replace(/^tests\/js\//, "").replace(/\.test\.mjs$/, ""));
  return i === -1 ? LONGEST.length : i;
};
const ordered = (files) => [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

const node = process.execPath;
// Installing: the toolchain's pieces that download (npm ci, Debian's chromium and redis, the other
// Node lines) beside the one that compiles (wasm-bindgen-cli, only when missing), beside the core's
// own tests, which need none of them.
const setup = step("toolchain", node, ["scripts/bootstrap.mjs", ...(wants("wasm") ? ["--browser"] : []), ...(wants("js") ? ["--redis", "--node-lines"] : [])]);
const bindgen = wants("wasm") ? step("wasm-bindgen-cli", node, ["scripts/bootstrap.mjs", "wasm-bindgen"], { niced: true }) : Promise.resolve(true);
const native = wants("rust") ? step("core (native)", "cargo", ["test", "--quiet"], { niced: true }) : Promise.resolve(true);
// After the core's tests, which hold the same target folder: the crate as `cargo publish` would upload it.
const crate = wants("rust") ? native.then(() => step("the crate as published (cargo package, publish --dry-run)", node, ["scripts/crate-check.mjs"], { niced: true })) : Promise.resolve(true);

let built = Promise.resolve(true);
if (wants("wasm") || wants("js")) {
  built = setup.then((ok) => ok && step("build", node, ["scripts/build.mjs"], { niced: true }));
}

/** The Rust shell's tests: the test runner is wasm-bindgen's, as under wasm-pack test. */
async function rustShell(mock) {
  // Without debug info: a debug test module is ~30 MB with it, which a Chromium starved by two
  // busy cores took minutes to load and compile, past the runner's wait (panics keep file:line).
  const lean = { CARGO_PROFILE_DEV_DEBUG: "0", CARGO_PROFILE_TEST_DEBUG: "0" };
  const runner = { CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: "wasm-bindgen-test-runner", CARGO_TARGET_DIR: `${root}target/wasm-tests`, ...lean };
  // The runner gives chromedriver 5 s to bind its port by default: too short beside busy cores.
  const env = { ...runner, RETRYLINE_MOCK_URL: mock.url, WASM_BINDGEN_TEST_TIMEOUT: "120", WASM_BINDGEN_TEST_DRIVER_TIMEOUT: "60" };
  const chrome = { ...env, CHROMEDRIVER: "/usr/bin/chromedriver", WASM_BINDGEN_TEST_ONLY_WEB: "1" };
  const cargoTest = ["test", "--target", "wasm32-unknown-unknown"];
  // The shell against the mock exchange, and the transcript suite through the Rust executor
  // (tests/transcripts_web.rs); Node 20 has a global WebSocket only behind its flag.
  const inNode = { ...env, WASM_BINDGEN_TEST_ONLY_NODE: "1", NODE_OPTIONS: [process.env.NODE_OPTIONS, "--experimental-websocket"].filter(Boolean).join(" ") };
  await step("Rust shell in Node, and the transcripts through it", "cargo", [...cargoTest, "--test", "node", "--test", "transcripts_web"], { env: inNode, niced: true });
  await step("Rust shell in headless Chrome", "cargo", [...cargoTest, "--test", "web"], { env: chrome, niced: true });
  // A user's crate on the typed Rust API, as its own tests run it (issue 13); its dependencies
  // compiled once, in the same target folder.
  await step("Rust consumer crate in headless Chrome", "cargo", cargoTest, { env: chrome, cwd: `${root}examples/rust-dashboard`, niced: true });
}

/** node --test's reporters: spec into the step's log, and each file's time into file-times-<name>.txt. */
const reporters = (name) => ["--test-reporter=spec", "--test-reporter-destination=stdout",
  "--test-reporter=./scripts/file-times.mjs", `--test-reporter-destination=${logs}/file-times-${name}.txt`];

/** Whether wasm-bindgen (which npm start's dashboard needs) is installed already. */
const hasWasmBindgen = () =>
  spawnSync("wasm-bindgen", ["--version"], { env: { ...process.env, PATH: `${homedir()}/.cargo/bin:${process.env.PATH}` } }).status === 0;

/** node --test on this machine's Node, then the integration suites on the other lines. `bindgen`:
 * the wasm-bindgen-cli step, which the dashboard's test waits for on a machine without it. */
async function nodeSuites(nodeLines, bindgen) {
  // Three files at a time: most of them wait on timers, sockets and child processes; the timing
  // proofs judge themselves against control timers armed in the same run.
  const every = ordered(testFiles("tests/js"));
  // A fresh machine compiles wasm-bindgen-cli for half an hour beside the rest: the dashboard's
  // test (npm start builds www/sim with it) runs once that is done, not against a missing binary.
  const waits = hasWasmBindgen() ? [] : every.filter((path) => path === "tests/js/www.test.mjs");
  const all = every.filter((path) => !waits.includes(path));
  // pkg/ was built by the build step: the package tests pack it as it is, rather than each file's
  // process building it again in turn under one lock (beside two busy cores, past their wait).
  const packed = { RETRYLINE_PACK_NO_BUILD: "1" };
  const env = updateDocs ? { ...packed, RETRYLINE_UPDATE_DOCS: "1" } : packed;
  await step(`node --test (Node ${process.versions.node}, this machine's)`, node, ["--test", "--test-concurrency=3", ...reporters(`node-${process.versions.node}`), ...all], { env });
  if (waits.length > 0 && (await bindgen)) {
    await step("node --test of the dashboard, after wasm-bindgen-cli", node, ["--test", ...reporters(`node-${process.versions.node}-www`), ...waits], { env });
  }

  // The same integration suites on the other supported lines. Left out are the tests of the
  // toolchain rather than the runtime: the source layout (layers), the declarations (types: tsc),
  // Chromium (www, dashboard-reads, share-tabs, share-brackets, stream-tabs, stream-page), the packed tarball in workerd, Vite
  // and the bundlers (package/), the fleet (fleet.test.mjs, examples/fleet: four Node processes
  // and a redis-server, run once), and examples.test.mjs's workerd, Wrangler-bundle, Chromium and
  // Vite examples (its Node ones stay).
  const toolchainOnly = /^tests\/js\/(layers|types|www|dashboard-reads|share-tabs|share-brackets|stream-tabs|stream-page|fleet)\.test\.mjs$|^tests\/js\/package\//;
  const suites = all.filter((path) => !toolchainOnly.test(path));
  const skip = "^examples/(workerd|cloudflare-worker|shared-tabs|vite-dashboard|fleet)";
  for (const { line, version, bin } of nodeLines) {
    if (version === process.versions.node) continue; // this machine's own, run above
    const path = `${dirname(bin)}:${process.env.PATH}`; // a child that runs `node` by name gets this one too
    await step(`node --test on Node ${line} (${version})`, bin, ["--test", "--test-concurrency=3", `--test-skip-pattern=${skip}`, ...reporters(`node-${version}`), ...suites], { env: { ...packed, PATH: path } });
  }
}

const lanes = [native, crate];
if (wants("wasm") || wants("js")) {
  if (!(await built)) {
    await Promise.all(lanes.concat(bindgen));
    console.error("the build failed: nothing else can run");
    summary();
  }
  const mock = await startMock();
  if (wants("wasm")) lanes.push(bindgen.then((ok) => (ok ? rustShell(mock) : false)));
  if (wants("js")) {
    // The other Node lines' binaries: scripts/node-lines.mjs, run by the toolchain step above.
    const { ensureNodeLines } = await import("./node-lines.mjs");
    lanes.push(setup.then((ok) => (ok ? nodeSuites(ensureNodeLines(), bindgen) : false)));
  }
  try {
    await Promise.all(lanes);
  } finally {
    mock.stop();
  }
} else {
  await Promise.all(lanes);
}
summary();

function summary() {
  console.log(`\n── summary (${seconds(Date.now() - began)} s in all)`);
  for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name} (${r.seconds} s)`);
  process.exit(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
}
