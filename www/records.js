// Every record of one operation, as a table (URLs arrive redacted from retryline); `columns`
// ([[key, title]]) picks what it shows.
export const COLUMNS = [
  ["attempt", "#"], ["family", "family"], ["decision", "decision"], ["outcome", "outcome"], ["status", "status"], ["decidedAtMs", "decided ms"],
  ["startMs", "start ms"], ["endMs", "end ms"], ["windowMs", "window"], ["sampledDelayMs", "draw"],
  ["providerWaitMs", "provider min"], ["retryAfter", "Retry-After"], ["budgetWaitMs", "budget wait"],
  ["plannedWaitMs", "planned wait"], ["remainingMs", "left"], ["reason", "reason"], ["hedge", "hedge"], ["winner", "winner"], ["url", "url"],
];

export function drawRecords(host, records, columns = COLUMNS) {
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const [, title] of columns) head.append(Object.assign(document.createElement("th"), { textContent: title }));
  const body = table.createTBody();
  for (const record of records) {
    const row = body.insertRow();
    for (const [key] of columns) {
      const cell = row.insertCell();
      cell.textContent = record[key] ?? "";
      if (key === "url") Object.assign(cell, { className: "url", title: cell.textContent });
      if (key === "error") cell.className = "wrap";
    }
  }
  host.replaceChildren(table);
}
