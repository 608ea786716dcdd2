// Streams (`client.stream`) in headless Chromium, with the browser's own WebSocket, against the
// mock exchange's WebSocket endpoint (mock-stream.mjs); what reaches the server is counted and
// timed there. Three tabs of one origin reconnecting through one shared budget
// (`new Budget({ share })`) spend one bucket between them; a tab's REST ban holds its streams.
// (A browser WebSocket does not say why an upgrade failed: a refused one is a close before open,
// retried like any network error.)
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startTabs } from "./support/chromium-tabs.mjs";

// The page: the package's browser entry, and streams the tests open, watch and close by name.
const PAGE = `<!doctype html><script type="module">
import { Budget, RetryClient, RetryError } from "/js/browser.js";
const opened = new Map(); // name -> { client, streams: [{ stream, messages, lastSeq, badSeq, stops }] }
// n streams to url?tab=<tab>&s=<i>, one client and budget (shared under share, if given).
window.openStreams = (name, url, n, tab, share, limits, policy) => {
  const budget = new Budget({ ...limits, share });
  const client = new RetryClient({ budget });
  const streams = [];
  for (let i = 0; i < n; i++) {
    const entry = { stream: client.stream(url + "?tab=" + tab + "&s=" + i, { policy }), messages: 0, lastSeq: 0, badSeq: 0, stops: [] };
    entry.stream.addEventListener("message", (e) => {
      const tick = JSON.parse(e.data);
      if (!(tick.seq > entry.lastSeq)) entry.badSeq++;
      entry.lastSeq = tick.seq;
      entry.messages++;
    });
    entry.stream.addEventListener("stop", (e) => entry.stops.push(e.reason));
    streams.push(entry);
  }
  opened.set(name, { client, streams });
  return { streams: streams.length, share: budget.share, sharing: budget.sharing };
};
window.streamStats = (name) => opened.get(name).streams.map((e) => ({ state: e.stream.state, messages: e.messages, lastSeq: e.lastSeq, badSeq: e.badSeq, stops: e.stops }));
window.closeStreams = (name) => {
  for (const e of opened.get(name)?.streams ?? []) e.stream.close();
  opened.delete(name);
};
// A call through the client of name's streams (the same budget and scope); its outcome, and a
// control timer of ms armed when it settles, which reports at the server (GET controlPath) when it
// fires: the page's own timers, late as the machine makes them, judged by the server's clock.
window.fetchThenTimer = async (name, url, ms, controlPath) => {
  const { client } = opened.get(name);
  let outcome;
  try {
    outcome = String((await client.fetch(url, undefined, { policy: { maxAttempts: 1 } })).status);
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    outcome = error.reason;
  }
  setTimeout(() => fetch(controlPath).catch(() => {}), ms);
  return outcome;
};
window.ready = true;
</script>`;

