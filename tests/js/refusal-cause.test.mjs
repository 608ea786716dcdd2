// A call refused by its scope's hold or ban says which response set it, in its message and in its
// refused record (issue 36): the newcomer's "/ok failed provider-wait after 0 requests" no longer
// reads as a bug. Against the loopback mock exchange; wire counts are the server's.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { Budget, RetryClient, RetryError } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

const iso = (ms) => new Date(ms).toISOString();

test("a hold set by another URL's 429 names that response and when the hold ends", async () => {
  const client = new RetryClient({ budget: new Budget(), policy: { deadlineMs: 5000, attemptTimeoutMs: 1000 } });
  mock.script("/ratelimited", [{ status: 429, retryAfter: 10 }]);
  const before = Date.now();
  const limited = await rejection(client.fetch(`${mock.url}/ratelimited?signature=s3cr3t`));
  assert.equal(limited.reason, "provider-wait");
  const came = mock.requests({ path: "/ratelimited" })[0].respondedAtMs;
  const refused = await rejection(client.fetch(`${mock.url}/ok`));
  assert.ok(refused instanceof RetryError);
  assert.equal(refused.reason, "provider-wait");
  const { heldBy } = refused.records.at(-1);
  assert.deepEqual([heldBy.method, heldBy.url, heldBy.status], ["GET", `${mock.url}/ratelimited?signature=REDACTED`, 429]);
  // When it came, by the client's clock, beside the server's; the hold is Retry-After's 10 s.
  assert.ok(heldBy.atWallMs >= before && Math.abs(heldBy.atWallMs - came) < 1000, `${heldBy.atWallMs} vs ${came}`);
  assert.equal(heldBy.untilWallMs - heldBy.atWallMs, 10_000);
  assert.match(refused.message, /provider-wait after 0 requests/);
  assert.ok(refused.message.includes(`(the scope is held by the 429 to GET ${mock.url}/ratelimited?signature=REDACTED at ${iso(heldBy.atWallMs)}, until ${iso(heldBy.untilWallMs)})`), refused.message);
  assert.equal(mock.requests({ path: "/ok" }).length, 0);
});

test("a ban set by a 418 is named the same way; a refusal by the call's own policy names none", async () => {
  const client = new RetryClient({ budget: new Budget() });
  mock.script("/banned", [{ status: 418, retryAfter: 60 }]);
  await rejection(client.fetch(`${mock.url}/banned`));
  const refused = await rejection(client.fetch(`${mock.url}/ok`));
  assert.equal(refused.reason, "banned");
  assert.equal(refused.records.at(-1).heldBy.status, 418);
  assert.match(refused.message, /\(the scope was banned by the 418 to GET http:\/\/127\.0\.0\.1:\d+\/banned at \S+Z, until \S+Z\)/);
  mock.script("/fails", [{ status: 503 }, { status: 503 }, { status: 503 }]);
  const other = new RetryClient({ policy: { baseDelayMs: 10, maxDelayMs: 20 } });
  const spent = await rejection(other.fetch(`${mock.url}/fails`));
  assert.equal(spent.reason, "attempts");
  assert.ok(spent.records.every((r) => r.heldBy === null));
  assert.doesNotMatch(spent.message, /held by|banned by/);
});

test("an open breaker names the last failure that opened it, and when it is probed again", async () => {
  const budget = new Budget({ breaker: { consecutiveFailures: 2, openMs: 5000, maxOpenMs: 5000 } });
  const client = new RetryClient({ budget, policy: { maxAttempts: 1 } });
  mock.script("/flaky", [{ status: 503 }, { status: 502 }]);
  for (let i = 0; i < 2; i++) assert.equal((await rejection(client.fetch(`${mock.url}/flaky`))).reason, "attempts");
  const refused = await rejection(client.fetch(`${mock.url}/ok`));
  assert.equal(refused.reason, "circuit-open");
  const { heldBy } = refused.records.at(-1);
  assert.deepEqual([heldBy.method, heldBy.url, heldBy.status], ["GET", `${mock.url}/flaky`, 502]);
  assert.ok(heldBy.untilWallMs - heldBy.atWallMs >= 5000 && heldBy.untilWallMs - heldBy.atWallMs < 7600, JSON.stringify(heldBy));
  assert.ok(refused.message.includes(`(the breaker opened after failures there; the last: the 502 to GET ${mock.url}/flaky at ${iso(heldBy.atWallMs)}, until ${iso(heldBy.untilWallMs)})`), refused.message);
  assert.equal(mock.requests({ path: "/ok" }).length, 0);
});

test("a refusal by the scope's tokens says when they would come, beside the time that was left", async () => {
  const client = new RetryClient({ budget: new Budget({ capacity: 1, refillPerSecond: 0.5, reserve: 0 }), policy: { deadlineMs: 1000, attemptTimeoutMs: 500 } });
  mock.script("/ok", [{ status: 200 }]);
  assert.equal((await client.fetch(`${mock.url}/ok`)).status, 200);
  const refused = await rejection(client.fetch(`${mock.url}/ok`));
  assert.equal(refused.reason, "budget");
  const record = refused.records.at(-1);
  assert.equal(record.limit, "tokens");
  // The token spent comes back after 2 s at 0.5 a second: far past this call's 1 s.
  assert.ok(record.budgetWaitMs > 1500 && record.budgetWaitMs <= 2000, JSON.stringify(record));
  assert.match(refused.message, new RegExp(`\\(the scope's tokens would come in ${record.budgetWaitMs} ms, with ${record.remainingMs} ms left\\)`));
  assert.equal(mock.requests({ path: "/ok" }).length, 1);
});
