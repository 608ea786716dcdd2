// Runs every side-by-side comparison in one process run, prints the tables, and writes
// bench/results/latest.json and latest.md. See bench/README.md.
//
//   node bench/run.mjs                 full run (about 3 minutes), writes results/
//   node bench/run.mjs --quick         fewer requests, rounds, calls and samples; prints only
//   node bench/run.mjs --only storm,size
//                                      some sections (see SECTIONS); prints only
//   --no-build                         measure pkg/ as it is, even if src/ is newer
import os from "node:os";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/ensure-built.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { renderMarkdown } from "./lib/report.mjs";

const SECTIONS = ["decisions", "wrapper-cost", "per-call", "memory", "overhead", "retry-after", "storm", "reconnect-storm", "breaker", "size", "bundle", "cold-start"];
const { values: args } = parseArgs({
  options: { quick: { type: "boolean", default: false }, only: { type: "string" }, "no-build": { type: "boolean", default: false } },
});
const only = args.only ? args.only.split(",").map((s) => s.trim()) : SECTIONS;
for (const s of only) {
  if (!SECTIONS.includes(s)) {
    process.stderr.write(`bench: --only: unknown section ${s} (known: ${SECTIONS.join(", ")})\n`);
    process.exit(2);
  }
}
const wanted = (s) => only.includes(s);
const writesResults = !args.quick && !args.only;
const log = (line) => process.stderr.write(`${line}\n`);

// Whatever happens, the run ends: child processes (mock exchange, memory children, vite, workerd,
// chromium) are killed by their exit hooks, and the fresh project's folder is removed.
const WATCHDOG_MS = 10 * 60_000;
const watchdog = setTimeout(() => (log(`bench: still running after ${WATCHDOG_MS / 60_000} minutes, giving up`), process.exit(1)), WATCHDOG_MS);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));

const started = performance.now();
let buildFailed = null;
if (!args["no-build"]) {
  try {
    if (ensureBuilt()) log("bench: rebuilt pkg/");
  } catch (error) {
    // Someone's src/ may be mid-edit: a pkg/ that is whole is measured as it is, and the results say so.
    buildFailed = error.message.split("\n")[0];
    log(`bench: node scripts/build.mjs failed (${buildFailed}); measuring pkg/ as it is`);
  }
}
// pkg/ may be in the middle of someone else's rebuild: wait for it to be whole and consistent.
const { freshProject, pkgFingerprint, waitForPkg } = await import("./lib/fresh-project.mjs");
const builds = { start: await waitForPkg({ log }), ...(buildFailed ? { buildFailed } : {}) };

// Imported after the build: the library reads pkg/ when it is imported.
const { withMockProcess } = await import("./lib/mock-process.mjs");
const { contenders } = await import("./lib/contenders.mjs");
const { measureDecisions, notComparable } = await import("./decisions.mjs");
const { measureWrapperCost } = await import("./wrapper-cost.mjs");
const { measureOverhead } = await import("./overhead.mjs");
const { measureRetryAfter } = await import("./retry-after.mjs");
const { measureStorm } = await import("./storm.mjs");
const { measureReconnectStorm } = await import("./reconnect-storm.mjs");
const { measureBreaker } = await import("./breaker.mjs");
const { measureSize } = await import("./size.mjs");
const { measurePerCall, perCallContenders, OVER_P_RETRY_US } = await import("./per-call.mjs");
const { measureMemory } = await import("./memory.mjs");
const { measureBundle } = await import("./bundle.mjs");
const { floorSize, buildFloor } = await import("./floor.mjs");
const { measureColdStart } = await import("./cold-start.mjs");
const { versionOf } = await import("./lib/versions.mjs");

const settings = args.quick
  ? {
      overhead: { requests: 200, rounds: 2, warmup: 20 }, decisions: { rounds: 2, msPerRound: 50 }, wrapperCost: { rounds: 2, msPerRound: 50 },
      perCall: { rounds: 2, msPerRound: 50 }, memory: { calls: 10_000, batch: 100 },
      reconnectStorm: { clients: 100, refusalMs: 2000, holdMs: 1000, capMs: 30_000, connectTimeoutMs: 30_000, messages: 10_000, rounds: 2 },
      breaker: { reads: 50, everyMs: 200, wavesMs: 6000, outageMs: 3000, capMs: 15_000, drainMs: 10_000, attemptTimeoutMs: 1000 },
      coldStart: { nodeSamples: 3, chromiumSamples: 3, workerdSamples: 3, cpuThrottles: [4, 1] },
    }
  : {
      overhead: { requests: 2000, rounds: 5, warmup: 200 }, decisions: { rounds: 5, msPerRound: 200 }, wrapperCost: { rounds: 5, msPerRound: 200 },
      perCall: { rounds: 5, msPerRound: 300 }, memory: { calls: 100_000, batch: 100 },
      reconnectStorm: { clients: 1000, refusalMs: 5000, holdMs: 6000, capMs: 120_000, connectTimeoutMs: 60_000, messages: 100_000, rounds: 5 },
      breaker: { reads: 200, everyMs: 200, wavesMs: 20_000, outageMs: 10_000, capMs: 45_000, drainMs: 15_000, attemptTimeoutMs: 1000 },
      coldStart: { nodeSamples: 10, chromiumSamples: 10, workerdSamples: 10, cpuThrottles: [4, 1] },
    };

const results = {
  machine: machineInfo(),
  versions: Object.fromEntries(
    ["retryline", ...new Set(contenders.flatMap((c) => c.packages)), "opossum", "esbuild", "vite", "playwright-core", "workerd"].map((p) => [p, versionOf(p)]),
  ),
  configurations: contenders.map((c) => ({ id: c.id, name: c.name, config: c.config({ attempts: 3, baseDelayMs: 100 }) })),
};

