// The npm tarball, installed in a fresh project, running in workerd (Cloudflare's runtime).
// Run: node --test tests/js/package/workerd.test.mjs
//
// No bundler: the capnp config lists the installed package's files as workerd modules, taken
// verbatim from <fresh>/node_modules/retryline. Which files, and as what, is derived from the
// package as shipped: the entry is the "workerd" condition of its exports map, and the rest is
// the graph of the entry's static relative imports (".js" → esModule, ".wasm" → wasm). If the
// tarball lacked a file, or the export map pointed elsewhere, the worker would not start.
//
// Module names: workerd resolves every specifier — bare ones too — relative to the importing
// module's name, and has no package resolution. Each package file is therefore named by its path
// inside the package ("js/retry-error.js", "pkg/retryline.js", "pkg/retryline_bg.wasm"), the
// worker is named "<entry dir>/worker.js", and the entry file is registered under the name
// "<entry dir>/retryline", which is where the worker's `import ... from "retryline"` lands. The
// entry's own relative imports ("./retry-error.js", "../pkg/retryline_bg.wasm") then resolve to
// the shipped files. (A root-level module named "retryline" cannot work: "../pkg/..." would climb
// above the root, which workerd rejects with "Invalid module specifier".)
//
// The Node reference is the package's own Node entry from the same tarball (see importNodeEntry in
// pack.mjs), and also the repo's js/node.js whenever the repo's pkg/ is still the packed build.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync, existsSync, mkdirSync, copyFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { installFresh, importNodeEntry, importRepoNodeEntry, removeDir, repoRoot } from "./pack.mjs";
import { startMockExchange } from "../mock-exchange.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const WORKERD = join(repoRoot, "node_modules", ".bin", "workerd");
const WORKED_EXAMPLE = JSON.parse(readFileSync(join(repoRoot, "examples", "worked_example.json"), "utf8"));
const ORDER = "/api/v3/order";
const STARTUP_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 20_000;

let dir; // the fresh project
let mock;
let workerd; // the child process
let workerdLog = "";
let base; // http://127.0.0.1:<port> of the worker
let node; // the package's Node entry (js/node.js) from the same tarball: the reference

// ---------------------------------------------------------------------------------------------
// The worker's modules, from the installed package.

const STATIC_IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\sfrom\s*)?["']([^"']+)["']/g;

function workerdModules(pkgDir) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const entry = manifest.exports?.["."]?.workerd;
  assert.equal(typeof entry, "string", `package.json exports["."].workerd must be a path, got ${JSON.stringify(entry)}`);
  const entryPath = posix.normalize(entry); // "js/workerd.js"
  const entryDir = posix.dirname(entryPath) === "." ? "" : `${posix.dirname(entryPath)}/`;
  const modules = new Map(); // package-relative path -> kind
  const visit = (rel) => {
    if (modules.has(rel)) return;
    const file = join(pkgDir, rel);
    assert.ok(existsSync(file), `the workerd entry needs ${rel}, which is not in the installed package`);
    if (rel.endsWith(".wasm")) return modules.set(rel, "wasm");
    assert.ok(rel.endsWith(".js") || rel.endsWith(".mjs"), `unexpected module type: ${rel}`);
    modules.set(rel, "esModule");
    for (const [, spec] of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      assert.ok(spec.startsWith("./") || spec.startsWith("../"),
        `${rel} imports ${JSON.stringify(spec)}: workerd has no package resolution (nor node: builtins without nodejs_compat)`);
      visit(posix.normalize(posix.join(posix.dirname(rel), spec)));
    }
  };
  visit(entryPath);
  return { entryPath, entryDir, modules };
}

