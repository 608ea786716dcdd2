// npm start, headless: the dashboard is built and served with the mock exchange beside it;
// Chromium (playwright-core) opens it, runs the article's worked example with real calls and real
// timers, and the page must show 4 wire requests and the stop at 8.4 s — the server's own count
// agreeing. The screenshot the README shows is saved from this run (docs/dashboard.png). Ctrl-C
// (SIGINT) must stop it cleanly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("../..", import.meta.url));

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
    child.once("exit", (code) => reject(new Error(`npm start exited with ${code} before serving`)));
  });
}

test("npm start serves the dashboard; in Chromium the worked example shows 4 wire requests and the stop at 8.4 s; contention and budget panels run", { timeout: 300_000 }, async () => {
  const { child, url, exchange } = await start();
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${url}?scenario=worked-example`);
    // The scenario takes 8.4 s of real time, plus a loaded machine's spread.
    await page.waitForSelector('#summary[data-scenario="worked-example"]', { timeout: 30_000 });
    assert.equal(await page.textContent("[data-wire]"), "4");
    assert.equal(await page.textContent("[data-stop]"), "deadline at 8.4 s");
    assert.equal((await page.$$("#records tbody tr")).length, 5, "four attempts and the refused fifth");
    assert.deepEqual(errors, []);
    const atServer = await (await fetch(`${exchange}/__mock/requests?path=/api/v3/ticker/price`)).json();
    assert.equal(atServer.length, 4, "the server's own count");
    await page.screenshot({ path: `${root}/docs/dashboard.png` });

    // The contention panel: the simulator compiled to wasm runs here, every point drawn beside the published one.
    await page.click("#run-contention");
    await page.waitForFunction(() => document.querySelector("#contention")?.dataset.points === "133", null, { timeout: 120_000 });
    const lines = await page.$$eval("#contention polyline", (ls) => ls.map((l) => `${l.dataset.strategy}${l.getAttribute("stroke-dasharray") ? " published" : ""}`));
    assert.equal(lines.length, 24, "per panel: seven simulated strategies, five published");
    // The budget panel: fifty widgets through one Budget reach the server far less than fifty private ones.
    await page.click("#run-budget");
    await page.waitForSelector("#budget .groups", { timeout: 30_000 });
    const shared = (await (await fetch(`${exchange}/__mock/requests?path=/shared/price`)).json()).length;
    const own = (await (await fetch(`${exchange}/__mock/requests?path=/private/price`)).json()).length;
    assert.ok(shared < own / 3, `shared ${shared}, private ${own}`);
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
