// Dashboards' reads in real Chromium against the mock exchange, counted at the server: coalescing
// in one page (a caller that aborts, a 418), the last good answer marked stale, and maxInFlight
// across tabs with a shared budget, a tab closed while it held a slot included.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTabs } from "./support/chromium-tabs.mjs";

const PAGE = `<!doctype html><script type="module">
import { Budget, RetryClient, RetryError, staleness } from "/js/browser.js";
const policy = { deadlineMs: 8000, attemptTimeoutMs: 3000, maxAttempts: 2, baseDelayMs: 20 };
const outcome = (p) => p.then(async (res) => ({ status: res.status, body: await res.text(), age: res.headers.get("age"), stale: staleness(res)?.reason ?? null }), (e) => ({ reason: e instanceof RetryError ? e.reason : String(e), joined: (e.records ?? []).every((r) => r.joined === true) }));
// n widgets read url at once through one coalescing client; the one numbered 'quitter' aborts after 'abortMs'.
window.widgets = async (url, n, quitter = -1, abortMs = 0) => {
  const client = new RetryClient({ budget: new Budget(), coalesce: true, policy });
  const quit = new AbortController();
  if (quitter >= 0) setTimeout(() => quit.abort(), abortMs);
  return Promise.all(Array.from({ length: n }, (_, i) => outcome(client.fetch(url, i === quitter ? { signal: quit.signal } : undefined))));
};
// The same widgets in each tab, through a budget shared by name: one tab's read answers the others.
window.sharedWidgets = async (url, n, share, attemptTimeoutMs = 3000) => {
  const client = new RetryClient({ budget: new Budget({ share }), coalesce: true, policy: { ...policy, attemptTimeoutMs } });
  return Promise.all(Array.from({ length: n }, () => outcome(client.fetch(url))));
};
// Widgets whose client reads each body inside the attempt: a body that never ends is cut by its timeout.
window.bodied = async (url, n) => {
  const client = new RetryClient({ coalesce: true, readBody: true, policy: { ...policy, attemptTimeoutMs: 400 } });
  return Promise.all(Array.from({ length: n }, () => outcome(client.fetch(url))));
};
window.staleTwice = async (url) => {
  const client = new RetryClient({ staleIfErrorMs: 30000, policy: { ...policy, maxAttempts: 2 } });
  const first = await outcome(client.fetch(url));
  const second = await outcome(client.fetch(url));
  return [first, second];
};
window.capped = async (url, n, share) => {
  const client = new RetryClient({ budget: new Budget({ maxInFlight: 2, share }), policy: { deadlineMs: 20000, attemptTimeoutMs: 2000, maxAttempts: 1 } });
  return Promise.all(Array.from({ length: n }, (_, i) => outcome(client.fetch(url + "?i=" + i))));
};
window.ready = true;
</script>`;

let mock, chromium;
before(async () => ({ mock } = chromium = await startTabs(PAGE)));
after(async () => chromium?.stop());
const tabs = (n) => chromium.tabs(n);

