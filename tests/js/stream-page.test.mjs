// A stream hears its page (issue 32): in headless Chromium, with the browser's own WebSocket
// against the mock exchange, offline (Playwright's network emulation) pauses the outage with no
// attempt spent and online tries at once; a wake (a resume, visible after a long hidden time)
// replaces a connection that went quiet. Connections are counted and
// timed at the server; each wall-clock bound is judged against a control timer armed in the run.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startMockExchange } from "./mock-exchange.mjs";
import { serveStatic } from "../../scripts/static-server.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const PAGE = `<!doctype html><script type="module">
import { RetryClient } from "/js/browser.js";
window.seen = { states: [], records: [], messages: 0 };
window.openStream = (url, options) => {
  window.stream = new RetryClient().stream(url, { ...options, onAttempt: (r) => window.seen.records.push(r) });
  window.stream.addEventListener("state", (e) => window.seen.states.push(e.state));
  window.stream.addEventListener("message", () => window.seen.messages++);
};
window.ready = true;
</script>`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const control = (ms) => new Promise((resolve) => setTimeout(() => resolve(performance.now()), ms));

let mock, server, browser, wsTicker;
before(async () => {
  mock = await startMockExchange({ port: 0 });
  wsTicker = `${mock.url.replace(/^http/, "ws")}/ws/ticker`;
  server = await serveStatic({ root, routes: { "/": { type: "text/html", body: PAGE } }, allow: (path) => path.startsWith("/js/") || path.startsWith("/pkg/") });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await mock?.close();
});
beforeEach(() => {
  mock.reset();
  mock.streams.setTickMs(50);
});

async function until(check, what, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

async function newPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.origin}/`);
  await page.waitForFunction(() => window.ready);
  return { context, page, close: () => context.close() };
}

const connections = () => mock.streams.connections({ path: "/ws/ticker" });

test("offline: no attempt while the page is offline, however long; online: an attempt at once", async () => {
  const { context, page, close } = await newPage();
  try {
    // Every upgrade refused: the stream retries every 100–200 ms.
    mock.streams.refuseFor(60_000, { status: 503 });
    await page.evaluate((url) => window.openStream(url, { policy: { baseDelayMs: 100, maxDelayMs: 200, deadlineMs: 60_000 } }), wsTicker);
    await until(() => connections().length >= 3, "a few refused attempts");
    await context.setOffline(true);
    await until(() => page.evaluate(() => window.seen.records.some((r) => r.error?.includes("offline"))), "the refusal the offline made");
    const sentAtOffline = await page.evaluate(() => window.seen.records.filter((r) => r.decision === "sent").length);
    const serverAtOffline = connections().length;
    await sleep(2000); // ~10 attempts' worth of backoff
    const sentAfter = await page.evaluate(() => window.seen.records.filter((r) => r.decision === "sent").length);
    assert.equal(sentAfter, sentAtOffline, "no attempt was sent while offline");
    assert.equal(connections().length, serverAtOffline, "and none reached the server");
    assert.equal(await page.evaluate(() => window.stream.state), "waiting");
    mock.reset();
    const controlled = control(1000);
    await context.setOffline(false);
    await until(() => connections().length === 1 && connections()[0].outcome === "accepted", "the attempt online made");
    assert.ok(performance.now() < (await controlled), "it reached the server before the 1 s control fired");
    await until(() => page.evaluate(() => window.stream.state === "open"), "open");
  } finally {
    await page.evaluate(() => window.stream?.close()).catch(() => {});
    await close();
  }
});

// Headless Chromium never hides or freezes a page (checked: a minimized window, another tab in front,
// Page.setWebLifecycleState all leave it visible, with no event): the page is sent the events a
// real hide, freeze or bfcache restore sends, and the rest — listeners, core, socket — is real.
for (const [how, wake] of [
  ["a resume (the page was frozen)", () => document.dispatchEvent(new Event("resume"))],
  ["visible again after a long hidden time", async () => {
    Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
    await new Promise((r) => setTimeout(r, 1200));
    Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  }],
]) {
  test(`${how} replaces a connection that went quiet, at once`, async () => {
    const { page, close } = await newPage();
    try {
      // The first connection goes silent at once (a zombie); the stale watch would replace it after 60 s only.
      mock.streams.script("/ws/ticker", [{ action: "accept", silentAfterMs: 0 }]);
      await page.evaluate((url) => window.openStream(url, { minUptimeMs: 0, staleAfterMs: 1000, reconnectAfterStaleMs: 60_000, policy: { baseDelayMs: 100 } }), wsTicker);
      await until(() => page.evaluate(() => window.stream.state === "stale"), "stale: nothing heard for 1 s");
      assert.equal(connections().length, 1);
      const controlled = control(2500);
      await page.evaluate(wake);
      await until(() => connections().length === 2, "the replacement's connection");
      assert.ok(performance.now() < (await controlled), "the replacement reached the server before the control fired");
      await until(() => page.evaluate(() => window.stream.state === "open" && window.seen.messages > 0), "ticks on the replacement");
      const dropped = await page.evaluate(() => window.seen.records.find((r) => r.dropped !== null)?.dropped);
      assert.match(dropped ?? "", /the page woke, and nothing was heard for \d+ ms: replaced/);
    } finally {
      await page.evaluate(() => window.stream?.close()).catch(() => {});
      await close();
    }
  });
}

test("a short hidden time, or a wake while messages flow, leaves the connection alone", async () => {
  const { page, close } = await newPage();
  try {
    await page.evaluate((url) => window.openStream(url, { minUptimeMs: 0, staleAfterMs: 1000, policy: { baseDelayMs: 100 } }), wsTicker);
    await until(() => page.evaluate(() => window.stream.state === "open" && window.seen.messages > 3), "ticks");
    await page.evaluate(async () => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
      await new Promise((r) => setTimeout(r, 300));
      Object.defineProperty(document, "visibilityState", { value: "visible", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
      document.dispatchEvent(new Event("resume"));
    });
    await sleep(800);
    assert.equal(connections().length, 1, "still the first connection");
    assert.equal(await page.evaluate(() => window.stream.state), "open");
  } finally {
    await page.evaluate(() => window.stream?.close()).catch(() => {});
    await close();
  }
});

test("pageSignals: false leaves the stream deaf to the page", async () => {
  const { context, page, close } = await newPage();
  try {
    mock.streams.refuseFor(60_000, { status: 503 });
    await page.evaluate((url) => window.openStream(url, { pageSignals: false, policy: { baseDelayMs: 100, maxDelayMs: 200 } }), wsTicker);
    await until(() => connections().length >= 2, "attempts");
    await context.setOffline(true);
    const sent = await page.evaluate(() => window.seen.records.filter((r) => r.decision === "sent").length);
    await until(async () => (await page.evaluate(() => window.seen.records.filter((r) => r.decision === "sent").length)) > sent + 2, "attempts go on while offline");
    assert.ok(!(await page.evaluate(() => window.seen.records.some((r) => r.error?.includes("offline")))));
  } finally {
    await page.evaluate(() => window.stream?.close()).catch(() => {});
    await close();
  }
});
