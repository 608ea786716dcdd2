// Scenarios of the timeline panel: each scripts the mock exchange, makes real client.fetch calls,
// and returns what happened — one entry per operation, with its records and how it stopped.
import { RetryClient, RetryError, Budget } from "retryline";

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

export const scenarios = [
  {
    id: "worked-example",
    name: "The article's worked example",
    about: "Deadline 12 s, attempt timeout 1.5 s, 5 attempts, base 0.5 s, cap 4 s, full jitter with the article's draws " +
      "(400, 600, 1200, 2400 ms). Timeout; a 429 after 0.3 s with Retry-After: 2; two timeouts. The fifth attempt would " +
      "end past the deadline, so it is refused before sleeping.",
    async run(ex) {
      const path = "/api/v3/ticker/price";
      await ex.script(path, [{ action: "hang" }, { status: 429, delayMs: 300, retryAfter: 2 }, { action: "hang" }, { action: "hang" }]);
      const policy = { deadlineMs: 12_000, attemptTimeoutMs: 1500, maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 4000, jitter: "full" };
      const client = new RetryClient({ policy, draws: [400, 600, 1200, 2400] });
      const op = await operation("read BTCUSDT", (onAttempt) => client.fetch(`${ex.url}${path}?symbol=BTCUSDT`, undefined, { onAttempt }), policy.deadlineMs);
      return { operations: [op], wire: await ex.wire(path) };
    },
  },
  {
    id: "storm",
    name: "A 429 storm",
    about: "Six reads at once; the exchange answers 429 with Retry-After: 1 to the first six requests. The throttle holds the " +
      "whole scope: every client waits for the same boundary, none retries into it.",
    async run(ex) {
      const path = "/api/v3/depth";
      await ex.script(path, Array.from({ length: 6 }, () => ({ status: 429, retryAfter: 1 })));
      const client = new RetryClient({ budget: new Budget(), policy: { deadlineMs: 5000, attemptTimeoutMs: 1000, baseDelayMs: 100, retryAfterSpreadMs: 200 } });
      const ops = await Promise.all(Array.from({ length: 6 }, (_, i) =>
        operation(`read ${i + 1}`, (onAttempt) => client.fetch(`${ex.url}${path}?n=${i}`, undefined, { onAttempt }), 5000)));
      return { operations: ops, wire: await ex.wire(path) };
    },
  },
  {
    id: "ban",
    name: "A 418 ban",
    about: "The exchange bans the IP for 3 s (418, Retry-After: 3). Every client sharing the budget is refused without a " +
      "request until it expires; a read after it goes through.",
    async run(ex) {
      const path = "/api/v3/klines";
      await ex.script(path, [{ status: 418, retryAfter: 3 }]);
      const budget = new Budget();
      const client = new RetryClient({ budget, policy: { deadlineMs: 2000, attemptTimeoutMs: 1000 } });
      const read = (label) => operation(label, (onAttempt) => client.fetch(`${ex.url}${path}`, undefined, { onAttempt }), 2000);
      const ops = [await read("the banned read"), await read("during the ban")];
      await new Promise((r) => setTimeout(r, 3100));
      ops.push(await read("after the ban"));
      return { operations: ops, wire: await ex.wire(path) };
    },
  },
  {
    id: "lost-order",
    name: "A lost order, then reconciliation",
    about: "The exchange fills the order and the connection drops before the answer. The order is never resubmitted: it " +
      "ends as an unknown outcome, a second submission of its id is refused without a request, and reconciliation finds the fill.",
    async run(ex) {
      const path = "/api/v3/order";
      const id = `demo-${Date.now()}`;
      await ex.script(path, [{ action: "execute-then-drop" }], "POST");
      const client = new RetryClient({ policy: { deadlineMs: 5000, attemptTimeoutMs: 2000 } });
      const submit = (label) => operation(label, (onAttempt) => client.fetch(`${ex.url}${path}?symbol=BTCUSDT`, {
        method: "POST", body: JSON.stringify({ newClientOrderId: id, side: "BUY", quantity: "1" }),
      }, { operation: "order", key: id, onAttempt }), 5000);
      const ops = [await submit("submit"), await submit("submit again")];
      const query = async ({ signal }) => {
        const res = await fetch(`${ex.url}${path}?origClientOrderId=${id}`, { signal });
        return res.ok ? "filled" : "not-found";
      };
      const reconciled = await client.reconcile(id, query);
      ops.push({ label: `reconcile → ${reconciled.state}`, records: reconciled.records, stop: { reason: reconciled.resolved ? "resolved" : "unresolved", atMs: reconciled.records.at(-1)?.endMs ?? 0 }, deadlineMs: 60_000 });
      return { operations: ops, wire: await ex.wire(path, "POST") };
    },
  },
  {
    id: "background-tab",
    name: "A background tab's late timer",
    about: "A 503, then a 0.5 s backoff — but the main thread is busy for 3.2 s, as in a throttled background tab. On " +
      "waking, the gate checks again: the attempt would end past the 4 s deadline, so it is refused instead of sent.",
    async run(ex) {
      const path = "/api/v3/account";
      await ex.script(path, [{ status: 503 }]);
      const client = new RetryClient({ policy: { deadlineMs: 4000, attemptTimeoutMs: 1000, jitter: "none", baseDelayMs: 500 } });
      const op = operation("read account", (onAttempt) => client.fetch(`${ex.url}${path}`, undefined, {
        onAttempt: (r) => {
          onAttempt(r);
          if (r.decision === "sent" && r.status === 503) setTimeout(() => block(3200), 10);
        },
      }), 4000);
      return { operations: [await op], wire: await ex.wire(path) };
    },
  },
];