function writeConfig() {
  const pkgDir = join(dir, "node_modules", "retryline");
  const { entryPath, entryDir, modules } = workerdModules(pkgDir);
  mkdirSync(join(dir, "src"), { recursive: true });
  copyFileSync(join(here, "fixtures", "workerd", "worker.js"), join(dir, "src", "worker.js"));
  const lines = [`(name = ${JSON.stringify(`${entryDir}worker.js`)}, esModule = embed "src/worker.js")`];
  for (const [rel, kind] of modules) {
    const name = rel === entryPath ? `${entryDir}retryline` : rel;
    lines.push(`(name = ${JSON.stringify(name)}, ${kind} = embed ${JSON.stringify(`node_modules/retryline/${rel}`)})`);
  }
  const config = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .retrylineWorker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const retrylineWorker :Workerd.Worker = (
  modules = [
    ${lines.join(",\n    ")},
  ],
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
);
`;
  writeFileSync(join(dir, "config.capnp"), config);
  return [...modules.keys()];
}

// Starts workerd; resolves with the port once it reports that its socket listens (--control-fd).
function startWorkerd() {
  return new Promise((resolve, reject) => {
    const child = spawn(WORKERD, ["serve", "config.capnp", "--verbose", "--control-fd=3"], {
      cwd: dir, env: { ...process.env, PWD: dir }, stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    workerd = child;
    const timer = setTimeout(() => fail(new Error(`workerd did not listen within ${STARTUP_TIMEOUT_MS} ms`)), STARTUP_TIMEOUT_MS);
    function fail(err) {
      clearTimeout(timer);
      err.message += `\n--- workerd output\n${workerdLog}`;
      reject(err);
    }
    child.stdout.on("data", (d) => (workerdLog += d));
    child.stderr.on("data", (d) => (workerdLog += d));
    child.once("error", fail);
    child.once("exit", (code, signal) => fail(new Error(`workerd exited early (code ${code}, signal ${signal})`)));
    let control = "";
    child.stdio[3].on("data", (d) => {
      control += d;
      for (const line of control.split("\n").slice(0, -1)) {
        const event = JSON.parse(line);
        if (event.event === "listen" && event.socket === "http") {
          clearTimeout(timer);
          resolve(event.port);
        }
      }
    });
  });
}

async function stopWorkerd() {
  const child = workerd;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await Promise.race([exited, new Promise((r) => setTimeout(r, 6_000))]);
  clearTimeout(timer);
}

// If the test process dies some other way, don't leave workerd behind.
process.once("exit", () => {
  if (workerd && workerd.exitCode === null && workerd.signalCode === null) workerd.kill("SIGKILL");
});

// Calls the worker; every call has a timeout.
async function call(path, body) {
  const res = await fetch(base + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `worker ${path} answered ${res.status}: ${text}\n--- workerd output\n${workerdLog}`);
  return JSON.parse(text);
}

// The same scenario in Node, through the package's Node entry, for comparison.
async function nodeFetch({ url, init, options = {}, callOptions }) {
  const records = [];
  const client = new node.RetryClient({ ...options, onAttempt: (r) => records.push(r) });
  try {
    const res = await client.fetch(url, init, callOptions);
    return { ok: true, status: res.status, body: await res.text(), records };
  } catch (err) {
    if (!(err instanceof node.RetryError)) throw err;
    return { ok: false, error: { reason: err.reason, message: err.message, records: err.records }, records };
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  mock = await startMockExchange({ port: 0 });
  dir = await installFresh();
  node = await importNodeEntry(dir);
  writeConfig();
  base = `http://127.0.0.1:${await startWorkerd()}`;
}, { timeout: 600_000 }); // includes the wasm build (and waiting for another one) when pkg/ is stale

after(async () => {
  await stopWorkerd();
  await mock?.close();
  await removeDir(dir);
});

test("the worker loads the package's workerd entry as shipped (modules from the installed tarball)", async () => {
  const { modules, entryPath } = workerdModules(join(dir, "node_modules", "retryline"));
  assert.equal(entryPath, "js/workerd.js");
  assert.deepEqual([...modules.entries()].sort(), [
    ["js/retry-error.js", "esModule"],
    ["js/workerd.js", "esModule"],
    ["pkg/retryline.js", "esModule"],
    ["pkg/retryline_bg.wasm", "wasm"],
  ]);
  assert.deepEqual(await call("/health"), {
    exports: { RetryClient: "function", RetryError: "function", Budget: "function", replay: "function" },
  });
});

