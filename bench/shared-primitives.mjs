// What sharing a budget across tabs would cost (docs/shared-budgets.md): BroadcastChannel round
// trips, Web Lock acquisition, and a lock-guarded IndexedDB read-modify-write, in three headless
// Chromium tabs of one origin. A probe for the design, not part of `npm run bench`.
//   node bench/shared-primitives.mjs
const PAGE = `<!doctype html><script type="module">
const ch = new BroadcastChannel("probe");
const me = Math.random().toString(36).slice(2);
window.results = {};
ch.onmessage = (e) => { if (e.data.ping && e.data.from !== me) ch.postMessage({ pong: e.data.ping, to: e.data.from }); if (e.data.pong && e.data.to === me) window.pongs?.(e.data.pong); };
window.bcRoundTrip = async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await new Promise((r) => { window.pongs = (id) => id === i + 1 && r(); ch.postMessage({ ping: i + 1, from: me }); });
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
};
window.lockRound = async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); await navigator.locks.request("probe", () => {}); times.push(performance.now() - t); }
  return times.sort((a, b) => a - b);
};
const db = await new Promise((res, rej) => { const r = indexedDB.open("probe", 1); r.onupgradeneeded = () => r.result.createObjectStore("s"); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
window.idbRound = async (n) => {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await navigator.locks.request("probe-idb", async () => {
      const tx = db.transaction("s", "readwrite"); const st = tx.objectStore("s");
      const v = await new Promise((r) => { const g = st.get("k"); g.onsuccess = () => r(g.result ?? 0); });
      st.put(v + 1, "k");
      await new Promise((r) => (tx.oncomplete = r));
    });
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
};
window.ready = true;
</script>
`;
import { createServer } from "node:http";
import { chromium } from "playwright-core";
const server = createServer((q, r) => r.writeHead(200, { "content-type": "text/html" }).end(PAGE));
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless=new", "--no-sandbox"] });
const ctx = await browser.newContext();
const tabs = [await ctx.newPage(), await ctx.newPage(), await ctx.newPage()];
for (const t of tabs) { await t.goto(url); await t.waitForFunction(() => window.ready); }
const pct = (a) => `p50 ${a[Math.floor(a.length / 2)].toFixed(2)} p90 ${a[Math.floor(a.length * 0.9)].toFixed(2)} max ${a.at(-1).toFixed(2)} ms`;
console.log("BroadcastChannel round trip (tab 1 → others → tab 1):", pct(await tabs[0].evaluate(() => window.bcRoundTrip(200))));
console.log("Web Lock acquire+release, uncontended:", pct(await tabs[0].evaluate(() => window.lockRound(200))));
const both = await Promise.all(tabs.map((t) => t.evaluate(() => window.lockRound(200))));
console.log("Web Lock, three tabs contending:", pct(both.flat().sort((a, b) => a - b)));
console.log("lock + IndexedDB read-modify-write, one tab:", pct(await tabs[0].evaluate(() => window.idbRound(100))));
const three = await Promise.all(tabs.map((t) => t.evaluate(() => window.idbRound(100))));
console.log("lock + IndexedDB read-modify-write, three tabs contending:", pct(three.flat().sort((a, b) => a - b)));
await browser.close(); server.close();
