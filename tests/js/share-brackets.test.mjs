// Every step on a budget shared across tabs happens inside its bracket (src/budget/sharing.rs):
// in two real Chromium tabs of one origin, each way a step used to escape it — a stream's probe
// that opens, a stream closed while its probe connects, a keyed probe whose store throws, a probe
// cut at its deadline, retries a predicate vetoes, an abort while the predicate is pending — leaves
// the breaker able to close and the retry quota where one tab alone would leave it. What reaches
// the mock exchange is counted there.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startTabs } from "./support/chromium-tabs.mjs";

// Opened by two failures, open for exactly 300 ms (its length is capped there), one probe.
const LIMITS = { breaker: { consecutiveFailures: 2, openMs: 300, maxOpenMs: 300 } };
const PAGE = `<!doctype html><script type="module">
import { Budget, RetryClient, RetryError } from "/js/browser.js";
const budgets = new Map();
// A share named quota-… has no breaker: its tests count the retry quota alone.
const limits = (share) => (share.startsWith("quota-") ? {} : ${JSON.stringify(LIMITS)});
const budget = (share) => budgets.get(share) ?? budgets.set(share, new Budget({ ...limits(share), share })).get(share);
const outcome = (p) => p.then((r) => String(r.status), (e) => (e instanceof RetryError ? e.reason : String(e)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
window.call = (share, url, policy = { maxAttempts: 1 }) => outcome(new RetryClient({ budget: budget(share), policy }).fetch(url));
window.breaker = (share) => budget(share).snapshot().map((s) => [s.breaker, s.retryQuota?.available]);
// A stream is the probe: it opens (the connection counts as up at once), or is closed while it connects.
window.streamProbe = (share, url, closeWhileConnecting) => new Promise((resolve) => {
  const stream = new RetryClient({ budget: budget(share) }).stream(url, { minUptimeMs: 0, policy: { attemptTimeoutMs: 5000 } });
  stream.addEventListener("state", (e) => e.state === "open" && (stream.close(), resolve("opened")));
  if (closeWhileConnecting) setTimeout(() => (stream.close(), resolve("closed while connecting")), 100);
});
// A keyed order is the probe: the store refuses its save before it is sent.
window.keyedProbe = (share, url) => {
  const store = { get: () => null, set: () => { throw new Error("quota exceeded"); }, delete: () => {} };
  return outcome(new RetryClient({ budget: budget(share), store }).fetch(url, { method: "POST" }, { operation: "order", key: "probe-1" }));
};
// n calls whose retry the predicate declines (each spends the retry quota, and gives it back).
window.vetoed = async (share, url, n) => {
  const client = new RetryClient({ budget: budget(share), policy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, shouldRetry: () => false } });
  const reasons = new Set();
  for (let i = 0; i < n; i++) reasons.add(await outcome(client.fetch(url)));
  return [...reasons];
};
// The caller aborts while its predicate is still thinking.
window.abortWhileAsking = (share, url) => {
  const controller = new AbortController();
  const client = new RetryClient({ budget: budget(share), policy: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, deadlineMs: 30000, shouldRetry: () => new Promise(() => {}) } });
  setTimeout(() => controller.abort(), 300);
  return outcome(client.fetch(url, undefined, { signal: controller.signal }));
};
window.sleep = sleep;
window.ready = true;
</script>`;

let mock, chromium;
before(async () => ({ mock } = chromium = await startTabs(PAGE)));
after(async () => chromium?.stop());
beforeEach(() => mock.reset());

/** Two tabs of one origin; `run(tab, fn, ...args)` evaluates in one. */
async function twoTabs() {
  const { pages, close } = await chromium.tabs(2);
  const run = (tab, fn, ...args) => pages[tab].evaluate(fn, args);
  return { run, close };
}

/** Tab A opens the scope's breaker with two 503s (counted at the server), then waits it out. */
async function openThenWait(run, share) {
  mock.script("/open", [{ status: 503 }, { status: 503 }]);
  for (let i = 0; i < 2; i++) assert.equal(await run(0, ([s, u]) => window.call(s, u), share, `${mock.url}/open`), "attempts");
  assert.equal(await run(1, ([s, u]) => window.call(s, u), share, `${mock.url}/after`), "circuit-open", "open in the other tab too");
  await run(0, ([ms]) => window.sleep(ms), 350);
}

