// The timeline: per operation, each attempt as a bar from its start to its end, the wait before
// it split into draw, provider minimum and budget wait, refused proposals dashed where they would
// have gone, the deadline as a line and the stop reason written at the stop.
const SVG = "http://www.w3.org/2000/svg";
const ROW = 34;
const LEFT = 130;
const WIDTH = 1000;

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

const colour = (r) => {
  if (r.decision === "refused") return "none";
  if (r.status >= 200 && r.status < 400) return "#2fa66a";
  if (r.status === 429 || r.status === 418) return "#8c5bd6";
  return "#e0613d";
};

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** What a record's bar says: a hedge says so, and in a hedged race whether it won. */
function label(r) {
  const race = r.winner === null || r.winner === undefined ? "" : r.winner === r.attempt ? " (won)" : " (lost)";
  const hedge = r.hedge ? "hedge " : "";
  if (r.decision === "refused") return `${hedge}refused: ${r.reason}`;
  if (r.status) return `${hedge}${r.status}${race}`;
  return `${hedge}${r.outcome ?? ""}${race}`;
}

/** Draws `operations` ([{ label, records, stop, deadlineMs }]) into `host`. */
export function drawTimeline(host, operations) {
  const span = Math.max(1000, ...operations.flatMap((op) => [op.deadlineMs ?? 0, ...op.records.map((r) => r.endMs ?? r.startMs)]).filter((x) => x < 50_000));
  const x = (ms) => LEFT + (Math.min(ms, span) / span) * (WIDTH - LEFT - 20);
  const height = operations.length * ROW + 30;
  const svg = el("svg", { viewBox: `0 0 ${WIDTH} ${height}`, width: "100%", role: "img", "aria-label": "attempt timeline" });
  for (let s = 0; s <= span / 1000; s += span > 20_000 ? 5 : 1) {
    svg.append(el("line", { x1: x(s * 1000), x2: x(s * 1000), y1: 0, y2: height - 18, stroke: "#eef0f5" }));
    svg.append(el("text", { x: x(s * 1000), y: height - 4, "text-anchor": "middle" }, `${s}s`));
  }
  operations.forEach((op, row) => {
    const y = row * ROW + 8;
    svg.append(el("text", { x: 4, y: y + 14 }, op.label));
    if (op.deadlineMs && op.deadlineMs <= span) {
      svg.append(el("line", { x1: x(op.deadlineMs), x2: x(op.deadlineMs), y1: y - 4, y2: y + 24, stroke: "#d12d2d", "stroke-width": 2 }));
    }
    for (const r of op.records) {
      // The wait before this attempt, from its decision: the backoff window (outlined) and the
      // draw within it, the provider's minimum over them, then any wait for the budget.
      const from = r.decidedAtMs ?? r.startMs;
      const seg = (start, ms, attrs) => ms > 0 && svg.append(el("rect", { x: x(start), y: y + 16, width: Math.max(1, x(start + ms) - x(start)), height: 5, ...attrs }));
      seg(from, r.windowMs ?? 0, { fill: "none", stroke: "#9fb0dc", "stroke-width": 0.8 });
      seg(from, r.sampledDelayMs ?? 0, { fill: "#c9d3ee" });
      seg(from, Math.min(r.providerWaitMs ?? 0, r.plannedWaitMs ?? 0), { fill: "#f2c14e" });
      const budgetWait = r.budgetWaitMs ?? 0;
      seg(from + (r.plannedWaitMs ?? 0) - budgetWait, budgetWait, { fill: "#7fc8d9" });
      const end = r.endMs ?? r.startMs;
      const bar = el("rect", {
        x: x(r.startMs), y, width: Math.max(2, x(end) - x(r.startMs)), height: 14, rx: 3, fill: colour(r),
        ...(r.decision === "refused" ? { stroke: "#8a94a8", "stroke-dasharray": "4 3", "stroke-width": 1.5 } : {}),
      });
      bar.append(el("title", {}, `attempt ${r.attempt}: ${label(r)} (${seconds(r.startMs)} → ${seconds(end)})`));
      svg.append(bar);
      svg.append(el("text", { x: x(r.startMs) + 3, y: y + 11, fill: r.decision === "refused" ? "#4a5468" : "white" }, `${r.attempt}: ${label(r)}`));
    }
    svg.append(el("text", { x: x(op.stop.atMs) + 4, y: y + 30, fill: "#4a5468" }, `${op.stop.reason} at ${seconds(op.stop.atMs)}`));
  });
  host.replaceChildren(svg);
}
