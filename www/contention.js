// The contention panel: retryline's contention simulator (src/contention, compiled to its own
// small wasm, www/sim) run here in the page, client count by client count, drawn beside the
// published model's figures.
import init, { contention, strategies } from "./sim/pkg/retryline_sim.js";
import published from "../examples/contention_published.json";
import { contentionSvg } from "./contention-chart.js";

const CLIENTS = Array.from({ length: 19 }, (_, i) => (i + 1) * 10);
const CAPTION = "solid: simulated here, in this page · dashed: the published model run from its source";

/** Runs every point (`runs` contentions each), redrawing as it goes; resolves with the rows. */
export async function runContention(host, { runs = 100, clients = CLIENTS } = {}) {
  await init();
  const rows = [];
  const started = performance.now();
  for (const n of clients) {
    for (const strategy of strategies()) {
      const [calls, completionMs, gaveUp] = contention(n, strategy, runs, 1);
      rows.push({ clients: n, strategy, calls, completionMs, gaveUp });
    }
    host.innerHTML = contentionSvg(rows, published.filter((r) => r.clients <= n), CAPTION);
    host.dataset.points = String(rows.length);
    await new Promise((r) => setTimeout(r, 0)); // let the page paint between client counts
  }
  host.insertAdjacentHTML("beforeend", `<p class="about">${rows.length} points, ${runs} runs each, in ${((performance.now() - started) / 1000).toFixed(1)} s.</p>`);
  return rows;
}
