// The dashboard page of bench/dashboard-reads.mjs: 50 widgets, each polling one ticker every
// 500 ms through one contender, and what each widget showed (fresh, stale, blank) at every answer.
// Served from the repository (retryline's browser entry and the peers from node_modules) beside
// the ticker, on one loopback origin.

export const IMPORTS = {
  ky: "/node_modules/ky/distribution/index.js",
  "p-retry": "/node_modules/p-retry/index.js",
  "is-network-error": "/node_modules/is-network-error/index.js",
  "fetch-extras": "/node_modules/fetch-extras/source/index.js",
};

export const PAGE = `<!doctype html>
<script type="importmap">${JSON.stringify({ imports: IMPORTS })}</script>
<script type="module">
import { Budget, RetryClient, staleness } from "/js/browser.js";
import ky from "ky";
import pRetry from "p-retry";
import { pipeline, withDeduplication, withRetry } from "fetch-extras";

// Every contender retries twice within a poll; retryline keeps a poll within 1 s.
const policy = { maxAttempts: 3, deadlineMs: 1000, attemptTimeoutMs: 800, baseDelayMs: 50 };
const price = async (res) => (await res.json()).price;
const CONTENDERS = {
  "retryline, shared budget": (share) => {
    const client = new RetryClient({ budget: new Budget({ share }), staleIfErrorMs: 30000, policy });
    return async (url) => { const res = await client.fetch(url); return { price: await price(res), stale: staleness(res) !== null }; };
  },
  "retryline, shared + coalesce": (share) => {
    const client = new RetryClient({ budget: new Budget({ share }), coalesce: true, staleIfErrorMs: 30000, policy });
    return async (url) => { const res = await client.fetch(url); return { price: await price(res), stale: staleness(res) !== null }; };
  },
  "fetch-extras withDeduplication + withRetry": () => {
    const f = pipeline(fetch, withRetry({ retries: 2 }), withDeduplication());
    return async (url) => { const res = await f(url); if (!res.ok) throw new Error(String(res.status)); return { price: await price(res), stale: false }; };
  },
  ky: () => async (url) => ({ price: (await ky.get(url, { retry: 2, timeout: 800 }).json()).price, stale: false }),
  "p-retry": () => async (url) => pRetry(async () => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(String(res.status));
    return { price: await price(res), stale: false };
  }, { retries: 2, minTimeout: 50 }),
};

// Each widget polls from startAt (wall ms) every everyMs for forMs: what it showed, and for how
// long it showed nothing after it had shown something.
window.run = async (name, { widgets, everyMs, forMs, startAt, share }) => {
  const read = CONTENDERS[name](share);
  const url = location.origin + "/ticker/" + encodeURIComponent(name);
  const end = startAt + forMs;
  const one = async () => {
    const seen = { fresh: 0, stale: 0, blank: 0, blankMs: 0, staleMs: 0 };
    let shown = "none";
    let since = 0;
    const show = (state, at) => {
      if (shown === "blank") seen.blankMs += at - since;
      if (shown === "stale") seen.staleMs += at - since;
      shown = state;
      since = at;
    };
    for (let tick = startAt; tick < end; tick += everyMs) {
      await new Promise((r) => setTimeout(r, Math.max(0, tick - Date.now())));
      let state;
      try {
        state = (await read(url)).stale ? "stale" : "fresh";
      } catch {
        state = shown === "none" ? "none" : "blank";
      }
      if (state !== "none") seen[state]++;
      if (state !== "none") show(state, Date.now());
    }
    show("end", Math.max(Date.now(), end));
    return seen;
  };
  return Promise.all(Array.from({ length: widgets }, one));
};
window.ready = true;
</script>`;
