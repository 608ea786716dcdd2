// Fifty widgets sharing one Budget against fifty with a private one each: what reaches the server
// per second for each group, and the shared budget's own view of itself while they run. The
// widgets' policy, priority (refresh) and scope are the family "widgets" of config.js; the
// budgets have its limits (BUDGET: a bucket for that scope).
import { RetryError } from "retryline";
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

async function poll(client, url, until) {
  while (performance.now() < until) {
    try {
      await (await client.fetch(url)).arrayBuffer();
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

export async function runWidgets(host, ex) {
  const shared = budget();
  const sharedClients = Array.from({ length: WIDGETS }, () => client(ex, { budget: shared }));
  const privateClients = Array.from({ length: WIDGETS }, () => client(ex, { budget: budget() }));
  const paths = { shared: ex.route("budget", "/shared/price"), private: ex.route("budget", "/private/price") };
  Object.assign(host.dataset, { sharedPath: paths.shared, privatePath: paths.private });
  const start = Date.now();
  const until = performance.now() + RUN_MS;
  host.innerHTML = `<h3>the shared budget, live</h3><div class="live"></div>`;
  const view = setInterval(() => {
    const scope = shared.snapshot()[0];
    if (scope) host.querySelector(".live").innerHTML = live(scope);
  }, 200);
  await Promise.all([
    ...sharedClients.map((c) => poll(c, `${ex.url}${paths.shared}`, until)),
    ...privateClients.map((c) => poll(c, `${ex.url}${paths.private}`, until)),
  ]);
  clearInterval(view);
  const [sharedLog, privateLog] = await Promise.all([ex.requests(paths.shared), ex.requests(paths.private)]);
  host.insertAdjacentHTML("beforeend", `<div class="groups"><div>${bars("one shared Budget", perSecond(sharedLog, start))}</div>` +
    `<div>${bars("fifty private Budgets", perSecond(privateLog, start))}</div></div>`);
}
