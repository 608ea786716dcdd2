// The dashboard: scenarios on the timeline, their records, and the budget widgets. The mock
// exchange's URL comes from the server that serves this page (npm start).
import { scenarios } from "./scenarios.js";
import { drawTimeline } from "./timeline.js";
import { drawRecords } from "./records.js";
import { runWidgets } from "./budget.js";
import { runContention } from "./contention.js";

const $ = (id) => document.getElementById(id);
const { exchange } = await (await fetch("./config.json")).json();

/** The mock exchange, as the scenarios use it: script routes, read its request log. */
const ex = {
  url: exchange,
  async script(path, behaviours, method) {
    await fetch(`${exchange}/__mock/reset`, { method: "POST" }).then(() => {}, () => {});
    const res = await fetch(`${exchange}/__mock/script`, { method: "POST", body: JSON.stringify({ path, method, behaviours }) });
    if (!res.ok) throw new Error(`the mock refused the script: ${await res.text()}`);
  },
  requests: async (path, method) => (await fetch(`${exchange}/__mock/requests?path=${encodeURIComponent(path)}${method ? `&method=${method}` : ""}`)).json(),
  wire: async (path, method) => (await ex.requests(path, method)).length,
};

for (const s of scenarios) $("scenario").append(new Option(s.name, s.id));
let last = null;

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
    $("summary").dataset.scenario = scenario.id;
    drawTimeline($("timeline"), last.operations);
    $("operation").replaceChildren(...last.operations.map((op, i) => new Option(op.label, String(i))));
    showRecords();
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
    await fetch(`${exchange}/__mock/reset`, { method: "POST" });
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
const wanted = new URLSearchParams(location.search).get("scenario");
if (wanted) {
  $("scenario").value = wanted;
  run();
}
