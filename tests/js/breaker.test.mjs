// The circuit breaker per scope, at the mock exchange: a failing scope stops sending after the
// threshold and probes with one request; a recovered scope closes. Counted at the server.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { Budget, RetryClient } from "../../js/node.js";

const PATH = "/api/v3/ticker/price";
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(() => mock?.close());
beforeEach(() => mock.reset());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("a failing scope opens after the threshold, refuses before sending, probes with one request, and closes on success", async () => {
  const budget = new Budget({ retryQuota: false, breaker: { consecutiveFailures: 3, openMs: 400, maxOpenMs: 2000 } });
  const client = new RetryClient({ budget, policy: { maxAttempts: 1 } });
  mock.script(PATH, Array.from({ length: 20 }, () => ({ status: 503 })));
  for (let i = 0; i < 3; i++) assert.equal((await rejection(client.fetch(`${mock.url}${PATH}`))).reason, "attempts");
  const sent = mock.requests({ path: PATH }).length;
  assert.equal(sent, 3);
  // Open: ten more calls, none reaches the server; each says when the scope is probed.
  for (let i = 0; i < 10; i++) {
    const refused = await rejection(client.fetch(`${mock.url}${PATH}`));
    assert.equal(refused.reason, "circuit-open");
    assert.match(refused.message, /circuit breaker is open: it is probed again in \d+ ms/);
  }
  assert.equal(mock.requests({ path: PATH }).length, 3, "nothing sent while open");
  const [scope] = budget.snapshot();
  assert.equal(scope.breaker, "open");
  assert.ok(scope.breakerOpenUntil > Date.now());
  // Half-open: of five calls at once, one probe goes; the provider has recovered, so it closes.
  await sleep(scope.breakerOpenUntil - Date.now() + 20);
  mock.reset();
  mock.script(PATH, Array.from({ length: 10 }, () => ({ status: 200, delayMs: 50 })));
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => client.fetch(`${mock.url}${PATH}`)));
  assert.equal(mock.requests({ path: PATH }).length, 1, "one probe");
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  assert.ok(results.filter((r) => r.status === "rejected").every((r) => r.reason.reason === "circuit-open"));
  assert.equal(budget.snapshot()[0].breaker, "closed");
  assert.equal((await client.fetch(`${mock.url}${PATH}`)).status, 200);
});

test("a 4xx never opens it; breaker options are checked by name", async () => {
  const budget = new Budget({ retryQuota: false, breaker: true });
  const client = new RetryClient({ budget, policy: { maxAttempts: 1 } });
  mock.script(PATH, Array.from({ length: 8 }, () => ({ status: 404 })));
  for (let i = 0; i < 8; i++) assert.equal((await rejection(client.fetch(`${mock.url}${PATH}`))).reason, "non-retryable");
  assert.equal(budget.snapshot()[0].breaker, "closed");
  assert.throws(() => new Budget({ breaker: { probs: 2 } }), /breaker\.probs/);
  assert.throws(() => new Budget({ scopes: { x: { breaker: { failureRatio: 3 } } } }), /scopes\.x\.breaker\.failureRatio/);
});
