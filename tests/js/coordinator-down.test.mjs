// `new Budget({ coordinator })` when the coordinator is down, slow or answers nonsense: no request
// waits on it longer than the contact bound (250 ms), and the budget goes on alone, saying so.
// (The coordinator itself, in real workerd isolates: tests/js/package/workerd-coordinator.test.mjs.)
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, Budget } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

/** A Durable Object namespace whose objects answer every fetch with `answer()`; counts the visits. */
function namespace(answer) {
  const ns = { visits: [], idFromName: (name) => ({ name }), get: (id) => ({ fetch: (url, init) => (ns.visits.push({ id: id.name, body: JSON.parse(init.body) }), answer()) }) };
  return ns;
}

const policy = { maxAttempts: 1, deadlineMs: 5000, attemptTimeoutMs: 1000 };

for (const [down, answer] of [
  ["never answers", () => new Promise(() => {})],
  ["throws", () => { throw new Error("no such object"); }],
  ["answers 500", () => new Response("overloaded", { status: 500 })],
  ["answers nonsense", () => Response.json({ tokens: "all" })],
]) {
  test(`a coordinator that ${down}: the first call waits at most the contact bound, later ones not at all, and all are sent`, async () => {
    const ns = namespace(answer);
    const budget = new Budget({ capacity: 10, refillPerSecond: 5, coordinator: ns, share: "desk" });
    assert.equal(budget.sharing, "coordinator");
    const client = new RetryClient({ budget, policy });
    const started = performance.now();
    assert.equal((await client.fetch(`${mock.url}/co/down`)).status, 200);
    const first = performance.now() - started;
    // 250 ms bound; 150 ms of slack for timers and a shared 2-core machine.
    assert.ok(first < 400, `the first call waited ${first.toFixed(0)} ms`);
    assert.equal(budget.sharing, "unreachable");
    assert.equal(budget.snapshot()[0].sharing, "unreachable", "snapshot() says so too");
    const later = performance.now();
    for (let i = 0; i < 4; i++) assert.equal((await client.fetch(`${mock.url}/co/down`)).status, 200);
    assert.ok(performance.now() - later < 400, "later calls do not wait for it");
    assert.equal(mock.requests({ path: "/co/down" }).length, 5, "every call reached the server, on this realm's own bucket");
    assert.equal(ns.visits[0].id, "desk:" + new URL(mock.url).origin, "one coordinator per scope, named <share>:<scope>");
    assert.deepEqual(JSON.parse(ns.visits[0].body.limits), { capacity: 10, refillPerSecond: 5 }, "the coordinator hears the limits");
    assert.ok(ns.visits.length <= 2, `asked again at most every 500 ms in the background: ${ns.visits.length}`);
  });
}

test("a coordinator's answer is taken up: its ban refuses without a request, its lease is what this realm spends", async () => {
  const wall = Date.now();
  const ns = namespace(() => Response.json([2, wall, 0, wall + 60_000]));
  const budget = new Budget({ capacity: 10, refillPerSecond: 5, coordinator: ns });
  const client = new RetryClient({ budget, policy });
  await assert.rejects(client.fetch(`${mock.url}/co/banned`), (e) => e.reason === "banned");
  assert.equal(mock.requests({ path: "/co/banned" }).length, 0);
  assert.ok(budget.snapshot()[0].banRemainingMs > 59_000);

  const lease = namespace(() => Response.json([2, Date.now(), 0, 0]));
  const leased = new Budget({ capacity: 10, refillPerSecond: 5, coordinator: lease });
  const reader = new RetryClient({ budget: leased, policy: { ...policy, deadlineMs: 300, attemptTimeoutMs: 100 } });
  const results = await Promise.allSettled([1, 2, 3].map(() => reader.fetch(`${mock.url}/co/leased`)));
  // Each step asks for a lease of one token and is given two: three calls, at least one lease visit each
  // that found no room; whatever the interleaving, no call is sent without a leased token.
  const sent = mock.requests({ path: "/co/leased" }).length;
  assert.equal(sent, results.filter((r) => r.status === "fulfilled").length);
  assert.ok(lease.visits.every((v) => v.body.weight === 1 && v.body.priority === "read"));
  assert.ok(sent <= 2 * lease.visits.length, `${sent} sent on ${lease.visits.length} leases of two`);
});

test("a coordinator that is not a Durable Object namespace is refused, naming the field", async () => {
  for (const bad of [{}, { idFromName: 1, get() {} }, "RETRY_BUDGET"]) {
    assert.throws(() => new Budget({ coordinator: bad }), (e) => e instanceof TypeError && /coordinator/.test(e.message), JSON.stringify(bad));
  }
  const getter = { get idFromName() { throw new Error("hostile"); }, get() {} };
  assert.throws(() => new Budget({ coordinator: getter }), (e) => e instanceof TypeError && /coordinator/.test(e.message) && /hostile/.test(e.message));
  assert.equal(new Budget({}).sharing, "local");
  const tabs = new Budget({ share: "tabs", capacity: 1, refillPerSecond: 1 });
  assert.equal(tabs.sharing, "local", "Node has no Web Locks + IndexedDB: the budget works alone");
  assert.equal(tabs.share, undefined);
  await new RetryClient({ budget: tabs }).fetch(`${mock.url}/co/local`);
  assert.equal(tabs.snapshot()[0].sharing, "local", "and snapshot() says so");
});
