// Runs every side-by-side comparison in one process run, prints the tables, and writes
// bench/results/latest.json and latest.md. See bench/README.md.
//
//   node bench/run.mjs                 full run (about 1–2 minutes), writes results/
//   node bench/run.mjs --quick         fewer requests and rounds; prints only
//   node bench/run.mjs --only storm,size
//                                      some sections (decisions, wrapper-cost, overhead, retry-after, storm, size); prints only
//   --no-build                         measure pkg/ as it is, even if src/ is newer
import os from "node:os";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ensureBuilt } from "./lib/ensure-built.mjs";
import { machineInfo } from "./lib/machine.mjs";
import { renderMarkdown } from "./lib/report.mjs";

const SECTIONS = ["decisions", "wrapper-cost", "overhead", "retry-after", "storm", "size"];
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

// Whatever happens, the run ends: mock processes are killed by mock-process.mjs's exit hook.
const watchdog = setTimeout(() => (log("bench: still running after 4 minutes, giving up"), process.exit(1)), 240_000);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));

const started = performance.now();
if (!args["no-build"] && ensureBuilt()) log("bench: rebuilt pkg/");

// Imported after the build: the library reads pkg/ when it is imported.
const { withMockProcess } = await import("./lib/mock-process.mjs");
const { contenders } = await import("./lib/contenders.mjs");
const { measureDecisions, notComparable } = await import("./decisions.mjs");
const { measureWrapperCost } = await import("./wrapper-cost.mjs");
const { measureOverhead } = await import("./overhead.mjs");
const { measureRetryAfter } = await import("./retry-after.mjs");
const { measureStorm } = await import("./storm.mjs");
const { measureSize } = await import("./size.mjs");
const { versionOf } = await import("./lib/versions.mjs");

const settings = args.quick
  ? { overhead: { requests: 200, rounds: 2, warmup: 20 }, decisions: { rounds: 2, msPerRound: 50 }, wrapperCost: { rounds: 2, msPerRound: 50 } }
  : { overhead: { requests: 2000, rounds: 5, warmup: 200 }, decisions: { rounds: 5, msPerRound: 200 }, wrapperCost: { rounds: 5, msPerRound: 200 } };

const results = {
  machine: machineInfo(),
  versions: Object.fromEntries(["retryline", ...new Set(contenders.flatMap((c) => c.packages)), "esbuild"].map((p) => [p, versionOf(p)])),
  configurations: contenders.map((c) => ({ id: c.id, name: c.name, config: c.config({ attempts: 3, baseDelayMs: 100 }) })),
};

if (wanted("decisions")) {
  log("bench: (b) decision cost");
  results.decisions = { settings: settings.decisions, rows: await measureDecisions(settings.decisions), notComparable };
}
if (wanted("wrapper-cost")) {
  log("bench: (a') wrapper cost with a stub fetch");
  results.wrapperCost = { settings: settings.wrapperCost, rows: await measureWrapperCost(settings.wrapperCost) };
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
if (wanted("size")) {
  log("bench: (d) size");
  results.size = await measureSize();
}

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
