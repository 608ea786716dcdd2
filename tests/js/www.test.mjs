// npm start, headless: the dashboard is built and served with the mock exchange beside it;
// Chromium (playwright-core) opens it, the page runs the article's worked example on load with
// real calls and real timers, and must show 4 wire requests and the stop at 8.4 s — the server's
// own count agreeing; run again beside the budget widgets, neither disturbs the other. The stream
// panel's four episodes run, judged by the server's connection log. The worksheet panel shows the
// server's worksheet of www/config.js, a row per family, and the worked example's records ran
// under its row's numbers (the page's clients are built from that config). Ctrl-C (SIGINT) must stop it
// cleanly. The screenshots go to target/test-output/ (dashboard.png, stream-panel.png); only with
// RETRYLINE_UPDATE_DOCS=1 (`npm test -- --update-docs`) do they replace the ones in docs/, so a
// plain test run writes nothing tracked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { families } from "../../www/config.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const screenshotDir = process.env.RETRYLINE_UPDATE_DOCS === "1" ? `${root}docs` : `${root}target/test-output`;

/** Starts `npm start`'s script on any free port; resolves once it prints its URLs. */
function start() {
  const child = spawn(process.execPath, ["scripts/start.mjs", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("npm start printed no dashboard URL in 240 s")), 240_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const found = line.match(/retryline dashboard: (\S+)\s+\(mock exchange: ([^;]+);/);
      if (found) {
        clearTimeout(timer);
        resolve({ child, url: found[1], exchange: found[2] });
      }
    });
    // An early exit (a failed build) rejects at once: the 240 s timer goes with it.
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code} before serving`));
    });
  });
}

/** The server's request log of `path`. */
const requests = async (exchange, path) => (await fetch(`${exchange}/__mock/requests?path=${encodeURIComponent(path)}`)).json();

test("npm start serves the dashboard; in Chromium the worked example runs on load (4 wire requests, the stop at 8.4 s), again beside the budget widgets undisturbed; the stream panel's episodes, the contention and budget panels run", { timeout: 480_000 }, async () => {
  const { child, url, exchange } = await start();
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(url);
    // On load, nothing pressed. The scenario takes 8.4 s of real time, plus a loaded machine's spread.
    await page.waitForSelector('#summary[data-scenario="worked-example"][data-runs="1"]', { timeout: 30_000 });
    assert.equal(await page.textContent("[data-wire]"), "4");
    assert.equal(await page.textContent("[data-stop]"), "deadline at 8.4 s");
    assert.equal((await page.$$("#records tbody tr")).length, 5, "four attempts and the refused fifth");
    assert.deepEqual(errors, []);
    await traceMatchesTheSpans(page);
    const path = await page.getAttribute("#summary", "data-path");
    assert.equal((await requests(exchange, path)).length, 4, "the server's own count");
    await worksheetMatchesTheRun(page, exchange);
    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: `${screenshotDir}/dashboard.png` });

    // The worked example and the budget widgets at once: each on routes of its own, neither
    // resets the mock under the other (the example once read "1 wire request", a success at 2.6 s).
    await page.evaluate(() => ["run", "run-budget"].forEach((id) => document.getElementById(id).click()));
    await page.waitForSelector('#summary[data-runs="2"]', { timeout: 60_000 });
    await page.waitForSelector("#budget .groups", { timeout: 60_000 });
    const again = await page.getAttribute("#summary", "data-path");
    assert.notEqual(again, path, "a route of its own for each run");
    assert.equal(await page.textContent("[data-wire]"), "4");
    const stop = (await page.textContent("[data-stop]")).match(/^deadline at (\d+\.\d) s$/);
    assert.ok(stop && Number(stop[1]) >= 8.4 && Number(stop[1]) < 10, `${stop?.[0]}: the widgets' load may make timers late, never change the outcome`);
    assert.equal((await requests(exchange, again)).length, 4, "the server's count beside the widgets");
    const { sharedPath, privatePath, coalescedPath, staleShown } = await page.$eval("#budget", (e) => ({ ...e.dataset }));
    const shared = await requests(exchange, sharedPath);
    const own = await requests(exchange, privatePath);
    assert.ok(shared.length < own.length / 3, `shared ${shared.length}, private ${own.length}`);
    // Coalesced: about one request a poll for fifty widgets (12 polls, up to 3 of them failing twice; a
    // widget whose timer fires after the poll's answer came begins the next), and the failed polls
    // shown stale, greyed with their age, rather than blank.
    const coalesced = await requests(exchange, coalescedPath);
    assert.ok(coalesced.length >= 6 && coalesced.length <= 40 && coalesced.length < shared.length / 2, `coalesced ${coalesced.length}, shared ${shared.length}`);
    // At least one poll failed (a busy machine polls less often than every 500 ms), and was shown stale.
    assert.ok(coalesced.filter((r) => r.status === 503).length >= 2, JSON.stringify(coalesced.map((r) => r.status)));
    // Each failed poll is served stale to the widgets that joined it (on a busy machine a widget may
    // miss a poll, so not always all fifty); no widget is ever left blank.
    assert.ok(Number(staleShown) >= 25, `stale answers shown: ${staleShown}`);
    assert.ok(await page.$eval("#budget .tiles", (t) => t.querySelectorAll(".tile").length === 50));
    assert.equal(await page.$eval("#budget .tiles", (t) => [...t.querySelectorAll(".tile")].filter((e) => e.textContent === "–").length), 0, "no widget blank");
    assert.deepEqual(errors, []);

    await streamEpisodes(page, exchange);
    assert.deepEqual(errors, []);

    await breakerAndHedge(page, exchange);
    assert.deepEqual(errors, []);

    // The contention panel: the simulator compiled to wasm runs here, every point drawn beside the published one.
    await page.click("#run-contention");
    await page.waitForFunction(() => document.querySelector("#contention")?.dataset.points === "133", null, { timeout: 120_000 });
    const lines = await page.$$eval("#contention polyline", (ls) => ls.map((l) => `${l.dataset.strategy}${l.getAttribute("stroke-dasharray") ? " published" : ""}`));
    assert.equal(lines.length, 24, "per panel: seven simulated strategies, five published");
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    child.kill("SIGINT");
    const result = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), 5000))]);
    if (result === "still running") child.kill("SIGKILL");
    assert.deepEqual(result, { code: 0, signal: null }, "Ctrl-C stops it cleanly");
  }
});

