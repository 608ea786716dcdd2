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
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());

test("live, the worked example sends 4 requests at the article's instants and stops at 8.4 s", async () => {
  const path = "/api/v3/ticker/price";
  mock.script(path, [{ action: "hang" }, { status: 429, delayMs: 300, retryAfter: 2 }, { action: "hang" }, { action: "hang" }]);
  const client = new RetryClient({ policy: spec.policy, draws: spec.draws });
  const error = await rejection(client.fetch(`${mock.url}${path}`));
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "deadline");
  const expected = replay(spec);
  const sent = error.records.filter((r) => r.decision === "sent");
  assert.equal(mock.requests({ path }).length, 4);
  assert.equal(sent.length, expected.wireRequests);
  // Timers fire late by a few ms (and the provider's wait gets 2 ms of slack); a loaded machine
  // adds more: each start within 150 ms after the replayed one, never before it.
  const replayed = expected.records.filter((r) => r.decision === "sent").map((r) => r.startMs);
  sent.forEach((r, i) => assert.ok(r.startMs >= replayed[i] && r.startMs - replayed[i] < 150, `attempt ${i + 1}: ${r.startMs} vs ${replayed[i]}`));
  const refused = error.records.at(-1);
  assert.equal(refused.decision, "refused");
  assert.equal(refused.attempt, 5);
  assert.ok(refused.decidedAtMs >= 8400 && refused.decidedAtMs < 8550, String(refused.decidedAtMs));
  assert.deepEqual(error.records.map((r) => r.sampledDelayMs), expected.records.map((r) => r.sampledDelayMs));
});

test("draws are checked like every option", () => {
  assert.throws(() => new RetryClient({ draws: [100, -1] }), /RetryClient: draws\[1\] must not be negative/);
  assert.throws(() => new RetryClient({ draws: "400" }), /RetryClient: draws must be an array/);
});