/** The most requests the server held at once, each from its arrival to its end. */
function mostAtOnce(log) {
  const edges = log.flatMap((r) => [[r.receivedAtMs, 1], [r.endedAtMs ?? r.closedAtMs ?? Infinity, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let [now, most] = [0, 0];
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

test("50 widgets in a page read one ticker as one request; the one that aborts leaves alone", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(1);
  try {
    mock.script("/page/ticker", [{ delayMs: 1000, body: { price: "42" } }]);
    const results = await pages[0].evaluate((url) => window.widgets(url, 50, 7, 50), `${mock.url}/page/ticker`);
    assert.equal(mock.requests({ path: "/page/ticker" }).length, 1, "one request for fifty widgets");
    assert.deepEqual(results[7], { reason: "aborted", joined: true });
    const answered = results.filter((r, i) => i !== 7);
    assert.ok(answered.every((r) => r.status === 200 && JSON.parse(r.body).price === "42"), JSON.stringify(answered.slice(0, 2)));
    assert.equal(mock.requests({ path: "/page/ticker" })[0].outcome, "responded");
  } finally {
    await close();
  }
});

test("a 418 while a page's reads are coalesced refuses every widget, with one request at the server", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(1);
  try {
    mock.script("/page/banned", [{ delayMs: 50, status: 418, retryAfter: 2 }]);
    const results = await pages[0].evaluate((url) => window.widgets(url, 20), `${mock.url}/page/banned`);
    assert.deepEqual([...new Set(results.map((r) => r.reason))], ["banned"]);
    assert.equal(mock.requests({ path: "/page/banned" }).length, 1);
  } finally {
    await close();
  }
});

test("a read that fails serves its last good answer in Chromium, marked stale with an Age", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(1);
  try {
    mock.script("/page/stale", [{ body: { price: "9" } }, { status: 503 }, { status: 503 }]);
    const [first, second] = await pages[0].evaluate((url) => window.staleTwice(url), `${mock.url}/page/stale`);
    assert.deepEqual([first.status, first.stale], [200, null]);
    assert.deepEqual([second.status, JSON.parse(second.body).price, second.stale], [200, "9", "attempts"]);
    assert.ok(/^\d+$/.test(second.age) && Number(second.age) <= 5, `Age: ${second.age}`);
    assert.deepEqual(mock.requests({ path: "/page/stale" }).map((r) => r.status), [200, 503, 503]);
  } finally {
    await close();
  }
});

test("maxInFlight 2 across two tabs sharing a budget: never more than 2 at the server, and a tab closed holding a slot frees it", { timeout: 90_000 }, async () => {
  const { pages, close } = await tabs(3);
  try {
    mock.script("/tabs/capped", Array.from({ length: 24 }, () => ({ delayMs: 60 })));
    const url = `${mock.url}/tabs/capped`;
    const results = await Promise.all(pages.slice(0, 2).map((p) => p.evaluate(([u]) => window.capped(u, 12, "capped"), [url])));
    assert.ok(results.flat().every((r) => r.status === 200), JSON.stringify(results.flat().filter((r) => r.status !== 200)));
    const log = mock.requests({ path: "/tabs/capped" });
    assert.equal(log.length, 24);
    assert.ok(mostAtOnce(log) <= 2, `${mostAtOnce(log)} at once`);
    // A tab holds both slots on hanging requests and closes: the other tab's read goes once the
    // entries expire (their attempt timeout, 2 s), never waiting forever.
    mock.script("/tabs/held", [{ action: "hang" }, { action: "hang" }, { delayMs: 0 }]);
    const held = `${mock.url}/tabs/held`;
    void pages[2].evaluate(([u]) => window.capped(u, 2, "capped"), [held]).catch(() => {});
    for (let i = 0; i < 200 && mock.requests({ path: "/tabs/held" }).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await pages[2].close();
    const started = Date.now();
    const [after] = await pages[0].evaluate(([u]) => window.capped(u, 1, "capped"), [held]);
    assert.equal(after.status, 200, JSON.stringify(after));
    assert.ok(Date.now() - started < 15_000, "the closed tab's slots were freed well within the read's deadline");
    assert.equal(mock.requests({ path: "/tabs/held" }).length, 3);
  } finally {
    await close();
  }
});

test("five tabs of 10 widgets, coalesced and sharing a budget, read one ticker as one request", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(5);
  try {
    // Long enough an answer that every tab has begun its read while it runs, on a busy machine too.
    mock.script("/tabs/ticker", [{ delayMs: 1500, body: { price: "5" } }]);
    const url = `${mock.url}/tabs/ticker`;
    const results = await Promise.all(pages.map((p) => p.evaluate(([u]) => window.sharedWidgets(u, 10, "dash"), [url])));
    assert.equal(mock.requests({ path: "/tabs/ticker" }).length, 1, "one request for fifty widgets in five tabs");
    assert.ok(results.flat().every((r) => r.status === 200 && JSON.parse(r.body).price === "5"), JSON.stringify(results.flat().filter((r) => r.status !== 200)));
  } finally {
    await close();
  }
});

test("a 418 answered to one tab's coalesced read refuses every tab's widgets, with one request at the server", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(3);
  try {
    mock.script("/tabs/banned", [{ delayMs: 1500, status: 418, retryAfter: 5 }]);
    const url = `${mock.url}/tabs/banned`;
    const results = await Promise.all(pages.map((p) => p.evaluate(([u]) => window.sharedWidgets(u, 5, "dash-ban"), [url])));
    assert.deepEqual([...new Set(results.flat().map((r) => r.reason))], ["banned"]);
    assert.equal(mock.requests({ path: "/tabs/banned" }).length, 1);
  } finally {
    await close();
  }
});

test("a tab that closes mid-request leaves the others to read on their own, one request among them", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(3);
  try {
    mock.script("/tabs/closing", [{ action: "hang" }, { delayMs: 50, body: { price: "6" } }]);
    const url = `${mock.url}/tabs/closing`;
    void pages[0].evaluate(([u]) => window.sharedWidgets(u, 3, "dash-close", 1000), [url]).catch(() => {});
    for (let i = 0; i < 200 && mock.requests({ path: "/tabs/closing" }).length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const others = pages.slice(1).map((p) => p.evaluate(([u]) => window.sharedWidgets(u, 3, "dash-close", 1000), [url]));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(mock.requests({ path: "/tabs/closing" }).length, 1, "the other tabs await the first tab's read");
    await pages[0].close();
    const results = (await Promise.all(others)).flat();
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results));
    assert.equal(mock.requests({ path: "/tabs/closing" }).length, 2, "once its attempt must have ended, one of them read for both");
  } finally {
    await close();
  }
});

test("a coalesced read whose body never ends is cut by its attempt timeout in Chromium, and retried once for every widget", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(1);
  try {
    mock.script("/page/endless", [{ action: "endless" }, { body: { price: "8" } }]);
    const results = await pages[0].evaluate((url) => window.bodied(url, 10), `${mock.url}/page/endless`);
    assert.ok(results.every((r) => r.status === 200 && JSON.parse(r.body).price === "8"), JSON.stringify(results.slice(0, 2)));
    assert.equal(mock.requests({ path: "/page/endless" }).length, 2);
  } finally {
    await close();
  }
});
