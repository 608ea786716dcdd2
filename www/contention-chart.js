// Calls and completion time against clients, per strategy, as an SVG string: solid lines for
// `ours`, dashed for `published` (rows of { clients, strategy, calls, completionMs }). Used by the
// dashboard's contention panel and by scripts/contention-chart.mjs for the README.
const COLOURS = { exponential: "#d12d2d", decorrelated: "#2f5bea", equal: "#8c5bd6", full: "#2fa66a", "no-backoff": "#e09b2d", "full+quota": "#14808f", "full+bucket": "#6b4f2a" };
const W = 460, H = 300, PAD = { l: 60, r: 10, t: 30, b: 40 };

function panel(ours, published, x0, title, key, scale) {
  const all = [...ours, ...published];
  const maxX = Math.max(10, ...all.map((r) => r.clients));
  const maxY = Math.max(1, ...all.filter((r) => r.strategy !== "exponential" || key === "calls").map((r) => r[key]));
  const x = (v) => x0 + PAD.l + (v / maxX) * (W - PAD.l - PAD.r);
  const y = (v) => PAD.t + (1 - Math.min(v, maxY) / maxY) * (H - PAD.t - PAD.b);
  const parts = [`<text x="${x0 + W / 2}" y="18" text-anchor="middle" font-weight="bold">${title}</text>`];
  for (let i = 0; i <= 4; i++) {
    const v = (maxY * i) / 4;
    parts.push(`<line x1="${x0 + PAD.l}" x2="${x0 + W - PAD.r}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
      `<text x="${x0 + PAD.l - 6}" y="${y(v) + 4}" text-anchor="end">${scale(v)}</text>`);
  }
  for (let c = 0; c <= maxX; c += 50) parts.push(`<text x="${x(c)}" y="${H - PAD.b + 16}" text-anchor="middle">${c}</text>`);
  parts.push(`<text x="${x0 + W / 2}" y="${H - 6}" text-anchor="middle">clients</text>`);
  const line = (rows, strategy, dashed) => {
    const pts = rows.filter((r) => r.strategy === strategy).sort((a, b) => a.clients - b.clients).map((r) => `${x(r.clients).toFixed(1)},${y(r[key]).toFixed(1)}`);
    return pts.length ? `<polyline data-strategy="${strategy}" fill="none" stroke="${COLOURS[strategy]}" stroke-width="${dashed ? 1.5 : 2}" ${dashed ? 'stroke-dasharray="5 4"' : ""} points="${pts.join(" ")}"/>` : "";
  };
  for (const s of Object.keys(COLOURS)) parts.push(line(ours, s, false), line(published, s, true));
  return parts.join("\n");
}

export function contentionSvg(ours, published, caption) {
  const legend = Object.entries(COLOURS).map(([s, c], i) => `<rect x="${20 + i * 128}" y="${H + 8}" width="14" height="4" fill="${c}"/><text x="${38 + i * 128}" y="${H + 14}">${s}</text>`).join("\n");
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${2 * W} ${H + 44}" font-family="system-ui, sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
${panel(ours, published, 0, "calls (writes) per contention", "calls", (v) => Math.round(v))}
${panel(ours, published, W, "completion time, s (exponential without jitter runs off the scale)", "completionMs", (v) => (v / 1000).toFixed(1))}
${legend}
<text x="20" y="${H + 34}">${caption}</text>
</svg>
`;
}