/** The breaker can close: tab B's probe goes and succeeds, and both tabs see it closed. */
async function closes(run, share, path) {
  assert.equal(await run(1, ([s, u]) => window.call(s, u), share, `${mock.url}${path}`), "200", "the other tab's probe goes");
  assert.equal(await run(0, ([s, u]) => window.call(s, u), share, `${mock.url}${path}`), "200", "and the breaker closed for everyone");
  assert.deepEqual((await run(0, ([s]) => window.breaker(s), share)).map(([b]) => b), ["closed"]);
}

test("a stream's probe that opens closes the breaker in every tab", { timeout: 60_000 }, async () => {
  const { run, close } = await twoTabs();
  try {
    await openThenWait(run, "stream-open");
    const ws = `${mock.url.replace("http", "ws")}/ws/ticker`;
    assert.equal(await run(0, ([s, u]) => window.streamProbe(s, u, false), "stream-open", ws), "opened");
    assert.equal(await run(1, ([s, u]) => window.call(s, u), "stream-open", `${mock.url}/fine`), "200", "closed by the stream's probe");
  } finally {
    await close();
  }
});

test("a stream closed while its probe connects gives the probe's slot back", { timeout: 60_000 }, async () => {
  const { run, close } = await twoTabs();
  try {
    await openThenWait(run, "stream-closed");
    mock.streams.script("/ws/ticker", [{ action: "hang" }]);
    const ws = `${mock.url.replace("http", "ws")}/ws/ticker`;
    assert.equal(await run(0, ([s, u]) => window.streamProbe(s, u, true), "stream-closed", ws), "closed while connecting");
    await closes(run, "stream-closed", "/fine");
  } finally {
    await close();
  }
});

test("a keyed probe whose store throws before it is sent gives the slot back", { timeout: 60_000 }, async () => {
  const { run, close } = await twoTabs();
  try {
    await openThenWait(run, "store-throws");
    assert.equal(await run(0, ([s, u]) => window.keyedProbe(s, u), "store-throws", `${mock.url}/order`), "store");
    assert.equal(mock.requests({ path: "/order" }).length, 0, "the order was never sent");
    await closes(run, "store-throws", "/fine");
  } finally {
    await close();
  }
});

test("a probe cut at its deadline reopens the breaker for everyone; the next probe closes it", { timeout: 60_000 }, async () => {
  const { run, close } = await twoTabs();
  try {
    await openThenWait(run, "deadline");
    mock.script("/slow", [{ action: "hang" }]);
    const policy = { maxAttempts: 1, attemptTimeoutMs: 300, deadlineMs: 300 };
    assert.equal(await run(0, ([s, u, p]) => window.call(s, u, p), "deadline", `${mock.url}/slow`, policy), "attempts");
    assert.equal(await run(1, ([s, u]) => window.call(s, u), "deadline", `${mock.url}/fine`), "circuit-open", "its timeout opened it again");
    await run(0, ([ms]) => window.sleep(ms), 350);
    await closes(run, "deadline", "/fine");
  } finally {
    await close();
  }
});

test("100 retries a predicate vetoes give their quota back: both tabs see it full", { timeout: 60_000 }, async () => {
  const { run, close } = await twoTabs();
  try {
    mock.script("/veto", Array.from({ length: 100 }, () => ({ status: 503 })));
    const reasons = await run(0, ([s, u]) => window.vetoed(s, u, 100), "quota-veto", `${mock.url}/veto`);
    assert.deepEqual(reasons, ["non-retryable"]);
    assert.equal(mock.requests({ path: "/veto" }).length, 100, "one request each");
    // The other tab takes the budget up at its next step (a call), and sees what A left.
    assert.equal(await run(1, ([s, u]) => window.call(s, u), "quota-veto", `${mock.url}/fine`), "200");
    const [a, b] = [await run(0, ([s]) => window.breaker(s), "quota-veto"), await run(1, ([s]) => window.breaker(s), "quota-veto")];
    assert.deepEqual(b.map(([, quota]) => quota), [500], "the quota one tab alone would be left with: full");
    assert.deepEqual(a.map(([, quota]) => quota), [500]);
  } finally {
    await close();
  }
});

test("an abort while the predicate is pending is aborted, and its retry's quota comes back", { timeout: 60_000 }, async () => {
  const { run, close } = await twoTabs();
  try {
    mock.script("/asking", [{ status: 503 }]);
    assert.equal(await run(0, ([s, u]) => window.abortWhileAsking(s, u), "quota-asking", `${mock.url}/asking`), "aborted");
    assert.equal(await run(1, ([s, u]) => window.call(s, u), "quota-asking", `${mock.url}/fine`), "200");
    assert.deepEqual((await run(1, ([s]) => window.breaker(s), "quota-asking")).map(([, quota]) => quota), [500]);
  } finally {
    await close();
  }
});
