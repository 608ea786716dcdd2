// The stream panel's chart: one lane per episode on a shared axis of seconds since the episode
// began. In each lane, every upgrade attempt the SERVER logged (GET /__mock/streams/connections):
// an accepted connection as a bar from its upgrade to its close, a refused or reset one as a tick;
// the stream's own stale spans shaded over them, its state as a strip beneath, and what the
// episode did to it (outage, ban, silence, the cut) as a band behind.
const SVG = "http://www.w3.org/2000/svg";
const LEFT = 180;
const WIDTH = 1000;
const LANE = 78;
const TRACK = 20;

export const STATE_COLOURS = { connecting: "#b7c0d8", open: "#2fa66a", stale: "#e0a526", waiting: "#7fc8d9" };
const BANDS = { outage: ["#e0613d", 0.13], ban: ["#8c5bd6", 0.15], silent: ["#6b7489", 0.14] };

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** [{ state, from, to }] from the stream's state changes ([{ at, state }]), up to `end`. */
export function spans(states, end) {
  return states.map((s, i) => ({ state: s.state, from: s.at, to: states[i + 1]?.at ?? end }));
}

/** Draws `lanes` ([{ name, run }], run null before it ran) into `host`. */
export function drawStreamChart(host, lanes, now = Date.now()) {
  const runs = lanes.map((l) => l.run).filter(Boolean);
  const span = Math.ceil(Math.max(10_000, ...runs.map((r) => (r.t1 ?? now) - r.t0)) / 1000) * 1000;
  const x = (ms) => LEFT + (Math.max(0, Math.min(ms, span)) / span) * (WIDTH - LEFT - 14);
  const height = lanes.length * LANE + 24;
  const svg = el("svg", { viewBox: `0 0 ${WIDTH} ${height}`, width: "100%", role: "img", "aria-label": "stream connections per episode" });
  for (let t = 0; t <= span; t += 1000) {
    svg.append(el("line", { x1: x(t), x2: x(t), y1: 0, y2: height - 18, stroke: "#eef0f5" }));
    svg.append(el("text", { x: x(t), y: height - 5, "text-anchor": "middle" }, `${t / 1000} s`));
  }
  lanes.forEach(({ name, run }, i) => {
    const y0 = i * LANE + 4;
    if (i > 0) svg.append(el("line", { x1: 0, x2: WIDTH, y1: y0 - 3, y2: y0 - 3, stroke: "#e5e8f0" }));
    svg.append(el("text", { x: 4, y: y0 + 30, "font-weight": "bold" }, name));
    if (!run) return void svg.append(el("text", { x: 4, y: y0 + 46, fill: "#8a94a8" }, "not run yet"));
    svg.append(el("text", { x: 4, y: y0 + 46, fill: "#4a5468" }, run.t1 === null ? "running…" : run.error ? "failed" : `${accepted(run)} connections`));
    drawLane(svg, run, y0, x, now);
  });
  host.replaceChildren(svg);
}

const accepted = (run) => run.connections.filter((c) => c.outcome === "accepted").length;

function drawLane(svg, run, y0, x, now) {
  const end = run.t1 ?? now;
  const rel = (t) => x(t - run.t0);
  const tracksTop = y0 + 16;
  // What the episode did, behind everything else.
  for (const m of run.marks) {
    if (m.kind === "cut") {
      svg.append(el("line", { x1: rel(m.from), x2: rel(m.from), y1: y0 + 2, y2: tracksTop + 2 * TRACK + 10, stroke: "#2f5bea", "stroke-dasharray": "3 3" }));
      continue;
    }
    const [fill, opacity] = BANDS[m.kind];
    svg.append(el("rect", { x: rel(m.from), y: y0, width: Math.max(1, rel(m.to) - rel(m.from)), height: LANE - 8, fill, "fill-opacity": opacity }));
    svg.append(el("text", { x: rel(m.from) + 3, y: y0 + 11, fill }, m.text));
  }
  if (run.marks.some((m) => m.kind === "cut")) svg.append(el("text", { x: rel(run.marks.find((m) => m.kind === "cut").from) + 3, y: y0 + 11, fill: "#2f5bea" }, "rotations: the next connection opened beside the old one"));
  // The stream's own view: stale spans over the connections, every state in a strip beneath.
  const strip = spans(run.states, end);
  for (const s of strip.filter((s) => s.state === "stale")) {
    svg.append(el("rect", { x: rel(s.from), y: tracksTop - 2, width: Math.max(1, rel(s.to) - rel(s.from)), height: 2 * TRACK + 2, fill: STATE_COLOURS.stale, "fill-opacity": 0.3 }));
  }
  const stripY = tracksTop + 2 * TRACK + 4;
  for (const s of strip) {
    const colour = STATE_COLOURS[s.state];
    if (!colour) continue;
    const bar = el("rect", { x: rel(s.from), y: stripY, width: Math.max(1, rel(s.to) - rel(s.from)), height: 7, fill: colour });
    bar.append(el("title", {}, `${s.state}: ${seconds(s.from - run.t0)} → ${seconds(s.to - run.t0)}`));
    svg.append(bar);
  }
  // The server's log: attempts go on the track of the connection they lead to, alternating, so an
  // overlap (make-before-break) shows as two bars one above the other.
  let opened = 0;
  for (const c of run.connections) {
    const y = tracksTop + (opened % 2) * TRACK;
    if (c.outcome === "accepted") {
      opened += 1;
      const to = c.closedAt ?? end;
      const bar = el("rect", { x: rel(c.at), y, width: Math.max(2, rel(to) - rel(c.at)), height: TRACK - 5, rx: 3, fill: "#2fa66a" });
      bar.append(el("title", {}, `connection ${c.id}: upgraded at ${seconds(c.at - run.t0)}, ${c.closedAt ? `closed at ${seconds(c.closedAt - run.t0)}${c.closeCode ? ` (${c.closeCode})` : ""}` : "open"}`));
      svg.append(bar);
      if (rel(to) - rel(c.at) > 46) {
        const words = `#${c.id}${c.closeCode ? ` · ${c.closeCode}` : ""}`;
        svg.append(el("text", { x: rel(c.at) + 4, y: y + 11, fill: "white" }, words));
      }
    } else {
      const tick = el("rect", { x: rel(c.at) - 1.5, y, width: 3, height: TRACK - 5, fill: c.outcome === "refused" ? "#d12d2d" : "#4a5468" });
      tick.append(el("title", {}, `upgrade ${c.id}: ${c.outcome}${c.status ? ` ${c.status}` : ""} at ${seconds(c.at - run.t0)}`));
      svg.append(tick);
    }
  }
}
