// The dashboard: scenarios on the timeline, their records, the worksheet of the page's
// configuration (config.js, computed by the server), the stream panel, and the budget widgets. The mock exchange's URL comes from the server that serves this page (npm start). No
// panel resets the mock: each run has routes of its own (exchange.js), so panels run side by side.
import { scenarios } from "./scenarios.js";
import { drawTimeline } from "./timeline.js";
import { drawRecords } from "./records.js";
import { runWidgets } from "./budget.js";
import { runContention } from "./contention.js";
import { mockExchange } from "./exchange.js";
import { streamPanel } from "./stream.js";
import { drawWorksheet, markFamilies } from "./worksheet.js";
import { drawTrace } from "./trace.js";

const $ = (id) => document.getElementById(id);
const [{ exchange }, worksheet] = await Promise.all(["./config.json", "./worksheet.json"].map(async (u) => (await fetch(u)).json()));
drawWorksheet($("worksheet"), worksheet);

const ex = mockExchange(exchange);

for (const s of scenarios) $("scenario").append(new Option(s.name, s.id));
let last = null;
let runCount = 0;

function showRecords() {
  const op = last?.operations[$("operation").selectedIndex];
  drawRecords($("records"), op?.records ?? []);
}

async function run() {
  const scenario = scenarios.find((s) => s.id === $("scenario").value);
  $("run").disabled = true;
  $("status").textContent = "running…";
  $("about").textContent = scenario.about;
  try {
    last = await scenario.run(ex);
    const main = last.operations[0];
    $("summary").innerHTML = `<b data-wire>${last.wire}</b> wire requests · ` +
      last.operations.map((op) => `${op.label}: <b data-stop>${op.stop.reason} at ${(op.stop.atMs / 1000).toFixed(1)} s</b>`).join(" · ");
    Object.assign($("summary").dataset, { scenario: scenario.id, path: last.path, runs: String(++runCount) });
    drawTimeline($("timeline"), last.operations);
    if (last.spans !== undefined) drawTrace($("trace"), last.spans);
    $("operation").replaceChildren(...last.operations.map((op, i) => new Option(op.label, String(i))));
    showRecords();
    markFamilies($("worksheet"), new Set(last.operations.flatMap((op) => op.records.map((r) => r.family))));
    $("status").textContent = `done: ${main.stop.reason}`;
  } catch (error) {
    $("status").textContent = `failed: ${error.message}`;
  } finally {
    $("run").disabled = false;
  }
}

$("run").addEventListener("click", run);
$("operation").addEventListener("change", showRecords);
$("run-budget").addEventListener("click", async () => {
  $("run-budget").disabled = true;
  try {
    await runWidgets($("budget"), ex);
  } finally {
    $("run-budget").disabled = false;
  }
});
$("run-contention").addEventListener("click", async () => {
  $("run-contention").disabled = true;
  try {
    await runContention($("contention"));
  } finally {
    $("run-contention").disabled = false;
  }
});
streamPanel($, ex);
// The page shows a run from the start: the scenario the URL names, else the worked example.
$("scenario").value = new URLSearchParams(location.search).get("scenario") ?? "worked-example";
if ($("scenario").selectedIndex < 0) $("scenario").value = "worked-example";
run();
