// Budgets shared across tabs (`new Budget({ share })`), in three real Chromium tabs of one origin
// against the mock exchange; what reaches the server is counted there.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTabs } from "./support/chromium-tabs.mjs";
import { bucketBound, busiestSecond } from "./support/windows.mjs";

// The flood, in a tab and in its worker alike: sends as fast as `budget` lets it for `ms`.
const SEND_AS_FAST_AS_ALLOWED = `async function sendAsFastAsAllowed(budget, url, ms) {
  const client = new RetryClient({ budget, policy: { maxAttempts: 1, deadlineMs: 1500, attemptTimeoutMs: 1000 } });
  const until = performance.now() + ms;
  let sent = 0;
  while (performance.now() < until) {
    try {
      await (await client.fetch(url)).arrayBuffer();
      sent++;
    } catch (error) {
      if (!(error instanceof RetryError)) throw error;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return sent;
}`;
// The page: the package's browser entry, the flood, and the calls the tests make.
const PAGE = `<!doctype html><script type="module">
import { Budget, RetryClient, RetryError } from "/js/browser.js";
${SEND_AS_FAST_AS_ALLOWED}
window.flood = async (url, ms, share, limits) => {
  const budget = new Budget({ ...limits, share });
  const sent = await sendAsFastAsAllowed(budget, url, ms);
  return { sent, share: budget.share, sharing: budget.snapshot().map((s) => s.sharing) };
};
window.once = async (url, share, limits) => {
  const client = new RetryClient({ budget: new Budget({ ...limits, share }), policy: { maxAttempts: 1 } });
  try {
    return String((await client.fetch(url)).status);
  } catch (error) {
    return error.reason;
  }
};
window.timed = async (url, share, limits, policy) => {
  const client = new RetryClient({ budget: new Budget({ ...limits, share }), policy });
  const started = performance.now();
  try {
    return { status: (await client.fetch(url)).status, ms: performance.now() - started };
  } catch (error) {
    return { reason: error.reason, ms: performance.now() - started };
  }
};
window.orderThenReconcile = async (url, share, limits) => {
  const client = new RetryClient({ budget: new Budget({ ...limits, share }) });
  const key = "tab-order-1";
  const sent = await client.fetch(url, { method: "POST", body: JSON.stringify({ newClientOrderId: key }) }, { operation: "order", key })
    .then(() => "filled at once", (e) => e.reason);
  const reconciled = await client.reconcile(key, async () => "filled");
  return [sent, reconciled.resolved, reconciled.state];
};
// The same flood from a dedicated worker of this tab: it shares the budget by name too.
window.floodInWorker = (url, ms, share, limits) => new Promise((resolve, reject) => {
  const worker = new Worker("/flood-worker.js", { type: "module" });
  // The worker says when it has loaded: a message posted before its module (whose import of the
  // package awaits the wasm) has run would find no handler.
  worker.onmessage = (e) => (e.data === "ready" ? worker.postMessage([url, ms, share, limits]) : (worker.terminate(), resolve(e.data)));
  worker.onerror = (e) => (worker.terminate(), reject(new Error(e.message)));
});
window.ready = true;
</script>`;
const WORKER = `import { Budget, RetryClient, RetryError } from "/js/browser.js";
onmessage = ({ data }) => flood(...data).then(postMessage, (error) => postMessage({ error: String(error) }));
postMessage("ready");
${SEND_AS_FAST_AS_ALLOWED}
async function flood(url, ms, share, limits) {
  const budget = new Budget({ ...limits, share });
  const sent = await sendAsFastAsAllowed(budget, url, ms);
  return { sent, share: budget.share, sharing: budget.sharing };
}`;

let mock, chromium;
before(async () => ({ mock } = chromium = await startTabs(PAGE, { "/flood-worker.js": { type: "text/javascript", body: WORKER } })));
after(async () => chromium?.stop());
const tabs = (n) => chromium.tabs(n);

const limits = { capacity: 10, refillPerSecond: 5 };

test("three tabs flooding one scope through one shared budget never exceed capacity + one second of refill", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(3);
  try {
    const results = await Promise.all(pages.map((p) => p.evaluate(([url, l]) => window.flood(url, 3000, "flood", l), [`${mock.url}/shared/flood`, limits])));
    assert.deepEqual(results.map((r) => r.share), ["flood", "flood", "flood"]);
    assert.deepEqual(results.map((r) => r.sharing), [["tabs"], ["tabs"], ["tabs"]], "snapshot() says how it is kept");
    const requests = mock.requests({ path: "/shared/flood" });
    // 10 at once plus 5 a second: at most 15 in any second (one more for a token that lands on
    // the window's edge); over 3 s, at most 10 + 3 × 5 = 25 in all.
    assert.ok(busiestSecond(requests) <= 16, `busiest second: ${busiestSecond(requests)}`);
    assert.ok(requests.length <= bucketBound(requests, limits), `${requests.length} requests, bound ${bucketBound(requests, limits)}`);
    assert.ok(requests.length >= 15, `the bucket was used: ${requests.length}`);
    assert.equal(results.reduce((n, r) => n + r.sent, 0), requests.length);

    // The same tabs with budgets of their own: three buckets' worth reaches the server.
    const alone = await Promise.all(pages.map((p) => p.evaluate(([url, l]) => window.flood(url, 1500, undefined, l), [`${mock.url}/alone/flood`, limits])));
    assert.deepEqual(alone.map((r) => r.share), [undefined, undefined, undefined]);
    assert.ok(busiestSecond(mock.requests({ path: "/alone/flood" })) > 20, "without sharing, each tab spends its own bucket");
  } finally {
    await close();
  }
});

