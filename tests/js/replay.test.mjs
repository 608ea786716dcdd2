// The JavaScript replay (wasm) gives exactly the report the Rust core gives natively.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { replay } from "../../js/node.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const spec = JSON.parse(readFileSync(`${root}/examples/worked_example.json`, "utf8"));

test("the worked example replays the same in JavaScript and in Rust", () => {
  const native = JSON.parse(
    execFileSync("cargo", ["run", "--quiet", "--example", "worked_example", "--", "--json"], { cwd: root, encoding: "utf8" }),
  );
  const js = replay(spec);
  assert.deepEqual(js, native);
  assert.equal(js.wireRequests, 4);
  assert.deepEqual(js.records.filter((r) => r.decision === "sent").map((r) => r.startMs), [0, 1900, 4200, 6900]);
  assert.deepEqual(js.stop, { reason: "deadline", atMs: 8400 });
  const fifth = js.records[4];
  assert.equal(fifth.decision, "refused");
  assert.equal(fifth.endMs, 12300, "it would have ended at 12.3 s");
});

test("a replay spec with a bad field is a TypeError that says what is wrong", () => {
  assert.throws(() => replay({ policy: { maxAttempts: 0 } }), { name: "TypeError", message: /policy\.maxAttempts must be at least 1/ });
  assert.throws(() => replay({ outcomes: [{ error: "meteor" }] }), { name: "TypeError", message: /unknown variant `meteor`/ });
  assert.throws(() => replay({ draws: [-5] }), { name: "TypeError", message: /-5/ });
});

test("replays are deterministic for a seed and differ across seeds", () => {
  const storm = (seed) => replay({ seed, policy: { maxAttempts: 6, deadlineMs: 60000 }, outcomes: Array(6).fill({ status: 503 }) });
  assert.deepEqual(storm(1), storm(1));
  const draws = (seed) => storm(seed).records.map((r) => r.sampledDelayMs);
  assert.notDeepEqual(draws(1), draws(2));
});
