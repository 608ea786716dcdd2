// npm start: builds the package if needed, replays the reference article's worked example and
// prints it as the article's table, then builds the dashboard (www/) and serves it on 127.0.0.1
// with the mock exchange beside it, until Ctrl-C.
//   npm start [-- --port 5173]     (--port 0: any free port)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { serveDashboard } from "./www.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({ options: { port: { type: "string", default: "5173" } } });
execFileSync(process.execPath, ["scripts/build.mjs", "--quiet"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
const { replay } = await import("../js/node.js");

const spec = JSON.parse(readFileSync(`${root}/examples/worked_example.json`, "utf8"));
const report = replay(spec);
const s = (ms) => (ms / 1000).toFixed(1);
const p = spec.policy;

console.log(`Worked example: deadline ${s(p.deadlineMs)} s, attempt timeout ${s(p.attemptTimeoutMs)} s, ` +
  `${p.maxAttempts} attempts, base ${s(p.baseDelayMs)} s, cap ${s(p.maxDelayMs)} s, ${p.jitter} jitter\n`);
const rows = report.records.map((r) => ({
  attempt: r.attempt === 1 ? "1: initial" : `${r.attempt}: retry ${r.attempt - 1}`,
  "window / draw": r.windowMs === null ? "none" : `${s(r.windowMs)} / ${s(r.sampledDelayMs)}`,
  "wait before call": r.providerWaitMs > r.sampledDelayMs ? `${s(r.plannedWaitMs)} s: provider minimum` : `${s(r.plannedWaitMs)} s`,
  "start → finish, s": `${s(r.startMs)} → ${s(r.endMs)}`,
  result: r.decision === "refused" ? `refused: ${r.reason}` : r.status ? `${r.status} after ${s(r.endMs - r.startMs)} s` : r.outcome,
}));
const columns = Object.keys(rows[0]);
const width = (c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length));
const line = (cells) => cells.map((cell, i) => String(cell).padEnd(width(columns[i]))).join("  ");
console.log(line(columns));
console.log(columns.map((c) => "─".repeat(width(c))).join("  "));
for (const row of rows) console.log(line(columns.map((c) => row[c])));
console.log(`\n${report.wireRequests} wire requests; stopped "${report.stop.reason}" at ${s(report.stop.atMs)} s ` +
  `(the next attempt would end at ${s(report.records.at(-1).endMs)} s, past the ${s(p.deadlineMs)} s deadline).`);

const dashboard = await serveDashboard({ port: Number(values.port) });
console.log(`\nretryline dashboard: ${dashboard.url}   (mock exchange: ${dashboard.exchange}; Ctrl-C stops both)`);
const stop = async () => {
  await dashboard.close();
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
