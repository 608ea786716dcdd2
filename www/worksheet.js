// The worksheet panel: the worksheet of the page's own configuration (config.js), one row per
// family and one for requests no family matches, with its flags highlighted. The browser build of
// retryline has no worksheet, so the server computes it from the same config.js with the Node
// build (scripts/www.mjs) and serves its JSON at /worksheet.json. The rows of the families the
// timeline's last run used are marked. The mock exchange's origin is shortened to … in the match
// and scope columns (the whole pattern is the match cell's title).

import { ON_PURPOSE } from "./config.js";

const s = (ms) => `${ms} ms`;
const short = (text) => text.replace(/(\w+:\/\/)127\.0\.0\.1:\d+/, "$1…");

/** A list of windows with its repeated tail folded: 200, 400, 800, 1000 × 26. */
function windows(list) {
  if (list.length === 0) return "–";
  let tail = list.length - 1;
  while (tail > 0 && list[tail - 1] === list.at(-1)) tail--;
  const folded = list.length - tail > 2 ? [...list.slice(0, tail), `${list.at(-1)} × ${list.length - tail}`] : list;
  return folded.join(", ");
}

/** Each column: its title and its cell, from a row of client.worksheet().toJSON(): the Markdown
 * table's, the provider waits moved right (long, the same in every row here). */
const COLUMNS = [
  ["family", (r) => r.family ?? "(no family)"],
  ["match", (r) => short(r.match)],
  ["side effect", (r) => r.operation],
  ["retried on", (r) => `${r.retried.join(", ")}${r.timeouts === "retryable" ? ", timeouts" : ""}${r.unknownOutcome.length ? `; unknown outcome: ${r.unknownOutcome.join(", ")}, timeouts` : ""}`],
  ["windows ms", (r) => windows(r.windowsMs)],
  ["attempts (fit)", (r) => `${r.policy.maxAttempts} (${r.attemptsThatFit})`],
  ["attempt timeout", (r) => s(r.policy.attemptTimeoutMs)],
  ["deadline (longest schedule)", (r) => `${s(r.policy.deadlineMs)} (${s(r.longestScheduleMs)})`],
  ["scope, bucket", (r) => `${short(r.scope)}, ${r.bucket ? `${r.bucket.capacity} tokens, ${r.bucket.refillMilliPerSecond / 1000}/s` : "no token limit"}; weight ${r.weight}; ${r.priority}`],
  ["provider waits", (r) => r.providerWaitHeaders.join(", ")],
  ["when exhausted", (r) => r.exhausted],
  ["docs (checked)", (r) => (r.docs ? `${r.docs.url ?? "–"} (${r.docs.checked ?? "not dated"})` : "–")],
];
const WRAP = new Set(["retried on", "provider waits", "windows ms", "when exhausted"]);

/** Draws `worksheet` ({ rows }) into `host` as a table: a row per family (data-family), its
 * flags in a row of their own beneath it. */
export function drawWorksheet(host, worksheet) {
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const [title] of COLUMNS) head.append(Object.assign(document.createElement("th"), { textContent: title }));
  const body = table.createTBody();
  for (const r of worksheet.rows) {
    const row = body.insertRow();
    Object.assign(row.dataset, {
      family: r.family ?? "", maxAttempts: String(r.policy.maxAttempts), attemptsThatFit: String(r.attemptsThatFit),
      deadlineMs: String(r.policy.deadlineMs), attemptTimeoutMs: String(r.policy.attemptTimeoutMs), windowsMs: r.windowsMs.join(","), flags: String(r.flags.length),
    });
    if (r.flags.length) row.classList.add("flagged");
    for (const [title, cell] of COLUMNS) {
      const td = row.insertCell();
      td.textContent = cell(r);
      if (WRAP.has(title)) td.className = "wrap";
      if (title === "match") Object.assign(td, { className: "url", title: r.match });
    }
    if (r.flags.length === 0) continue;
    const flags = body.insertRow();
    flags.className = "flags";
    const td = Object.assign(flags.insertCell(), { colSpan: COLUMNS.length });
    const why = ON_PURPOSE[r.family];
    if (why) flags.classList.add("on-purpose");
    const label = why ? [Object.assign(document.createElement("div"), { className: "on-purpose", textContent: `On purpose: ${why}.` })] : [];
    td.replaceChildren(...r.flags.map((f) => Object.assign(document.createElement("div"), { className: "flag", textContent: `⚑ ${f}` })), ...label);
  }
  const flags = worksheet.rows.reduce((n, r) => n + r.flags.length, 0);
  const meant = worksheet.rows.filter((r) => ON_PURPOSE[r.family]).reduce((n, r) => n + r.flags.length, 0);
  const text = `${worksheet.rows.length} rows, ${flags} flags${meant ? `, ${meant === flags ? "all" : meant} on purpose (labelled)` : ""}.`;
  const note = Object.assign(document.createElement("p"), { className: "about", textContent: text });
  host.replaceChildren(note, table);
  Object.assign(host.dataset, { rows: String(worksheet.rows.length), flags: String(flags) });
}

/** Marks the rows of the families in `names` (the families a run's records name). */
export function markFamilies(host, names) {
  for (const row of host.querySelectorAll("tbody tr[data-family]")) row.classList.toggle("ran", names.has(row.dataset.family || null));
}