test("(1) replay of the worked example in workerd equals Node's replay, JSON for JSON", async (t) => {
  const inWorkerd = await call("/replay", WORKED_EXAMPLE);
  const inNode = JSON.parse(JSON.stringify(node.replay(WORKED_EXAMPLE)));
  assert.deepEqual(inWorkerd, inNode);
  // And the repo's own js/node.js, when its pkg/ is still the build that was packed.
  const repoNode = await importRepoNodeEntry(dir);
  if (repoNode) assert.deepEqual(inWorkerd, JSON.parse(JSON.stringify(repoNode.replay(WORKED_EXAMPLE))));
  else t.diagnostic("the repo's pkg/ was rebuilt since the pack (someone else's build): compared with the tarball's js/node.js only");
  // And it is the article's answer.
  assert.equal(inWorkerd.wireRequests, 4);
  assert.deepEqual(inWorkerd.records.filter((r) => r.decision === "sent").map((r) => r.startMs), [0, 1900, 4200, 6900]);
  assert.deepEqual(inWorkerd.stop, { reason: "deadline", atMs: 8400 });
});

test("(2) 429 with Retry-After: 1 then 200: the retry comes ≥ 1000 ms after the 429, as in Node", async () => {
  const scenario = (path) => ({
    url: mock.url + path,
    options: { policy: { baseDelayMs: 50, maxDelayMs: 100, jitter: "none", maxAttempts: 3, attemptTimeoutMs: 5000, deadlineMs: 10000 }, seed: 7 },
  });
  const gap = (path) => {
    const reqs = mock.requests({ path });
    assert.equal(reqs.length, 2, `${path}: two requests at the mock`);
    assert.equal(reqs[0].status, 429);
    assert.equal(reqs[1].status, 200);
    return reqs[1].receivedAtMs - reqs[0].respondedAtMs;
  };

  mock.script("/api/v3/depth-workerd", [{ status: 429, retryAfter: 1 }, { status: 200 }]);
  const w = await call("/fetch", scenario("/api/v3/depth-workerd"));
  assert.equal(w.ok, true, JSON.stringify(w.error));
  assert.equal(w.status, 200);
  const workerdGap = gap("/api/v3/depth-workerd");

  mock.script("/api/v3/depth-node", [{ status: 429, retryAfter: 1 }, { status: 200 }]);
  const n = await nodeFetch(scenario("/api/v3/depth-node"));
  assert.equal(n.ok, true);
  const nodeGap = gap("/api/v3/depth-node");

  console.log(`429 → retry gap at the mock (server clock): workerd ${workerdGap.toFixed(1)} ms, node ${nodeGap.toFixed(1)} ms`);
  assert.ok(workerdGap >= 1000, `workerd retried ${workerdGap} ms after the 429 was answered: Retry-After: 1 was shortened`);
  assert.ok(nodeGap >= 1000, `node retried ${nodeGap} ms after the 429 was answered`);
  assert.ok(workerdGap < 1800, `workerd waited ${workerdGap} ms: far more than the provider asked for`);

  // The same schedule: the records agree on everything but the measured times.
  const shape = (records) => records.map(({ attempt, decision, status, outcome, retryAfter, providerWaitMs, plannedWaitMs, windowMs, sampledDelayMs, reason }) =>
    ({ attempt, decision, status, outcome, retryAfter, providerWaitMs, plannedWaitMs, windowMs, sampledDelayMs, reason }));
  assert.deepEqual(shape(w.records), shape(n.records));
  assert.equal(w.records[1].retryAfter, "seconds");
  assert.ok(w.records[1].plannedWaitMs >= 1000 && w.records[1].startMs >= 1000, JSON.stringify(w.records[1]));
});

