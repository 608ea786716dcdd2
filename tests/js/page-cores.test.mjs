// A page's two wasm cores (js/core/cores.js), in headless Chromium against the mock exchange: a
// page that only fetches loads the fetch path's wasm alone; the first keyed call or stream loads
// the whole core, and calls already running on the first finish there under the same budget —
// one bucket, one set of holds and bans, one seeded draw sequence — counted at the server.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startMockExchange } from "./mock-exchange.mjs";
import { busiestSecond } from "./support/windows.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PAGE = `<!doctype html><script type="module">
import { Budget, RetryClient, RetryError } from "/js/browser.js";
const outcome = async (promise) => {
  try {
    return String((await promise).status);
  } catch (error) {
    if (!(error instanceof RetryError)) return "threw " + error.message;
    return error.reason;
  }
};
window.clients = {};
window.make = (name, options = {}, limits) => {
  const budget = limits === undefined ? undefined : new Budget(limits);
  window.clients[name] = new RetryClient({ ...options, budget });
  window.clients[name].budgetSnapshot = () => budget?.snapshot();
};
window.call = (name, url, init, options) => outcome(window.clients[name].fetch(url, init, options));
window.calls = (name, url, n, options) => Promise.all(Array.from({ length: n }, () => window.call(name, url, undefined, options)));
window.sampled = async (name, url, options) => {
  const records = [];
  await outcome(window.clients[name].fetch(url, undefined, { ...options, onAttempt: (r) => records.push(r) }));
  return records.map((r) => r.sampledDelayMs);
};
// Sends as fast as the budget lets it for ms, from loops calls at a time; how many were sent.
window.flood = async (name, url, ms, loops) => {
  const until = performance.now() + ms;
  let sent = 0;
  await Promise.all(Array.from({ length: loops }, async () => {
    while (performance.now() < until) {
      const got = await window.call(name, url, undefined, { policy: { maxAttempts: 1, deadlineMs: 1500, attemptTimeoutMs: 1000 } });
      if (got === "200") sent++;
      else await new Promise((r) => setTimeout(r, 10));
    }
  }));
  return sent;
};
window.streamStops = (name, url, options) => {
  try {
    const stream = window.clients[name].stream(url, options);
    window.lastStream = stream;
    return new Promise((resolve) => stream.addEventListener("state", () => stream.state === "open" && resolve("open")));
  } catch (error) {
    return Promise.resolve(error.name + ": " + error.message);
  }
};
window.closeStream = () => window.lastStream?.close();
window.ready = true;
</script>`;

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm" };

/** The package's files as the repository has them; `hang` paths are never answered, `missing` ones 404. */
async function servePage({ hang = [], missing = [] } = {}) {
  const requested = [];
  const held = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    requested.push(path);
    if (path === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    if (hang.includes(path)) return held.push(res);
    if (missing.includes(path) || !(path.startsWith("/js/") || path.startsWith("/pkg/"))) return res.writeHead(404).end();
    try {
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(readFileSync(join(root, path)));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}/`,
    requested,
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