/** The worksheet panel: a row per family of www/config.js (and one for the rest), and the worked
 * example's records — the page's client — ran under its row: the family named in every record,
 * one record per attempt up to maxAttempts, the row's windows, its deadline and attempt timeout. */
async function worksheetMatchesTheRun(page, exchange) {
  const rows = await page.$$eval("#worksheet tbody tr[data-family]", (rs) => rs.map((r) => ({ ...r.dataset, ran: r.classList.contains("ran"), text: r.textContent })));
  assert.deepEqual(rows.map((r) => r.family), [...families(exchange).map((f) => f.name), ""], "a row per family, then the rest");
  const row = rows.find((r) => r.family === "worked example");
  assert.deepEqual([row.maxAttempts, row.deadlineMs, row.attemptTimeoutMs, row.windowsMs], ["5", "12000", "1500", "500,1000,2000,4000"]);
  assert.ok(row.ran && rows.filter((r) => r.ran).length === 1, "the timeline's run marks its family's row alone");
  assert.ok(Number(row.flags) > 0 && (await page.$$('#worksheet tr[data-family="worked example"].flagged + tr.flags .flag')).length === Number(row.flags), "flags shown");
  // The demo's configuration passes its own worksheet but for the one family flagged on purpose, which says so.
  assert.deepEqual(rows.filter((r) => Number(r.flags) > 0).map((r) => r.family), ["worked example"], "only the worked example is flagged");
  assert.equal((await page.$$('#worksheet tr[data-family="worked example"] + tr.flags.on-purpose div.on-purpose')).length, 1, "labelled as on purpose");
  assert.match(await page.$eval("#worksheet p.about", (p) => p.textContent), /flags, all on purpose \(labelled\)\./);
  const records = await page.$$eval("#records table", ([t]) => {
    const titles = [...t.tHead.rows[0].cells].map((c) => c.textContent);
    return [...t.tBodies[0].rows].map((r) => Object.fromEntries([...r.cells].map((c, i) => [titles[i], c.textContent])));
  });
  assert.ok(records.every((r) => r.family === "worked example"), JSON.stringify(records));
  assert.equal(records.length, Number(row.maxAttempts), "attempts up to the ceiling, the last one refused");
  assert.deepEqual(records.slice(1).map((r) => r.window), row.windowsMs.split(","));
  for (const r of records) assert.equal(Number(r["decided ms"]) + Number(r.left), Number(row.deadlineMs), "the row's deadline");
  const hung = records.filter((r) => r.decision === "sent" && r.status === "");
  assert.ok(hung.length === 3 && hung.every((r) => Number(r["end ms"]) - Number(r["start ms"]) >= Number(row.attemptTimeoutMs) - 5 && Number(r["end ms"]) - Number(r["start ms"]) < Number(row.attemptTimeoutMs) + 500), "timed out at the row's attempt timeout");
}

