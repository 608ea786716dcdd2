// Option values that are graphs, not trees — objects that point at each other (an SDK's provider
// handed where an option goes) — are refused in bounded time and memory, naming the field.
// Run: node scripts/build.mjs --quiet && node --test tests/js/option-graphs.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { RetryClient, Budget } from "../../js/node.js";

/** Two small objects that each point at the other twice: written as a tree, 2^32 values. */
function tangle() {
  const a = { name: "a" };
  const b = { name: "b" };
  a.left = b;
  a.right = b;
  b.left = a;
  b.right = a;
  return a;
}

/** A graph with no cycle that is still too large as a tree: 20 levels, each pointing twice at the next. */
function ladder(levels = 20) {
  let node = { end: true };
  for (let i = 0; i < levels; i++) node = { left: node, right: node };
  return node;
}

test("an unknown option that holds a cycle is named as unknown, at once", () => {
  const started = performance.now();
  assert.throws(() => new RetryClient({ instrumentation: tangle() }), (e) => e instanceof TypeError && /instrumentation is not a known option/.test(e.message));
  assert.ok(performance.now() - started < 2000, "refused in bounded time");
});

test("a known option that holds a cycle or too large a graph is refused at once, naming the field", () => {
  // Bounded work, in this process's CPU time (two busy cores stretch the wall clock, not this).
  const cpu = process.cpuUsage();
  for (const value of [tangle(), ladder(), [tangle()], [ladder()]]) {
    assert.throws(() => new Budget({ scopes: { x: { capacity: value } } }), (e) => e instanceof TypeError && /scopes\.x\.capacity must be a number/.test(e.message));
    assert.throws(() => new Budget({ scopes: { x: value } }), (e) => e instanceof TypeError && /scopes\.x/.test(e.message));
  }
  // Walked as trees these would be 2^32 and 2^20 values: far past this bound.
  const { user, system } = process.cpuUsage(cpu);
  assert.ok((user + system) / 1000 < 2000, `refused in bounded time: ${((user + system) / 1000).toFixed(0)} ms of CPU`);
  // A subobject shared by two fields, with no cycle, is read as a tree.
  const scope = { capacity: 5, refillPerSecond: 1 };
  assert.equal(new Budget({ scopes: { a: scope, b: scope } }).sharing, "local");
});

test("the client still works afterwards", async () => {
  const client = new RetryClient({ fetch: () => Promise.resolve(new Response("ok")) });
  assert.throws(() => new RetryClient({ telemetry: tangle() }), TypeError);
  assert.equal((await client.fetch("http://127.0.0.1:9/ok")).status, 200);
});