const POLICY = { baseDelayMs: 100, maxDelayMs: 400, deadlineMs: 60_000, attemptTimeoutMs: 5_000 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let mock, chromium, wsTicker;
before(async () => {
  ({ mock } = chromium = await startTabs(PAGE));
  wsTicker = `${mock.url.replace(/^http/, "ws")}/ws/ticker`;
});
after(async () => chromium?.stop());
beforeEach(() => mock.reset());
const tabs = (n) => chromium.tabs(n);

/** Polls `check` (async allowed) every 50 ms until it is truthy; fails naming `what` after `ms`. */
async function until(check, what, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * The worst excess, over every window [a_i, a_j] of the sorted server times `at`, of the j - i + 1
 * attempts in it over what one bucket allows: capacity + refill × (a_j - a_i + spreadMs). A bucket
 * never gives more; spreadMs is the transport's, between a token's take in a tab and the upgrade's
 * receipt at the server, which can bring two attempts closer than their tokens were.
 */
function bucketExcess(at, { capacity, refillPerSecond }, spreadMs) {
  const xs = [...at].sort((a, b) => a - b);
  let worst = { excess: -Infinity };
  for (let i = 0; i < xs.length; i++) {
    for (let j = i; j < xs.length; j++) {
      const allowed = capacity + (refillPerSecond * (xs[j] - xs[i] + spreadMs)) / 1000;
      const excess = j - i + 1 - allowed;
      if (excess > worst.excess) worst = { excess, count: j - i + 1, windowMs: Math.round(xs[j] - xs[i]), allowed: Math.floor(allowed) };
    }
  }
  return worst;
}

const LIMITS = { capacity: 6, refillPerSecond: 2 };
const TABS = 3;
const PER_TAB = 3;
const REFUSE_MS = 3000;
const SPREAD_MS = 250;

/** Three tabs, PER_TAB streams each under `share` (or budgets of their own), all open and ticking;
 * then the server drops them all and refuses every upgrade for REFUSE_MS. Resolves with the
 * connection log, when the drop was, and each tab's streams' stats before and after. */
async function outage(pages, share) {
  const name = share ?? "alone";
  const counts = await Promise.all(pages.map((p, tab) => p.evaluate(([n, u, k, t, s, l, policy]) => window.openStreams(n, u, k, t, s, l, policy), [name, wsTicker, PER_TAB, tab, share, LIMITS, POLICY])));
  const sharing = share === undefined ? "local" : "tabs";
  assert.deepEqual(counts, pages.map(() => ({ streams: PER_TAB, share, sharing })), "each tab's budget is kept as asked");
  const stats = () => Promise.all(pages.map((p) => p.evaluate((n) => window.streamStats(n), name)));
  await until(async () => mock.streams.openCount() === TABS * PER_TAB && (await stats()).flat().every((s) => s.messages > 0), "every stream open and ticking");
  const before = await stats();

  const droppedAt = performance.timeOrigin + performance.now();
  mock.streams.refuseFor(REFUSE_MS);
  assert.equal(mock.streams.dropAll(), TABS * PER_TAB);
  // Back: a connection accepted after the drop for every stream, and ticks on it in each tab.
  const accepted = () => new Set(mock.streams.connections({ path: "/ws/ticker" }).filter((c) => c.at > droppedAt && c.outcome === "accepted").map((c) => `${c.query.tab}/${c.query.s}`));
  await until(() => accepted().size === TABS * PER_TAB, "every stream reconnected", 30_000);
  const back = await stats();
  await until(async () => (await stats()).every((tab, t) => tab.every((s, i) => s.messages > back[t][i].messages && s.state === "open")), "ticks on every new connection");
  const afterward = await stats();
  await Promise.all(pages.map((p) => p.evaluate((n) => window.closeStreams(n), name)));
  return { log: mock.streams.connections({ path: "/ws/ticker" }), droppedAt, before, afterward };
}

test("three tabs reconnecting through one shared budget: the server sees one bucket's worth of upgrades, every stream comes back and ticks in its tab", { timeout: 90_000 }, async () => {
  const { pages, close } = await tabs(TABS);
  try {
    const { log, droppedAt, before, afterward } = await outage(pages, "streams");
    const during = log.filter((c) => c.at > droppedAt);
    const refused = during.filter((c) => c.outcome === "refused");
    assert.ok(refused.length >= 1, "upgrades were tried (and refused) during the outage");
    assert.ok(refused.every((c) => c.at < droppedAt + REFUSE_MS + 50), "refused only while refuseFor lasted");
    const tabsTrying = new Set(during.map((c) => c.query.tab));
    assert.equal(tabsTrying.size, TABS, "every tab tried");
    // One bucket for the three tabs, over every window of the whole run (the first opens too).
    const worst = bucketExcess(log.map((c) => c.at), LIMITS, SPREAD_MS);
    assert.ok(worst.excess <= 1, `one bucket allows ${worst.allowed} upgrades in ${worst.windowMs} ms, the server saw ${worst.count} (${log.length} in all, ${refused.length} refused)`);
    // Messages in each tab, before and after, in the ticker's order.
    for (const [t, tab] of afterward.entries()) {
      for (const [i, s] of tab.entries()) {
        assert.ok(s.messages > before[t][i].messages && s.lastSeq > before[t][i].lastSeq, `tab ${t} stream ${i}: ticks after the reconnect`);
        assert.equal(s.badSeq, 0, `tab ${t} stream ${i}: ticks in order`);
        assert.deepEqual(s.stops, [], `tab ${t} stream ${i} never stopped`);
      }
    }
    console.log(`# shared: ${log.length} upgrades (${refused.length} refused); worst window: ${worst.count} in ${worst.windowMs} ms (one bucket: ${worst.allowed})`);

    // The same tabs with budgets of their own: more than one bucket's worth reaches the server
    // (what makes the bound above say something).
    mock.reset();
    const alone = await outage(pages, undefined);
    const worstAlone = bucketExcess(alone.log.map((c) => c.at), LIMITS, SPREAD_MS);
    assert.ok(worstAlone.excess > 1, `without sharing, ${worstAlone.count} in ${worstAlone.windowMs} ms (one bucket: ${worstAlone.allowed})`);
    console.log(`# alone: ${alone.log.length} upgrades; worst window: ${worstAlone.count} in ${worstAlone.windowMs} ms (one bucket: ${worstAlone.allowed})`);
  } finally {
    await close();
  }
});

test("a stream reconnects after a drop; a REST 418 on its scope holds the next reconnect until the ban ends", { timeout: 60_000 }, async () => {
  const { pages: [page], close } = await tabs(1);
  try {
    assert.equal((await page.evaluate(([u, policy]) => window.openStreams("one", u, 1, 0, undefined, {}, policy), [wsTicker, POLICY])).streams, 1);
    const stats = async () => (await page.evaluate(() => window.streamStats("one")))[0];
    const log = () => mock.streams.connections({ path: "/ws/ticker" });
    await until(async () => (await stats()).messages > 0, "the first ticks");

    // A drop: reconnected, and ticking again, with later ticks.
    const first = await stats();
    assert.equal(mock.streams.dropAll(), 1);
    await until(() => log().length === 2 && log()[1].outcome === "accepted", "the reconnect");
    await until(async () => (await stats()).lastSeq > first.lastSeq + 2, "ticks on the new connection");
    const [c1, c2] = log();
    assert.equal(c1.closeCode, 1012);
    assert.ok(c2.at >= c1.closedAt, "the new connection came after the old one closed");

    // A 418 with Retry-After: 3 answered to a call of the same client on the same origin (the
    // stream's scope), then a drop: nothing reaches the server until the ban ends.
    mock.script("/api/v3/ping", [{ status: 418, retryAfter: 3 }]);
    const outcome = await page.evaluate(([u, c]) => window.fetchThenTimer("one", u, 3000, c), [`${mock.url}/api/v3/ping`, `${mock.url}/control/ban-timer`]);
    assert.equal(outcome, "banned");
    const [ban] = mock.requests({ path: "/api/v3/ping" });
    assert.equal(ban.status, 418);
    assert.equal(mock.streams.dropAll(), 1);
    const droppedAt = performance.timeOrigin + performance.now();
    await until(() => log().length > 2 && log().at(-1).outcome === "accepted", "the reconnect after the ban", 20_000);
    const [timer] = await until(() => mock.requests({ path: "/control/ban-timer" }).length && mock.requests({ path: "/control/ban-timer" }), "the page's control timer");
    const after = log().slice(2);
    // The ban runs from the 418's receipt in the page, no earlier than the server's answer: no
    // upgrade before respondedAt + 3 s (10 ms of slack: wall-clock ms are rounded where the state
    // changes realm). And then at once: within the policy's largest backoff (400 ms) and 600 ms
    // of slack of the page's own 3 s timer armed when the call settled.
    assert.ok(after[0].at >= ban.respondedAtMs + 3000 - 10, `reconnected ${Math.round(after[0].at - ban.respondedAtMs)} ms after the 418, under a 3 s ban`);
    assert.ok(after[0].at > droppedAt);
    assert.ok(after[0].at <= timer.receivedAtMs + 1000, `reconnected ${Math.round(after[0].at - timer.receivedAtMs)} ms after the page's 3 s timer fired`);
    assert.equal(after.length, 1, "one upgrade after the ban, accepted");
    const before = await stats();
    await until(async () => (await stats()).lastSeq > before.lastSeq, "ticks after the ban");
    const last = await stats();
    assert.equal(last.badSeq, 0);
    assert.deepEqual(last.stops, []);
    console.log(`# ban: reconnected ${Math.round(after[0].at - ban.respondedAtMs)} ms after the 418, ${Math.round(after[0].at - timer.receivedAtMs)} ms after the page's 3 s timer`);
    await page.evaluate(() => window.closeStreams("one"));
  } finally {
    await close();
  }
});