/** The stream panel's four episodes in sequence, each judged by the server's connection log of its run. */
async function streamEpisodes(page, exchange) {
  await page.click("#stream-all");
  // About 30 s of episodes; each waits for its own events, bounded (15-20 s each) in the page.
  await page.waitForSelector('#stream-panel[data-running="false"]', { timeout: 180_000 });
  const results = await page.$$eval("#stream-results li", (ls) => ls.map((l) => ({ ...l.dataset, text: l.textContent })));
  assert.deepEqual(results.map((r) => [r.episode, r.ok]), [["restart", "true"], ["ban", "true"], ["silent", "true"], ["rotation", "true"]], JSON.stringify(results));
  const log = await (await fetch(`${exchange}/__mock/streams/connections?path=/ws/ticker`)).json();
  const run = Object.fromEntries(results.map((r) => [r.episode, { facts: JSON.parse(r.facts), log: log.filter((c) => c.query.run === r.run) }]));
  const accepted = (l) => l.filter((c) => c.outcome === "accepted");
  const shown = (l) => JSON.stringify(l.map(({ id, at, outcome, status, closedAt, closeCode }) => ({ id, at: Math.round(at), outcome, status, closedAt: Math.round(closedAt), closeCode })));

  // A restart: dropped with 1012, upgrades refused (503) for 3 s, then one accepted.
  const restart = run.restart.log;
  const [before, after] = accepted(restart);
  assert.equal(before.closeCode, 1012, shown(restart));
  const refused = restart.filter((c) => c.outcome === "refused");
  assert.ok(refused.length >= 1 && refused.every((c) => c.status === 503 && c.at > before.at && c.at < after.at), shown(restart));
  assert.ok(after.at - before.closedAt >= 2900, `reconnected ${(after.at - before.closedAt).toFixed(0)} ms after the drop, inside the 3 s of refusals`);

  // A 418 on REST: no upgrade reached the server until the 3 s ban had passed.
  const [rest] = await requests(exchange, run.ban.facts.path);
  assert.equal(rest.status, 418);
  const ban = run.ban.log;
  assert.equal(ban.length, 2, `one reconnect, no attempt during the ban: ${shown(ban)}`);
  assert.equal(ban[0].closeCode, 1012);
  assert.ok(ban[1].at - rest.respondedAtMs >= 2950, `the reconnect came ${(ban[1].at - rest.respondedAtMs).toFixed(0)} ms after the 418 of Retry-After: 3`);

  // A silent connection: silent after 1.5 s, closed by the client once 2.5 s passed without a tick.
  const [zombie, fresh] = run.silent.log;
  const up = zombie.closedAt - zombie.at;
  assert.ok(up >= 1500 + 2500 - 200 && up < 1500 + 2500 + 3000, `the silent connection was replaced after ${up.toFixed(0)} ms up`);
  assert.ok(fresh?.outcome === "accepted" && fresh.at >= zombie.closedAt - 100, shown(run.silent.log));

  // The cut at 4 s: every connection opened before the one it replaced closed; no tick missed.
  const rotated = accepted(run.rotation.log);
  assert.ok(rotated.length >= 3, shown(rotated));
  for (let i = 1; i < rotated.length; i++) assert.ok(rotated[i].at < rotated[i - 1].closedAt, `connection ${rotated[i].id} opened after ${rotated[i - 1].id} closed: ${shown(rotated)}`);
  assert.equal(run.rotation.facts.missed, 0);

  await page.selectOption("#stream-episode", "ban");
  await (await page.$("#stream-panel")).screenshot({ path: `${screenshotDir}/stream-panel.png` });
}

