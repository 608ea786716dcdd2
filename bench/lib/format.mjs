// Markdown tables and number formats for the report.

export const fixed = (digits) => (x) => (x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(digits));
export const int = (x) => (x === null || x === undefined ? "–" : Math.round(x).toLocaleString("en-US"));
export const signed = (digits) => (x) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(digits);

/** columns: [{ title, value: (row) => string, right?: boolean }] */
export function markdownTable(columns, rows) {
  const cells = rows.map((row) => columns.map((c) => String(c.value(row))));
  const widths = columns.map((c, i) => Math.max(c.title.length, 3, ...cells.map((r) => r[i].length)));
  const pad = (text, i) => (columns[i].right ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const line = (parts) => `| ${parts.join(" | ")} |`;
  return [
    line(columns.map((c, i) => pad(c.title, i))),
    line(columns.map((c, i) => (c.right ? `${"-".repeat(widths[i] - 1)}:` : "-".repeat(widths[i])))),
    ...cells.map((r) => line(r.map(pad))),
  ].join("\n");
}
