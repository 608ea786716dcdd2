// Scenarios of the timeline panel: each scripts the mock exchange, makes real client.fetch calls,
// and returns what happened — one entry per operation, with its records and how it stopped, and
// the route it used. Each run scripts a route of its own (ex.route), so no other panel's requests
// reach its script or its count. Every client is the page's (clients.js): its policies are the
// families of config.js, the ones the worksheet panel shows.
import { RetryError } from "retryline";
import { budget as pageBudget, client as pageClient, policyOf } from "./clients.js";
import { takeSpans, tracerProvider } from "./trace.js";

const block = (ms) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {} // what a busy main thread or a throttled tab does to timers
};

/** One operation's result: its records, how it stopped, its deadline. */
async function operation(label, call, deadlineMs) {
  const records = [];
  try {
    await call((record) => records.push(record));
    const last = records.at(-1);
    return { label, records, stop: { reason: "success", atMs: last?.endMs ?? 0 }, deadlineMs };
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    const last = error.records.at(-1);
    const atMs = last?.decision === "refused" ? last.decidedAtMs : last?.endMs ?? 0;
    return { label, records: error.records, stop: { reason: error.reason, atMs }, deadlineMs, message: error.message };
  }
}

const s = (ms) => `${ms / 1000} s`;
const worked = policyOf("worked example");

