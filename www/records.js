// Every record of one operation, as a table (URLs arrive redacted from retryline).
const COLUMNS = [
  ["attempt", "#"], ["decision", "decision"], ["outcome", "outcome"], ["status", "status"], ["decidedAtMs", "decided ms"],
  ["startMs", "start ms"], ["endMs", "end ms"], ["windowMs", "window"], ["sampledDelayMs", "draw"],
  ["providerWaitMs", "provider min"], ["retryAfter", "Retry-After"], ["budgetWaitMs", "budget wait"],
  ["plannedWaitMs", "planned wait"], ["remainingMs", "left"], ["reason", "reason"], ["url", "url"],
];

export function drawRecords(host, records) {
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const [, title] of COLUMNS) head.append(Object.assign(document.createElement("th"), { textContent: title }));
  const body = table.createTBody();
  for (const record of records) {
    const row = body.insertRow();
    for (const [key] of COLUMNS) {
      const cell = row.insertCell();
      cell.textContent = record[key] ?? "";
      if (key === "url") cell.className = "url";
    }
  }
  host.replaceChildren(table);
}
