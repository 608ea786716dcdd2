// Fifty widgets sharing one Budget against fifty with a private one each, and fifty more whose reads
// are coalesced (one request for all) and served stale through an outage: what reaches the server
// per second for each group, the shared budget's own view of itself while they run, and the
// coalesced widgets' values, greyed with their age while stale. The widgets' policy, priority
// (refresh) and scope are the family "widgets" of config.js; the budgets have its limits (BUDGET).
import { RetryError, staleness } from "retryline";
import { BUDGET } from "./config.js";
import { budget, client } from "./clients.js";

const WIDGETS = 50;
const RUN_MS = 6000;
const limits = BUDGET.scopes.widgets;
const RESERVE = 0.2; // the Budget default: refreshes (these widgets) never dip into it

/** The shared budget's own view of its scope, as bars and countdowns. */
function live(scope) {
  const pct = (n, of) => `${Math.max(0, Math.min(100, (100 * n) / of))}%`;
  const reserveAt = pct(Math.floor(limits.capacity * RESERVE), limits.capacity);
  const quota = scope.retryQuota;
  return `<div>tokens <b data-tokens>${scope.tokens}</b> of ${scope.capacity} · the priority reserve (${RESERVE * 100} %) is kept for orders and reconciliation</div>
    <div class="bar" style="position:relative"><span style="width:${pct(scope.tokens ?? 0, scope.capacity ?? 1)}"></span><i style="position:absolute;left:${reserveAt};top:0;bottom:0;border-left:2px solid #d12d2d"></i></div>
    ${quota ? `<div>retry quota ${quota.available} of ${quota.capacity}</div><div class="bar"><span style="width:${pct(quota.available, quota.capacity)}"></span></div>` : ""}
    <div>hold: ${scope.holdRemainingMs ? `${(scope.holdRemainingMs / 1000).toFixed(1)} s left` : "none"} · ban: ${scope.banRemainingMs ? `${(scope.banRemainingMs / 1000).toFixed(1)} s left` : "none"} · queued: ${scope.queued}</div>`;
}

async function poll(client, url, until, shown = (res) => res.arrayBuffer()) {
  while (performance.now() < until) {
    try {
      await shown(await client.fetch(url));
    } catch (error) {
      if (!(error instanceof RetryError)) throw error; // refused by the budget: this refresh is skipped
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

function perSecond(entries, start) {
  const counts = new Map();
  for (const e of entries) {
    const second = Math.floor((e.at - start) / 1000);
    counts.set(second, (counts.get(second) ?? 0) + 1);
  }
  return [...Array(Math.ceil(RUN_MS / 1000)).keys()].map((s) => counts.get(s) ?? 0);
}

function bars(title, counts) {
  const max = Math.max(1, ...counts);
  return `<h3>${title}</h3>${counts.map((n, s) => `<div>second ${s + 1}: <b>${n}</b> requests</div><div class="bar"><span style="width:${(100 * n) / max}%"></span></div>`).join("")}`;
}

/** Widget `i` of the coalesced group shows what its read resolved with: greyed with its age if stale. */
function shower(host, i) {
  return async (res) => {
    const { seq } = await res.json();
    const tile = host.querySelector(`.tiles [data-i="${i}"]`);
    const mark = staleness(res);
    if (mark !== null) host.dataset.staleShown = String(Number(host.dataset.staleShown ?? 0) + 1);
    tile.classList.toggle("stale", mark !== null);
    tile.textContent = mark === null ? `#${seq}` : `#${seq} · ${(mark.ageMs / 1000).toFixed(1)} s old`;
    tile.title = mark === null ? "fresh" : `stale: the fresh read ended with ${mark.reason}`;
  };
}

export async function runWidgets(host, ex) {
  const shared = budget();
  const sharedClients = Array.from({ length: WIDGETS }, () => client(ex, { budget: shared }));
  const privateClients = Array.from({ length: WIDGETS }, () => client(ex, { budget: budget() }));
  const together = budget();
  const coalescedClients = Array.from({ length: WIDGETS }, () => client(ex, { budget: together, coalesce: true, staleIfErrorMs: 30_000 }));
  const paths = { shared: ex.route("budget", "/shared/price"), private: ex.route("budget", "/private/price"), coalesced: ex.route("budget", "/coalesced/price") };
  Object.assign(host.dataset, { sharedPath: paths.shared, privatePath: paths.private, coalescedPath: paths.coalesced, staleShown: "0" });
  // Three answers, then the provider fails three polls (two attempts each): the coalesced widgets show their last value, stale.
  await ex.script(paths.coalesced, [...Array(3).fill({}), ...Array(6).fill({ status: 503 })]);
  const start = Date.now();
  const until = performance.now() + RUN_MS;
  const tiles = Array.from({ length: WIDGETS }, (_, i) => `<span class="tile" data-i="${i}">–</span>`).join("");
  host.innerHTML = `<h3>the shared budget, live</h3><div class="live"></div><h3>fifty coalesced widgets (greyed: stale, with its age)</h3><div class="tiles">${tiles}</div>`;
  const view = setInterval(() => {
    const scope = shared.snapshot()[0];
    if (scope) host.querySelector(".live").innerHTML = live(scope);
  }, 200);
  await Promise.all([
    ...sharedClients.map((c) => poll(c, `${ex.url}${paths.shared}`, until)),
    ...privateClients.map((c) => poll(c, `${ex.url}${paths.private}`, until)),
    ...coalescedClients.map((c, i) => poll(c, `${ex.url}${paths.coalesced}`, until, shower(host, i))),
  ]);
  clearInterval(view);
  const [sharedLog, privateLog, coalescedLog] = await Promise.all([ex.requests(paths.shared), ex.requests(paths.private), ex.requests(paths.coalesced)]);
  host.insertAdjacentHTML("beforeend", `<div class="groups"><div>${bars("one shared Budget", perSecond(sharedLog, start))}</div>` +
    `<div>${bars("fifty private Budgets", perSecond(privateLog, start))}</div>` +
    `<div>${bars("coalesced, with staleIfErrorMs", perSecond(coalescedLog, start))}</div></div>`);
}
