// The reference article's worked example with real timers and Node's real fetch against the mock
// exchange: the client's `draws` option fixes the jitter to the article's 400/600/1200/2400 ms, so
// the live schedule must be the replayed one (examples/worked_example.json). Takes ~8.4 s.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { RetryClient, RetryError, replay } from "../../js/node.js";

const spec = JSON.parse(readFileSync(new URL("../../examples/worked_example.json", import.meta.url), "utf8"));
const MARGIN_MS = 100;
let mock;

/**
 * Plain timers chained like the replayed schedule (each attempt's length, then each wait), armed
 * when the call starts: how late this machine's timers run now, so a busy machine is not a failure.
 */
async function controlChain(records) {
  const from = performance.now();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const sent = records.filter((r) => r.decision === "sent");
  const starts = [];
  for (const [i, r] of sent.entries()) {
    starts.push(performance.now() - from);
    await sleep(r.endMs - r.startMs);
    await sleep((sent[i + 1]?.startMs ?? r.endMs) - r.endMs);
  }
  return { starts, end: performance.now() - from };
}
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());

test("live, the worked example sends 4 requests at the article's instants and stops at 8.4 s", async () => {
  const path = "/api/v3/ticker/price";
  mock.script(path, [{ action: "hang" }, { status: 429, delayMs: 300, retryAfter: 2 }, { action: "hang" }, { action: "hang" }]);
  const client = new RetryClient({ policy: spec.policy, draws: spec.draws });
  const expected = replay(spec);
  const control = controlChain(expected.records);
  const error = await rejection(client.fetch(`${mock.url}${path}`));
  const fired = await control;
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "deadline");
  const sent = error.records.filter((r) => r.decision === "sent");
  assert.equal(mock.requests({ path }).length, 4);
  assert.equal(sent.length, expected.wireRequests);
  // Never before the replayed instant; late by no more than the control chain (plain timers of the
  // same lengths, armed in the same run) plus a margin for the loopback and the engine — and, on a
  // machine busy enough to make the control late, that lateness once more: the call's chain runs the
  // same timers and also the aborts and the mock's work between them (a clone under load: 7040 ms
  // against a control at 6938 for an instant of 6900).
  const replayed = expected.records.filter((r) => r.decision === "sent").map((r) => r.startMs);
  const bound = (control, instant) => control + MARGIN_MS + Math.max(0, control - instant);
  sent.forEach((r, i) => {
    const what = `attempt ${i + 1}: ${r.startMs} vs ${replayed[i]}, control ${fired.starts[i].toFixed(0)}`;
    assert.ok(r.startMs >= replayed[i] && r.startMs < bound(fired.starts[i], replayed[i]), what);
  });
  const refused = error.records.at(-1);
  assert.equal(refused.decision, "refused");
  assert.equal(refused.attempt, 5);
  const ended = bound(fired.end, 8400);
  assert.ok(refused.decidedAtMs >= 8400 && refused.decidedAtMs < ended, `${refused.decidedAtMs}, control ${fired.end.toFixed(0)}`);
  assert.deepEqual(error.records.map((r) => r.sampledDelayMs), expected.records.map((r) => r.sampledDelayMs));
});

test("draws are checked like every option", () => {
  assert.throws(() => new RetryClient({ draws: [100, -1] }), /RetryClient: draws\[1\] must not be negative/);
  assert.throws(() => new RetryClient({ draws: "400" }), /RetryClient: draws must be an array/);
});