/** The timeline's breaker and hedged-read scenarios, judged by the server's request log of their runs. */
async function breakerAndHedge(page, exchange) {
  const runOf = async (id) => {
    const before = Number((await page.getAttribute("#summary", "data-runs")) ?? 0);
    await page.selectOption("#scenario", id);
    await page.click("#run");
    await page.waitForSelector(`#summary[data-scenario="${id}"][data-runs="${before + 1}"]`, { timeout: 30_000 });
    return page.getAttribute("#summary", "data-path");
  };
  const breakerPath = await runOf("breaker");
  const stops = await page.$$eval("[data-stop]", (bs) => bs.map((b) => b.textContent.replace(/ at .*/, "")));
  assert.deepEqual(stops, ["attempts", "attempts", "attempts", "circuit-open", "success", "success"]);
  assert.equal((await requests(exchange, breakerPath)).length, 5, "nothing sent while open, one probe");
  assert.ok((await page.textContent("#timeline")).includes("refused: circuit-open"), "the refusal is drawn");

  const hedgePath = await runOf("hedge");
  const log = await requests(exchange, hedgePath);
  assert.equal(log.length, 2);
  const records = await page.$$eval("#records table", ([t]) => {
    const titles = [...t.tHead.rows[0].cells].map((c) => c.textContent);
    return [...t.tBodies[0].rows].map((r) => Object.fromEntries([...r.cells].map((c, i) => [titles[i], c.textContent])));
  });
  const [first, hedge] = records;
  assert.deepEqual([first.hedge, first.winner, hedge.hedge, hedge.winner], ["false", "2", "true", "2"], JSON.stringify(records));
  assert.ok(Number(hedge["start ms"]) - Number(first["start ms"]) >= 150, "the hedge went after its delay");
  assert.ok(log[1].receivedAtMs > log[0].receivedAtMs);
  const drawn = await page.textContent("#timeline");
  assert.ok(drawn.includes("hedge 200 (won)") && drawn.includes("aborted (lost)"), drawn);
}

/** The trace panel draws the worked example from the spans the SDK exported in the page: the call's
 * span, four request spans at their times, three sleeps and the refused fifth attempt at 8.4 s. */
async function traceMatchesTheSpans(page) {
  const { spans, drawn, events } = await page.evaluate(() => ({
    spans: window.__retrylineSpans,
    drawn: [...document.querySelectorAll("#trace .span")].map((g) => ({ id: g.dataset.spanId, start: Number(g.dataset.startMs), end: Number(g.dataset.endMs), failed: g.classList.contains("failed") })),
    events: [...document.querySelectorAll("#trace .event")].map((g) => ({ kind: g.classList.contains("refused") ? "refused" : "sleep", at: Number(g.dataset.atMs), attempt: Number(g.dataset.attempt) })),
  }));
  const parent = spans.find((s) => s.kind === 0);
  const requests = spans.filter((s) => s.kind === 2).sort((a, b) => a.startMs - b.startMs);
  assert.equal(requests.length, 4, "four request spans exported");
  assert.ok(requests.every((s) => s.parentSpanId === parent.spanId));
  assert.deepEqual(drawn.map((d) => d.id), [parent.spanId, ...requests.map((s) => s.spanId)], "a row per exported span, the call's first");
  drawn.slice(1).forEach((d, i) => {
    assert.equal(d.start, Math.round(requests[i].startMs - parent.startMs));
    assert.equal(d.end, Math.round(requests[i].endMs - parent.startMs));
  });
  // The article's instants (0, 1.9, 4.2, 6.9 s), as a loaded machine's timers allow.
  [0, 1900, 4200, 6900].forEach((at, i) => assert.ok(drawn[i + 1].start >= at - 5 && drawn[i + 1].start < at + 400, `request ${i + 1} at ${drawn[i + 1].start} ms`));
  assert.deepEqual(drawn.slice(1).map((d) => d.failed), [true, true, true, true], "timeouts and the 429 are spans in error");
  assert.deepEqual(events.map((e) => [e.kind, e.attempt]), [["sleep", 2], ["sleep", 3], ["sleep", 4], ["refused", 5]]);
  const refused = events.at(-1).at;
  assert.ok(refused >= 8400 && refused < 8900, `the fifth refused at ${refused} ms`);
  assert.equal(parent.attributes["retryline.reason"], "deadline");
  assert.equal(parent.attributes["retryline.attempts"], 4);
}