export const scenarios = [
  {
    id: "worked-example",
    name: "The article's worked example",
    about: `Deadline ${s(worked.deadlineMs)}, attempt timeout ${s(worked.attemptTimeoutMs)}, ${worked.maxAttempts} attempts, base ${s(worked.baseDelayMs)}, ` +
      `cap ${s(worked.maxDelayMs)}, ${worked.jitter} jitter (the family "worked example") with the article's draws ` +
      "(400, 600, 1200, 2400 ms). Timeout; a 429 after 0.3 s with Retry-After: 2; two timeouts. The fifth attempt would " +
      "end past the deadline, so it is refused before sleeping.",
    async run(ex) {
      const path = ex.route("timeline", "/api/v3/ticker/price");
      await ex.script(path, [{ action: "hang" }, { status: 429, delayMs: 300, retryAfter: 2 }, { action: "hang" }, { action: "hang" }]);
      // Traced: the trace panel draws this call's spans as the SDK exported them.
      const client = pageClient(ex, { draws: [400, 600, 1200, 2400], telemetry: { tracerProvider } });
      takeSpans();
      const op = await operation("read BTCUSDT", (onAttempt) => client.fetch(`${ex.url}${path}?symbol=BTCUSDT`, undefined, { onAttempt }), worked.deadlineMs);
      return { operations: [op], path, wire: await ex.wire(path), spans: takeSpans() };
    },
  },
  {
    id: "storm",
    name: "A 429 storm",
    about: "Six reads at once; the exchange answers 429 with Retry-After: 1 to the first six requests. The throttle holds the " +
      "whole scope: every client waits for the same boundary, none retries into it.",
    async run(ex) {
      const path = ex.route("timeline", "/api/v3/depth");
      await ex.script(path, Array.from({ length: 6 }, () => ({ status: 429, retryAfter: 1 })));
      const client = pageClient(ex);
      const { deadlineMs } = policyOf("429 storm");
      const ops = await Promise.all(Array.from({ length: 6 }, (_, i) =>
        operation(`read ${i + 1}`, (onAttempt) => client.fetch(`${ex.url}${path}?n=${i}`, undefined, { onAttempt }), deadlineMs)));
      return { operations: ops, path, wire: await ex.wire(path) };
    },
  },
  {
    id: "ban",
    name: "A 418 ban",
    about: "The exchange bans the IP for 3 s (418, Retry-After: 3). Every client sharing the budget is refused without a " +
      "request until it expires; a read after it goes through.",
    async run(ex) {
      const path = ex.route("timeline", "/api/v3/klines");
      await ex.script(path, [{ status: 418, retryAfter: 3 }]);
      const client = pageClient(ex);
      const { deadlineMs } = policyOf("418 ban");
      const read = (label) => operation(label, (onAttempt) => client.fetch(`${ex.url}${path}`, undefined, { onAttempt }), deadlineMs);
      const ops = [await read("the banned read"), await read("during the ban")];
      await new Promise((r) => setTimeout(r, 3100));
      ops.push(await read("after the ban"));
      return { operations: ops, path, wire: await ex.wire(path) };
    },
  },
  {
    id: "breaker",
    name: "A circuit breaker opens",
    about: "The trades scope has a breaker: 3 failures in a row open it for 1 s (and up to half again, of jitter). Three " +
      "reads get 503; the fourth is refused before sending (circuit-open). Once it is half-open one probe goes, answered " +
      "200, and that closes it: the read after it goes too.",
    async run(ex) {
      const path = ex.route("timeline", "/api/v3/trades");
      await ex.script(path, [{ status: 503 }, { status: 503 }, { status: 503 }]);
      const budget = pageBudget();
      const client = pageClient(ex, { budget });
      const { deadlineMs } = policyOf("trades (breaker)");
      const read = (label) => operation(label, (onAttempt) => client.fetch(`${ex.url}${path}`, undefined, { onAttempt }), deadlineMs);
      const ops = [];
      for (let i = 1; i <= 3; i++) ops.push(await read(`failing read ${i}`));
      ops.push(await read("while open"));
      const until = budget.snapshot().find((s) => s.scope === "trades")?.breakerOpenUntil ?? Date.now();
      await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 50));
      ops.push(await read("the probe"), await read("after it closed"));
      return { operations: ops, path, wire: await ex.wire(path) };
    },
  },
  {
    id: "hedge",
    name: "A hedged read",
    about: "maxHedges: 1, hedgeAfterMs: 150. The first request lands on a slow server (1.5 s); after 150 ms without an " +
      "answer a second request of the same read goes, is answered at once and wins; the first is aborted.",
    async run(ex) {
      const path = ex.route("timeline", "/api/v3/avgPrice");
      await ex.script(path, [{ status: 200, delayMs: 1500 }, { status: 200 }]);
      const client = pageClient(ex);
      const op = await operation("hedged read", (onAttempt) => client.fetch(`${ex.url}${path}`, undefined, { onAttempt }), policyOf("hedged read").deadlineMs);
      op.records.sort((a, b) => a.startMs - b.startMs);
      return { operations: [op], path, wire: await ex.wire(path) };
    },
  },
  {
    id: "lost-order",
    name: "A lost order, then reconciliation",
    about: "The exchange fills the order and the connection drops before the answer. The order is never resubmitted: it " +
      "ends as an unknown outcome, a second submission of its id is refused without a request, and reconciliation finds the fill.",
    async run(ex) {
      // The mock executes orders on /api/v3/order only: this run's requests are told by its order id.
      const path = "/api/v3/order";
      const id = `demo-${Date.now()}`;
      await ex.script(path, [{ action: "execute-then-drop" }], "POST");
      // The family "orders" makes it an order and finds its key, the body's newClientOrderId.
      const client = pageClient(ex);
      const submit = (label) => operation(label, (onAttempt) => client.fetch(`${ex.url}${path}?symbol=BTCUSDT`, {
        method: "POST", body: JSON.stringify({ newClientOrderId: id, side: "BUY", quantity: "1" }),
      }, { onAttempt }), policyOf("orders").deadlineMs);
      const ops = [await submit("submit"), await submit("submit again")];
      const query = async ({ signal }) => {
        const res = await fetch(`${ex.url}${path}?origClientOrderId=${id}`, { signal });
        return res.ok ? "filled" : "not-found";
      };
      const reconciled = await client.reconcile(id, query);
      ops.push({ label: `reconcile → ${reconciled.state}`, records: reconciled.records, stop: { reason: reconciled.resolved ? "resolved" : "unresolved", atMs: reconciled.records.at(-1)?.endMs ?? 0 }, deadlineMs: 60_000 });
      return { operations: ops, path, wire: await ex.wire(path, "POST", (e) => e.body.includes(id)) };
    },
  },
  {
    id: "background-tab",
    name: "A background tab's late timer",
    about: "A 503, then a 0.5 s backoff — but the main thread is busy for 3.2 s, as in a throttled background tab. On " +
      "waking, the gate checks again: the attempt would end past the 4 s deadline, so it is refused instead of sent.",
    async run(ex) {
      const path = ex.route("timeline", "/api/v3/account");
      await ex.script(path, [{ status: 503 }]);
      const client = pageClient(ex);
      const op = operation("read account", (onAttempt) => client.fetch(`${ex.url}${path}`, undefined, {
        onAttempt: (r) => {
          onAttempt(r);
          if (r.decision === "sent" && r.status === 503) setTimeout(() => block(3200), 10);
        },
      }), policyOf("account (background tab)").deadlineMs);
      return { operations: [await op], path, wire: await ex.wire(path) };
    },
  },
];