let mock, browser, site;
before(async () => {
  mock = await startMockExchange({ port: 0 });
  site = await servePage();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

async function open(origin = site.origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(origin);
  await page.waitForFunction(() => window.ready);
  return { page, close: () => context.close() };
}

const wasmRequested = (requested) => requested.filter((p) => p.startsWith("/pkg/browser"));

test("a page that only fetches loads the fetch path's wasm and nothing of the whole core; a stream's bad options still throw at once", async () => {
  const seen = site.requested.length;
  const { page, close } = await open();
  try {
    await page.evaluate(() => window.make("plain", { policy: { baseDelayMs: 10, maxDelayMs: 20 } }));
    mock.script("/api/plain", [{ status: 503 }, { status: 503 }]);
    assert.equal(await page.evaluate((u) => window.call("plain", u), `${mock.url}/api/plain`), "200");
    assert.equal(mock.requests({ path: "/api/plain" }).length, 3);
    const refused = await page.evaluate((u) => window.streamStops("plain", u, { minUptimeMs: -1 }), `${mock.url.replace(/^http/, "ws")}/ws/ticker`);
    assert.match(refused, /^RangeError: stream options: minUptimeMs/);
    assert.deepEqual(wasmRequested(site.requested.slice(seen)), ["/pkg/browser-fetch.wasm"]);
  } finally {
    await close();
  }
});

test("a keyed call loads the whole core mid-flood: the calls on both cores spend one bucket, as the server counts", { timeout: 60_000 }, async () => {
  const seen = site.requested.length;
  const { page, close } = await open();
  try {
    await page.evaluate(() => window.make("flood", {}, { capacity: 10, refillPerSecond: 5 }));
    const flooding = page.evaluate((u) => window.flood("flood", u, 3000, 4), `${mock.url}/api/flood`);
    await new Promise((r) => setTimeout(r, 1000));
    // A keyed read in the same scope: the whole core loads, and the loops' next calls go there.
    assert.equal(await page.evaluate((u) => window.call("flood", u, undefined, { key: "k-1", operation: "read" }), `${mock.url}/api/keyed`), "200");
    const sent = await flooding;
    assert.ok(wasmRequested(site.requested.slice(seen)).includes("/pkg/browser.wasm"), "the whole core was loaded");
    const requests = [...mock.requests({ path: "/api/flood" }), ...mock.requests({ path: "/api/keyed" })];
    // One bucket: 10 at once plus 5 a second — at most 15 in any second (16 for a token on the
    // window's edge), 10 + 3 × 5 = 25 in 3 s, and the keyed call's own token (26).
    assert.ok(busiestSecond(requests) <= 16, `busiest second: ${busiestSecond(requests)}`);
    assert.ok(requests.length <= 27, `${requests.length} requests`);
    assert.equal(sent + 1, requests.length);
  } finally {
    await close();
  }
});

test("a hedged read runs on the whole core, loaded for it: its hedge reaches the server and wins", { timeout: 60_000 }, async () => {
  const seen = site.requested.length;
  const { page, close } = await open();
  try {
    await page.evaluate(() => window.make("hedged"));
    mock.script("/api/slow", [{ delayMs: 3000 }]);
    const policy = { maxHedges: 1, hedgeAfterMs: 100, attemptTimeoutMs: 5000, deadlineMs: 10_000 };
    assert.equal(await page.evaluate(([u, p]) => window.call("hedged", u, undefined, { policy: p }), [`${mock.url}/api/slow`, policy]), "200");
    const [first, hedge] = mock.requests({ path: "/api/slow" });
    assert.ok(hedge, "the hedge was sent");
    assert.ok(hedge.receivedAtMs - first.receivedAtMs >= 100 - 5, `the hedge waited its delay: ${Math.round(hedge.receivedAtMs - first.receivedAtMs)} ms`);
    assert.ok(hedge.receivedAtMs < first.receivedAtMs + 3000, "before the slow answer");
    assert.ok(wasmRequested(site.requested.slice(seen)).includes("/pkg/browser.wasm"), "the whole core was loaded");
  } finally {
    await close();
  }
});

test("a 418 recorded on the whole core stops a call sleeping on the first one, nothing more sent; and holds a stream", { timeout: 60_000 }, async () => {
  const { page, close } = await open();
  try {
    await page.evaluate(() => window.make("ban", { policy: { baseDelayMs: 1500, maxDelayMs: 1500, jitter: "none", maxAttempts: 3, deadlineMs: 20_000, attemptTimeoutMs: 2000 } }));
    mock.script("/api/sleeper", [{ status: 503 }]);
    mock.script("/api/banning", [{ status: 418, retryAfter: 4 }]);
    // The sleeper's first attempt is answered 503 on the first core: it sleeps 1.5 s there.
    const sleeper = page.evaluate((u) => window.call("ban", u), `${mock.url}/api/sleeper`);
    await new Promise((r) => setTimeout(r, 300));
    // Meanwhile a keyed call runs on the whole core, and its scope (the same origin) is banned.
    assert.equal(await page.evaluate((u) => window.call("ban", u, undefined, { key: "k-2", operation: "read" }), `${mock.url}/api/banning`), "banned");
    assert.equal(await sleeper, "banned", "the sleeper woke to the ban the other core recorded");
    assert.equal(mock.requests({ path: "/api/sleeper" }).length, 1, "and sent nothing more");
    // A stream on the banned scope waits for the ban's end before its first connection.
    const [ban] = mock.requests({ path: "/api/banning" });
    assert.equal(await page.evaluate((u) => window.streamStops("ban", u, { policy: { deadlineMs: 20_000 } }), `${mock.url.replace(/^http/, "ws")}/ws/ticker`), "open");
    const [first] = mock.streams.connections({ path: "/ws/ticker" });
    assert.ok(first.at >= ban.respondedAtMs + 4000 - 10, `the stream connected ${Math.round(first.at - ban.respondedAtMs)} ms after the 418`);
    await page.evaluate(() => window.closeStream());
  } finally {
    await close();
  }
});

test("a budget shared across tabs keeps sharing from the whole core, and its snapshot shows what that core recorded", { timeout: 60_000 }, async () => {
  const { page, close } = await open();
  try {
    await page.evaluate(() => window.make("tabs", {}, { share: "cores" }));
    mock.script("/api/tab-ban", [{ status: 418, retryAfter: 5 }]);
    assert.equal(await page.evaluate((u) => window.call("tabs", u, undefined, { key: "k-6", operation: "read" }), `${mock.url}/api/tab-ban`), "banned");
    const snapshot = await page.evaluate(() => window.clients.tabs.budgetSnapshot());
    assert.equal(snapshot.length, 1);
    assert.ok(snapshot[0].banRemainingMs > 3000, JSON.stringify(snapshot));
    assert.equal(snapshot[0].sharing, "tabs");
    // A plain call (now on the whole core too) is refused by the ban, nothing sent.
    assert.equal(await page.evaluate((u) => window.call("tabs", u), `${mock.url}/api/after-ban`), "banned");
    assert.equal(mock.requests({ path: "/api/after-ban" }).length, 0);
  } finally {
    await close();
  }
});

test("a seeded client's draws go on across the move to the whole core, as they would on one", { timeout: 60_000 }, async () => {
  // Each call is answered 503 and its retry refused at once (the draw plus the timeout overrun the
  // deadline): its record still carries the draw.
  const policy = { baseDelayMs: 1000, maxDelayMs: 1000, maxAttempts: 2, attemptTimeoutMs: 1000, deadlineMs: 1000 };
  const draws = async (move) => {
    const { page, close } = await open();
    try {
      await page.evaluate((p) => window.make("seeded", { seed: 42, policy: p }), policy);
      const out = [];
      for (let i = 0; i < 4; i++) {
        if (i === 2 && move) assert.equal(await page.evaluate((u) => window.call("seeded", u, undefined, { key: "k-3", operation: "read" }), `${mock.url}/api/ok`), "200");
        mock.script("/api/draw", [{ status: 503 }]);
        out.push(...(await page.evaluate((u) => window.sampled("seeded", u), `${mock.url}/api/draw`)).filter((d) => d !== null));
      }
      return out;
    } finally {
      await close();
    }
  };
  const alone = await draws(false);
  assert.equal(alone.length, 4);
  assert.equal(new Set(alone).size, 4, `four different draws: ${alone}`);
  assert.deepEqual(await draws(true), alone);
});

test("a keyed call whose whole core never arrives stops by its deadline, nothing sent; one that cannot load says so", { timeout: 60_000 }, async () => {
  const hung = await servePage({ hang: ["/pkg/browser.wasm", "/pkg/browser-inline.js"] });
  const gone = await servePage({ missing: ["/pkg/browser.wasm", "/pkg/browser-inline.js"] });
  try {
    const { page, close } = await open(hung.origin);
    try {
      await page.evaluate(() => window.make("hung", { policy: { deadlineMs: 800, attemptTimeoutMs: 500 } }));
      const started = Date.now();
      assert.equal(await page.evaluate((u) => window.call("hung", u, undefined, { key: "k-4", operation: "read" }), `${mock.url}/api/never`), "deadline");
      // The page's own control: a plain call still goes (on the first core) while the load hangs.
      assert.equal(await page.evaluate((u) => window.call("hung", u), `${mock.url}/api/plain`), "200");
      assert.ok(Date.now() - started < 20_000);
      assert.equal(mock.requests({ path: "/api/never" }).length, 0);
    } finally {
      await close();
    }
    const missing = await open(gone.origin);
    try {
      await missing.page.evaluate(() => window.make("gone"));
      assert.match(await missing.page.evaluate((u) => window.call("gone", u, undefined, { key: "k-5", operation: "read" }), `${mock.url}/api/never`), /^threw retryline: the whole core .* could not be loaded/);
      assert.equal(await missing.page.evaluate((u) => window.call("gone", u), `${mock.url}/api/plain`), "200");
      assert.equal(mock.requests({ path: "/api/never" }).length, 0);
    } finally {
      await missing.close();
    }
  } finally {
    await hung.close();
    await gone.close();
  }
});
