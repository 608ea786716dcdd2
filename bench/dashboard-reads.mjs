// Dashboards' reads (issue 34): 50 widgets, each polling one ticker every 500 ms for 10 s, in one
// Chromium page and in 5 tabs, through retryline with a budget shared by name, the same with
// coalescing, fetch-extras' withDeduplication (with its withRetry), ky and p-retry — in one run,
// requests counted at a loopback ticker. Then the same with a 5 s provider outage (every request
// answered 503) in the middle: what each widget showed, and for how long it showed nothing.
// Standalone: node bench/dashboard-reads.mjs (prints Markdown; writes nothing). Needs pkg/ built.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./lib/chromium.mjs";
import { PAGE } from "./lib/dashboard-page.mjs";
import { markdownTable, fixed, int } from "./lib/format.mjs";
import { versionOf } from "./lib/versions.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const [WIDGETS, EVERY_MS, FOR_MS, OUTAGE] = [50, 500, 10_000, [3000, 8000]];
const POLLS = FOR_MS / EVERY_MS;
const CONTENDERS = ["retryline, shared budget", "retryline, shared + coalesce", "fetch-extras withDeduplication + withRetry", "ky", "p-retry"];
const SERVED = /^\/(js|pkg|node_modules\/(ky|p-retry|is-network-error|fetch-extras))\//;
const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

const received = [];
let outage = [0, 0];
let seq = 0;
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (path === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
  if (path.startsWith("/ticker/")) {
    const at = Date.now();
    received.push({ name: path.slice("/ticker/".length), at });
    if (at >= outage[0] && at < outage[1]) return res.writeHead(503, { "content-type": "application/json" }).end('{"code":-1001}');
    await new Promise((r) => setTimeout(r, 20));
    return res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify({ price: String(++seq) }));
  }
  if (!SERVED.test(path)) return res.writeHead(404).end();
  try {
    const body = await readFile(join(root, normalize(path)));
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const origin = `http://127.0.0.1:${server.address().port}/`;
const chromium = await launchChromium();

/** One run: `tabs` tabs of 50 widgets through `name`, with or without the outage. */
async function run(name, tabs, withOutage, id) {
  const context = await chromium.browser.newContext();
  try {
    const pages = [];
    for (let i = 0; i < tabs; i++) {
      const page = await context.newPage();
      await page.goto(origin);
      await page.waitForFunction(() => window.ready, undefined, { timeout: 30_000 });
      pages.push(page);
    }
    const startAt = Date.now() + 1000;
    outage = withOutage ? [startAt + OUTAGE[0], startAt + OUTAGE[1]] : [0, 0];
    const options = { widgets: WIDGETS, everyMs: EVERY_MS, forMs: FOR_MS, startAt, share: `dash-${id}` };
    const seen = (await Promise.all(pages.map((p) => p.evaluate(([n, o]) => window.run(n, o), [name, options])))).flat();
    const requests = received.filter((r) => r.name === name && r.at >= startAt && r.at < startAt + FOR_MS + 2000);
    const during = requests.filter((r) => r.at >= outage[0] && r.at < outage[1]).length;
    return { requests: requests.length, during, seen };
  } finally {
    await context.close();
  }
}

const steady = [];
const outages = [];
let id = 0;
for (const name of CONTENDERS) {
  for (const tabs of [1, 5]) {
    process.stderr.write(`${name}, ${tabs} tab(s)…\n`);
    const calm = await run(name, tabs, false, ++id);
    steady.push({ name, tabs, perPoll: calm.requests / POLLS, answered: calm.seen.reduce((n, s) => n + s.fresh, 0) / (tabs * WIDGETS * POLLS) });
    const out = await run(name, tabs, true, ++id);
    const blanks = out.seen.map((s) => s.blankMs);
    outages.push({
      name,
      tabs,
      blankWidgets: blanks.filter((ms) => ms > 0).length,
      widgets: out.seen.length,
      meanBlank: blanks.reduce((a, b) => a + b, 0) / blanks.length,
      maxBlank: Math.max(...blanks),
      meanStale: out.seen.reduce((a, s) => a + s.staleMs, 0) / out.seen.length,
      during: out.during,
    });
  }
}
await chromium.close();
server.close();

const col = (title, value, right = false) => ({ title, value, right });
const versions = ["ky", "p-retry", "fetch-extras"].map((n) => `${n} ${versionOf(n)}`).join(", ");
console.log(`## Dashboards' reads (Chromium ${chromium.version}; ${versions})\n`);
console.log(`${WIDGETS} widgets per tab, each polling one ticker every ${EVERY_MS} ms for ${FOR_MS / 1000} s (${POLLS} polls); requests counted at the ticker.\n`);
console.log(markdownTable(
  [col("contender", (r) => r.name), col("tabs", (r) => String(r.tabs), true), col("requests per poll", (r) => fixed(1)(r.perPoll), true), col("answers fresh", (r) => `${fixed(0)(r.answered * 100)} %`, true)],
  steady,
));
console.log(`\nA ${(OUTAGE[1] - OUTAGE[0]) / 1000} s outage (every request answered 503) from ${OUTAGE[0] / 1000} s: how long widgets showed nothing after they had shown a price; retryline's clients serve the last good answer, marked stale (staleIfErrorMs: 30000).\n`);
console.log(markdownTable(
  [col("contender", (r) => r.name), col("tabs", (r) => String(r.tabs), true), col("widgets ever blank", (r) => `${r.blankWidgets} / ${r.widgets}`, true),
    col("blank, mean ms", (r) => int(r.meanBlank), true), col("blank, max ms", (r) => int(r.maxBlank), true), col("stale shown, mean ms", (r) => int(r.meanStale), true), col("requests during the outage", (r) => int(r.during), true)],
  outages,
));
process.exit(0);