test("a tab and its dedicated worker flooding one scope share the budget too", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(2);
  try {
    const url = `${mock.url}/shared/worker`;
    const results = await Promise.all([
      pages[0].evaluate(([u, l]) => window.floodInWorker(u, 3000, "worker", l), [url, limits]),
      pages[1].evaluate(([u, l]) => window.flood(u, 3000, "worker", l), [url, limits]),
    ]);
    assert.equal(results[0].sharing, "tabs", "the worker shares by name");
    const requests = mock.requests({ path: "/shared/worker" });
    assert.ok(busiestSecond(requests) <= 16, `busiest second: ${busiestSecond(requests)}`);
    // 10 at once plus 5 a second over the span the server saw (3 s, longer on a busy machine).
    assert.ok(requests.length <= bucketBound(requests, limits), `${requests.length} requests, bound ${bucketBound(requests, limits)}`);
    assert.ok(results.every((r) => r.sent > 0), `both sent: ${results.map((r) => r.sent)}`);
    assert.equal(results[0].sent + results[1].sent, requests.length);
  } finally {
    await close();
  }
});

test("a 418 answered to one tab stops all three until it expires, with nothing at the server meanwhile", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(3);
  try {
    mock.script("/shared/ban", [{ status: 418, retryAfter: 3 }]);
    // Each tab marks its requests (the query is not part of the scope), so the server can tell them apart.
    const results = await Promise.all(pages.map((p, tab) => p.evaluate(([url, l]) => window.flood(url, 4500, "ban", l), [`${mock.url}/shared/ban?tab=${tab}`, limits])));
    const [ban, ...rest] = mock.requests({ path: "/shared/ban" });
    assert.equal(ban.status, 418);
    // The ban runs from the 418's receipt in the tab that got it, 3 s. Until that tab has recorded
    // it (under the lock), another tab may already have admitted its next request: each tab sends
    // one at a time, so at most one request per other tab reaches the server during the ban, and
    // it is that tab's first after the 418 (how late it arrives depends on the machine's load; a
    // loaded CI saw 74 ms). A tab blind to the ban would send many (the bucket allows 5 a second).
    // 10 ms of slack at the end: wall-clock ms are rounded where the state changes realm.
    const during = rest.filter((r) => r.receivedAtMs - ban.respondedAtMs < 3000 - 10);
    const byTab = {};
    for (const r of during) (byTab[r.query.tab] ??= []).push(r);
    assert.equal(byTab[ban.query.tab], undefined, "the tab that got the 418 sent nothing more during the ban");
    for (const [tab, sent] of Object.entries(byTab)) {
      assert.equal(sent.length, 1, `tab ${tab} sent during the ban at ${sent.map((r) => r.receivedAtMs - ban.respondedAtMs)} ms`);
      const first = rest.find((r) => r.query.tab === tab);
      assert.equal(sent[0].seq, first.seq, `tab ${tab}: only its first request after the 418 may race the ban`);
    }
    const after = rest.map((r) => r.receivedAtMs - ban.respondedAtMs);
    assert.ok(after.filter((ms) => ms >= 3000).length >= 1, "and sending resumed once it expired");
    assert.ok(results.every((r) => r.share === "ban"));
  } finally {
    await close();
  }
});

test("a tab closed in the middle of its flood loses nothing for the others: its lock goes, its spending stays", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(2);
  try {
    const url = `${mock.url}/shared/closing`;
    const closing = pages[0].evaluate(([u, l]) => window.flood(u, 5000, "closing", l), [url, limits]).catch(() => "closed");
    await new Promise((r) => setTimeout(r, 700));
    await pages[0].close(); // mid-step as likely as not: the browser releases its Web Lock
    assert.equal(await closing, "closed");
    const before = mock.requests({ path: url.slice(mock.url.length) }).length;
    const after = await pages[1].evaluate(([u, l]) => window.flood(u, 2000, "closing", l), [url, limits]);
    const requests = mock.requests({ path: "/shared/closing" });
    assert.ok(after.sent > 0, "the other tab goes on");
    assert.equal(requests.length, before + after.sent);
    // The closed tab's spending stays spent: together still within the one bucket.
    assert.ok(busiestSecond(requests) <= 16, `busiest second: ${busiestSecond(requests)}`);
  } finally {
    await close();
  }
});

