// The npm tarball, installed in a fresh project, running in workerd (Cloudflare's runtime).
// Run: node --test tests/js/package/workerd.test.mjs
//
// No bundler: the capnp config lists the installed package's files as workerd modules, taken
// verbatim from <fresh>/node_modules/retryline. Which files, and as what, is derived from the
// package as shipped (workerdModules in workerd-harness.mjs, which also explains how they are
// named for workerd). If the tarball lacked a file, or the export map pointed elsewhere, the
// worker would not start.
//
// The Node reference is the package's own Node entry from the same tarball (see importNodeEntry in
// pack.mjs), and also the repo's js/node.js whenever the repo's pkg/ is still the packed build.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { importNodeEntry, importRepoNodeEntry, repoRoot } from "./pack.mjs";
import { workerdModules, capnpModules, startPackageInWorkerd, sleep } from "./workerd-harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const WORKED_EXAMPLE = JSON.parse(readFileSync(join(repoRoot, "examples", "worked_example.json"), "utf8"));
const ORDER = "/api/v3/order";

let rig; // startPackageInWorkerd: { dir, mock, worker, close() }
let dir; // the fresh project
let mock;
let worker; // the running workerd
let node; // the package's Node entry (js/node.js) from the same tarball: the reference

function config(dir) {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .retrylineWorker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const retrylineWorker :Workerd.Worker = (
  modules = ${capnpModules(dir, join(here, "fixtures", "workerd", "worker.js"))},
  compatibilityDate = "2025-09-01",
  globalOutbound = "internet",
);
`;
}

// Calls the worker (POST JSON, or GET without a body); every call has a timeout.
const call = (path, body) => worker.call(path, body);

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

before(async () => {
  ({ dir, mock, worker } = rig = await startPackageInWorkerd(config));
  node = await importNodeEntry(dir);
}, { timeout: 600_000 }); // includes the wasm build (and waiting for another one) when pkg/ is stale

after(() => rig?.close());

test("the worker loads the package's workerd entry as shipped (modules from the installed tarball)", async () => {
  const { modules, entryPath } = workerdModules(join(dir, "node_modules", "retryline"));
  assert.equal(entryPath, "js/workerd.js");
  // What a worker runs, and only that: the server wasm (no tab sharing, no Durable Object's budget).
  const wasm = [...modules].filter(([, kind]) => kind === "wasm").map(([path]) => path);
  assert.deepEqual(wasm, ["pkg/server.wasm"]);
  const scripts = [...modules.keys()].filter((path) => path.endsWith(".js"));
  assert.ok(scripts.every((path) => path.startsWith("js/")), scripts.join(", "));
  assert.ok(scripts.includes("js/platform/coordinator.js"), "the coordinator client is there");
  assert.ok(!scripts.includes("js/platform/tabs.js"), "tab sharing is not");
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