test("(3) a hanging route, attemptTimeoutMs 300, maxAttempts 2 → RetryError 'attempts' (instanceof inside the worker), 2 requests", async () => {
  mock.script("/api/v3/hang", [{ action: "hang" }, { action: "hang" }]);
  const t0 = performance.now();
  const w = await call("/fetch", {
    url: mock.url + "/api/v3/hang",
    options: { policy: { attemptTimeoutMs: 300, maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10, jitter: "none", deadlineMs: 10000 } },
  });
  const elapsed = performance.now() - t0;
  assert.equal(w.ok, false);
  assert.equal(w.error.reason, "attempts", w.error.message);
  assert.equal(w.error.instanceofRetryError, true, "instanceof RetryError inside workerd");
  assert.equal(w.error.instanceofError, true);
  assert.equal(w.error.name, "RetryError");
  assert.deepEqual(w.error.records.filter((r) => r.decision === "sent").map((r) => r.outcome), ["timeout", "timeout"]);
  assert.equal(mock.requests({ path: "/api/v3/hang" }).length, 2);
  assert.ok(elapsed >= 600 && elapsed < 5000, `two 300 ms timeouts took ${elapsed} ms`);
});

test("(4) invalid options throw RangeError/TypeError naming the field inside workerd, as in Node", async () => {
  const num = (s) => ({ $number: s }); // NaN/Infinity over JSON
  const cases = [
    [{ policy: { maxAttempts: 0 } }, "RangeError", "maxAttempts"],
    [{ policy: { baseDelayMs: -1 } }, "RangeError", "baseDelayMs"],
    [{ policy: { maxDelayMs: num("NaN") } }, "RangeError", "maxDelayMs"],
    [{ policy: { attemptTimeoutMs: num("Infinity") } }, "RangeError", "attemptTimeoutMs"],
    [{ policy: { deadlineMs: 100, attemptTimeoutMs: 1000 } }, "RangeError", "deadlineMs"],
    [{ policy: { jitter: "sometimes" } }, "TypeError", "jitter"],
    [{ policy: { retryBudget: 3 } }, "TypeError", "retryBudget"],
    [{ retries: 3 }, "TypeError", "retries"],
    [{ seed: "x" }, "TypeError", "seed"],
  ];
  const revive = (v) => JSON.parse(JSON.stringify(v), (_k, x) => (x && typeof x === "object" && "$number" in x ? Number(x.$number) : x));
  for (const [options, kind, field] of cases) {
    const w = await call("/construct", options);
    const label = JSON.stringify(options);
    assert.equal(w.threw, true, `${label} was accepted in workerd`);
    assert.equal(w.name, kind, `${label}: ${w.name}: ${w.message}`);
    assert.equal(kind === "RangeError" ? w.instanceofRangeError : w.instanceofTypeError, true, `${label}: a real ${kind} inside workerd`);
    assert.ok(w.message.includes(field), `${label}: the message must name ${field}: ${w.message}`);
    let nodeErr;
    try { new node.RetryClient(revive(options)); } catch (err) { nodeErr = err; }
    assert.deepEqual({ name: w.name, message: w.message }, { name: nodeErr?.name, message: nodeErr?.message }, `${label}: same error as Node`);
  }
});

test("(5) an order whose response is dropped ends unknown-outcome after exactly 1 server request", async () => {
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const w = await call("/fetch", {
    url: `${mock.url}${ORDER}`,
    init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ symbol: "BTCUSDT", side: "BUY", quantity: "1", newClientOrderId: "wd-order-1" }) },
    options: { policy: { baseDelayMs: 10, maxDelayMs: 10, jitter: "none", maxAttempts: 3, attemptTimeoutMs: 2000, deadlineMs: 10000 } },
    callOptions: { key: "wd-order-1" },
  });
  assert.equal(w.ok, false);
  assert.equal(w.error.reason, "unknown-outcome", w.error.message);
  assert.equal(w.error.instanceofRetryError, true);
  await sleep(300); // a wrongful resubmission would show up here
  const posts = mock.requests({ path: ORDER, method: "POST" });
  assert.equal(posts.length, 1, "the order was never resubmitted");
  assert.equal(posts[0].outcome, "dropped");
  assert.equal(mock.orders.get("wd-order-1")?.duplicates, 0);
});
