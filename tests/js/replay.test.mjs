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

test("a bad replay spec names the caller's field, never a Rust type: TypeError for types, RangeError for ranges", () => {
  const cases = [
    [{ policy: { maxAttempts: 0 } }, RangeError, "replay: policy.maxAttempts must be at least 1"],
    [{ outcomes: [{ error: "meteor" }] }, TypeError, 'replay: outcomes[0].error must be one of "timeout", "network-error"'],
    [{ draws: [0, -5] }, RangeError, "replay: draws[1] must not be negative"],
    [{ outcomes: [{}, { afterMs: "soon" }] }, TypeError, "replay: outcomes[1].afterMs must be a number, got a string"],
    [{ outcomes: [{ status: 65736 }] }, RangeError, "replay: outcomes[0].status must hold HTTP status codes between 100 and 599"],
    [{ seed: 2 ** 60 }, RangeError, "replay: seed must be at most 9007199254740991"],
    [{ colour: "red" }, TypeError, "replay: colour is not a known option"],
    [{ get policy() { throw new Error("no") } }, TypeError, "replay: spec.policy could not be read: Error: no"],
    ["spec", TypeError, "replay: spec must be an object, got a string"],
  ];
  for (const [spec, errorClass, message] of cases) {
    assert.throws(() => replay(spec), (err) => {
      assert.equal(err.constructor, errorClass, `${message}: ${err.constructor.name}: ${err.message}`);
      assert.equal(err.message, message);
      assert.doesNotMatch(err.message, /struct|u64|u16|variant|Scripted/);
      return true;
    });
  }
});

test("replays are deterministic for a seed and differ across seeds", () => {
  const storm = (seed) => replay({ seed, policy: { maxAttempts: 6, deadlineMs: 60000 }, outcomes: Array(6).fill({ status: 503 }) });
  assert.deepEqual(storm(1), storm(1));
  const draws = (seed) => storm(seed).records.map((r) => r.sampledDelayMs);
  assert.notDeepEqual(draws(1), draws(2));
});
