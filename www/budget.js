// Fifty widgets sharing one Budget against fifty with a private one each: what reaches the server
// per second for each group, and the shared budget's own view of itself while they run.
import { Budget, RetryClient, RetryError } from "retryline";

const WIDGETS = 50;
const RUN_MS = 6000;
const limits = { capacity: 20, refillPerSecond: 10 };

async function poll(client, url, until) {
  while (performance.now() < until) {
    try {
      await (await client.fetch(url, undefined, { priority: "refresh" })).arrayBuffer();
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
  const shared = new Budget(limits);
  const sharedClients = Array.from({ length: WIDGETS }, () => new RetryClient({ budget: shared, policy: { deadlineMs: 2000, attemptTimeoutMs: 1000 } }));
  const privateClients = Array.from({ length: WIDGETS }, () => new RetryClient({ budget: new Budget(limits), policy: { deadlineMs: 2000, attemptTimeoutMs: 1000 } }));
  const start = Date.now();
  const until = performance.now() + RUN_MS;
  const view = setInterval(() => {
    const scope = shared.snapshot()[0];
    if (scope) {
      const quota = scope.retryQuota ? `, retry quota ${scope.retryQuota.available} of ${scope.retryQuota.capacity}` : "";
      host.querySelector(".live").textContent = `shared budget now: ${scope.tokens} of ${scope.capacity} tokens${quota}, ${scope.queued} queued`;
    }
  }, 200);
  host.innerHTML = `<p class="live"></p>`;
  await Promise.all([
    ...sharedClients.map((c) => poll(c, `${ex.url}/shared/price`, until)),
    ...privateClients.map((c) => poll(c, `${ex.url}/private/price`, until)),
  ]);
  clearInterval(view);
  const [sharedLog, privateLog] = await Promise.all([ex.requests("/shared/price"), ex.requests("/private/price")]);
  host.insertAdjacentHTML("beforeend", `<div class="groups"><div>${bars("one shared Budget", perSecond(sharedLog, start))}</div>` +
    `<div>${bars("fifty private Budgets", perSecond(privateLog, start))}</div></div>`);
}