if (wanted("per-call") || wanted("size") || wanted("bundle")) {
  // The floor of the shape (bench/floor.mjs): built once (cargo, in target/floor), measured for size here
  // and per call in per-call.mjs.
  log("bench: the floor of the shape (cargo build --features abi-fetch, wasm-opt as scripts/build.mjs)");
  try {
    buildFloor({ log });
    results.floor = { size: await floorSize({ log }), driverLines: readFileSync(new URL("./floor/driver.js", import.meta.url), "utf8").split("\n").length - 1 };
  } catch (error) {
    log(`bench: the floor: ${error.message.split("\n")[0]}`);
    results.floor = { size: { error: error.message.split("\n")[0] } };
  }
}
if (wanted("decisions")) {
  log("bench: (b) decision cost");
  results.decisions = { settings: settings.decisions, rows: await measureDecisions(settings.decisions), notComparable };
}
if (wanted("wrapper-cost")) {
  log("bench: (a') wrapper cost with a stub fetch");
  results.wrapperCost = { settings: settings.wrapperCost, rows: await measureWrapperCost(settings.wrapperCost), overPRetryUs: OVER_P_RETRY_US };
}
if (wanted("per-call")) {
  log("bench: per-call work with an instant stub fetch (success and retry paths)");
  results.perCall = await measurePerCall({ ...settings.perCall, log });
  results.perCall.configurations = Object.fromEntries(Object.entries(perCallContenders).map(([path, list]) => [path, list.map((c) => ({ name: c.name, config: c.config }))]));
}
if (wanted("memory")) {
  log(`bench: memory per pending operation (${settings.memory.calls} pending; about a minute and a half)`);
  results.memory = await measureMemory({ ...settings.memory, log });
  builds.memory = results.memory.fingerprint;
}
if (wanted("overhead") || wanted("retry-after") || wanted("storm")) {
  await withMockProcess(async (mock) => {
    if (wanted("overhead")) {
      log("bench: (a) overhead per successful request");
      results.overhead = { settings: settings.overhead, rows: await measureOverhead(mock, { ...settings.overhead, log }) };
      await mock.reset();
    }
    if (wanted("retry-after")) {
      log("bench: (c) 429 + Retry-After");
      results.retryAfter = await measureRetryAfter(mock, { log });
      await mock.reset();
    }
    if (wanted("storm")) {
      log("bench: (c) storm against an always-503 route");
      results.storm = await measureStorm(mock, { log });
    }
  });
}
if (wanted("reconnect-storm")) {
  const r = settings.reconnectStorm;
  log(`bench: (c) reconnect storm: ${r.clients} WebSocket clients dropped, 503 for ${r.refusalMs / 1000} s (one library at a time; up to ${r.capMs / 1000} s each)`);
  results.reconnectStorm = await measureReconnectStorm({ ...r, log });
}
if (wanted("breaker")) {
  const b = settings.breaker;
  log(`bench: (c) breakers: ${b.reads} reads every ${b.everyMs} ms for ${b.wavesMs / 1000} s, the route hanging for the first ${b.outageMs / 1000} s (one contender at a time; up to ${b.capMs / 1000} s each)`);
  results.breaker = await measureBreaker(b, { log });
}
if (wanted("size")) {
  log("bench: (d) size");
  results.size = await measureSize();
  const { measureInstall } = await import("./install.mjs");
  results.size.install = measureInstall();
}
if (wanted("bundle") || wanted("cold-start")) {
  // The package as a user installs it: npm pack + npm install into a fresh project (no build).
  log("bench: packing the package and installing it in a fresh project");
  let project = null;
  try {
    project = await freshProject({ extraDeps: ["vite", "ky", "p-retry"], log });
  } catch (error) {
    log(`bench: ${error.message.split("\n")[0]}`);
    const failed = { error: `the package could not be packed and installed: ${error.message.split("\n")[0]}` };
    if (wanted("bundle")) results.bundle = failed;
    if (wanted("cold-start")) results.coldStart = failed;
  }
  if (project) {
    builds.packed = project.fingerprint;
    const { launchChromium } = await import("./lib/chromium.mjs");
    let browser = null;
    try {
      browser = await launchChromium();
    } catch (error) {
      log(`bench: chromium did not start: ${error.message.split("\n")[0]}`);
    }
    try {
      if (wanted("bundle")) {
        log("bench: bundle: Vite builds of one-call pages");
        results.bundle = await measureBundle(project, { browser, log });
      }
      if (wanted("cold-start")) {
        log("bench: cold start in Node, Chromium and workerd");
        results.coldStart = await measureColdStart(project, { browser, ...settings.coldStart, log });
      }
    } finally {
      await browser?.close();
      project.close();
    }
  }
}
builds.end = pkgFingerprint();
results.builds = builds;

results.machine.loadAverageAfter = os.loadavg();
results.machine.durationS = (performance.now() - started) / 1000;
const markdown = renderMarkdown(results);
process.stdout.write(markdown);

if (writesResults) {
  const dir = new URL("./results/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  // Written beside and renamed over, so a reader never sees half a file (*.tmp is git-ignored).
  for (const [name, text] of [["latest.json", JSON.stringify(results, null, 2) + "\n"], ["latest.md", markdown]]) {
    const tmp = new URL(`${name}.tmp`, dir);
    writeFileSync(tmp, text);
    renameSync(tmp, new URL(name, dir));
  }
  log("bench: wrote bench/results/latest.json and latest.md");
} else {
  log("bench: partial or quick run: bench/results/ left as it was");
}
clearTimeout(watchdog);