test("a ban published by one tab wakes another tab's sleeping call, which is refused at once", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(2);
  try {
    mock.script("/shared/sleeper", [{ status: 503 }]);
    mock.script("/shared/wake-ban", [{ status: 418, retryAfter: 30 }]);
    // Tab 0: a 503, then a 3 s backoff before its retry.
    const sleeper = pages[0].evaluate(([u, l]) => window.timed(u, "wake", l, { maxAttempts: 2, baseDelayMs: 3000, maxDelayMs: 3000, jitter: "none", attemptTimeoutMs: 1000, deadlineMs: 10000 }), [`${mock.url}/shared/sleeper`, limits]);
    await new Promise((r) => setTimeout(r, 500));
    // Tab 1: a 418 on the same scope (the mock's origin), published under the share.
    assert.equal(await pages[1].evaluate(([u, l]) => window.once(u, "wake", l), [`${mock.url}/shared/wake-ban`, limits]), "banned");
    const slept = await sleeper;
    assert.equal(slept.reason, "banned");
    // Woken by the other tab's news, not by its own timer at 3 s (about 0.5 s in; 1.5 s of slack
    // for two tabs' lock steps on a shared machine).
    assert.ok(slept.ms < 2000, `refused after ${slept.ms.toFixed(0)} ms`);
    assert.equal(mock.requests({ path: "/shared/sleeper" }).length, 1, "its retry never left");
  } finally {
    await close();
  }
});

test("a tab opened during a ban joins it: refused without a request", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(1);
  try {
    mock.script("/shared/late", [{ status: 418, retryAfter: 5 }]);
    const url = `${mock.url}/shared/late`;
    assert.equal(await pages[0].evaluate(([u, l]) => window.once(u, "late", l), [url, limits]), "banned", "the 418 itself");
    assert.equal(mock.requests({ path: "/shared/late" }).length, 1);
    const later = await pages[0].context().newPage();
    await later.goto(chromium.origin);
    await later.waitForFunction(() => window.ready);
    assert.equal(await later.evaluate(([u, l]) => window.once(u, "late", l), [url, limits]), "banned");
    assert.equal(mock.requests({ path: "/shared/late" }).length, 1);
  } finally {
    await close();
  }
});

test("an order and its reconciliation run their budget steps under the shared lock, and finish", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(1);
  try {
    mock.script("/api/v3/order", [{ action: "execute-then-drop" }], { method: "POST" });
    const result = await pages[0].evaluate(([u, l]) => window.orderThenReconcile(u, "orders", l), [`${mock.url}/api/v3/order`, limits]);
    assert.deepEqual(result, ["unknown-outcome", true, "filled"]);
    assert.equal(mock.requests({ path: "/api/v3/order", method: "POST" }).length, 1);
  } finally {
    await close();
  }
});

test("three tabs with one shared budget see one breaker: opened by one tab's failures, refusing in all, one probe among them", { timeout: 60_000 }, async () => {
  const { pages, close } = await tabs(3);
  const breakerLimits = { retryQuota: false, breaker: { consecutiveFailures: 3, openMs: 1500, maxOpenMs: 1500 } };
  try {
    const url = `${mock.url}/shared/breaker`;
    const once = (page) => page.evaluate(([u, l]) => window.once(u, "breaker", l), [url, breakerLimits]);
    mock.script("/shared/breaker", [{ status: 503 }, { status: 503 }, { status: 503 }]);
    for (let i = 0; i < 3; i++) assert.equal(await once(pages[0]), "attempts");
    // Open in every tab: refused before sending.
    assert.deepEqual([await once(pages[1]), await once(pages[2]), await once(pages[0])], ["circuit-open", "circuit-open", "circuit-open"]);
    assert.equal(mock.requests({ path: "/shared/breaker" }).length, 3);
    await new Promise((r) => setTimeout(r, 1500 + 750 + 100)); // openMs, and up to half again of jitter
    mock.script("/shared/breaker", [{ status: 200, delayMs: 300 }, { status: 200 }, { status: 200 }]);
    const probed = await Promise.all(pages.map(once));
    assert.equal(mock.requests({ path: "/shared/breaker" }).length, 4, `one probe among the three tabs: ${probed}`);
    assert.deepEqual(probed.filter((r) => r === "200"), ["200"]);
    assert.ok(probed.filter((r) => r !== "200").every((r) => r === "circuit-open"), String(probed));
    // The probe's success closed it for every tab.
    assert.equal(await once(pages[2]), "200");
  } finally {
    await close();
  }
});
