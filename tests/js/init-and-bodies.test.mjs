// What a call's second argument, the platform's RequestInit, may carry, and what becomes of a
// request body a call could not finish reading (issue 24's defects, each failing before its fix):
// retryline's own options in `init` were lost without a word; `init`'s other members never reached
// the wrapped fetch; the platform's TypeError for a URL with credentials carried them, and the
// query's secrets, in its message; a streaming body that never ends stayed locked after the deadline.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RetryClient, RetryError } from "../../js/node.js";

/** A fetch that records its arguments and answers 200. */
function recorder() {
  const calls = [];
  return { calls, fetch: (input, init) => (calls.push({ input, init }), Promise.resolve(new Response("ok"))) };
}

test("retryline's options in fetch's second argument throw a TypeError that says they belong in the third", async () => {
  const { calls, fetch } = recorder();
  const client = new RetryClient({ fetch });
  for (const [init, name] of [
    [{ policy: { maxAttempts: 9 }, scope: "binance" }, "policy"],
    [{ scope: "binance" }, "scope"],
    [{ key: "order-1", method: "POST", body: "{}" }, "key"],
    [{ deadlineMs: 100 }, "deadlineMs"],
    [{ readBody: true }, "readBody"],
    [{ onAttempt: () => {} }, "onAttempt"],
    [{ priority: "refresh" }, "priority"],
  ]) {
    await assert.rejects(client.fetch("http://127.0.0.1:9/x", init), (e) => {
      assert.ok(e instanceof TypeError, `${name}: ${e}`);
      assert.match(e.message, new RegExp(`${name} is a retryline option.*third argument`));
      return true;
    });
  }
  assert.equal(calls.length, 0, "nothing was sent");
});

test("other retry libraries' options in init (ky, axios-retry, fetch-retry) throw a TypeError naming retryline's equivalent; asFetch's advice names asFetch", async () => {
  const { calls, fetch } = recorder();
  const client = new RetryClient({ fetch });
  for (const [name, value, equivalent] of [
    ["retry", 0, /policy: \{ maxAttempts: 1 \}/],
    ["retries", 3, /policy\.maxAttempts/],
    ["retryDelay", 100, /baseDelayMs/],
    ["timeout", 500, /attemptTimeoutMs.*deadlineMs/],
    ["hooks", { beforeRetry: [] }, /onAttempt/],
    ["throwHttpErrors", false, /asFetch\(\) resolves with any response/],
  ]) {
    await assert.rejects(client.fetch("http://127.0.0.1:9/x", { [name]: value }), (e) => {
      assert.ok(e instanceof TypeError, `${name}: ${e}`);
      assert.match(e.message, new RegExp(`init\\.${name} is not a fetch or retryline option`));
      assert.match(e.message, equivalent);
      return true;
    });
  }
  // asFetch reads init.timeout itself (ccxt's and node-fetch's); its advice for retryline's options names asFetch.
  const f = client.asFetch();
  await f("http://127.0.0.1:9/x", { timeout: 5000 });
  await assert.rejects(f("http://127.0.0.1:9/x", { policy: { maxAttempts: 1 } }), /belongs in asFetch's options, client\.asFetch\(\{ policy \}\)/);
  assert.equal(calls.length, 1, "only the call without a misplaced option was sent");
});

test("init's other members reach every attempt's fetch untouched (workerd's cf, undici's dispatcher); Fetch Priority stays the platform's", async () => {
  const { calls, fetch } = recorder();
  const dispatcher = { dispatch() {} };
  const client = new RetryClient({ fetch });
  await client.fetch("http://127.0.0.1:9/x", { cf: { cacheTtl: 5 }, dispatcher, priority: "high", headers: { "x-a": "1" } });
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].init.cf, { cacheTtl: 5 });
  assert.equal(calls[0].init.dispatcher, dispatcher);
  assert.ok(calls[0].init.signal instanceof AbortSignal);
  assert.equal(calls[0].input.headers.get("x-a"), "1");
  // With a body, each attempt's fresh Request carries the body, and the init still the members.
  await client.fetch("http://127.0.0.1:9/y", { method: "PUT", body: "b", cf: { cacheTtl: 6 } }, { operation: "idempotent" });
  assert.deepEqual(calls[1].init.cf, { cacheTtl: 6 });
  assert.equal(await calls[1].input.text(), "b");
});

test("the platform's TypeError for a URL with credentials reaches the caller redacted", async () => {
  const client = new RetryClient({ fetch: recorder().fetch });
  const error = await client.fetch("https://trader:hunter2@127.0.0.1:9/api?token=s3cr3t&symbol=BTC").then(() => assert.fail("resolved"), (e) => e);
  assert.ok(error instanceof TypeError, `${error}`);
  assert.ok(!error.message.includes("hunter2") && !error.message.includes("trader:"), error.message);
  assert.ok(!error.message.includes("s3cr3t"), error.message);
  assert.match(error.message, /symbol=BTC/, "what is not secret stays");
});

test("a streaming request body that never ends is cancelled and released when the deadline ends the call", async () => {
  let cancelled = null;
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("partial"));
    },
    pull() {
      return new Promise(() => {}); // never another chunk, never done
    },
    cancel(reason) {
      cancelled = reason;
    },
  });
  const { calls, fetch } = recorder();
  const client = new RetryClient({ fetch, policy: { attemptTimeoutMs: 200, deadlineMs: 300 } });
  const error = await client.fetch("http://127.0.0.1:9/upload", { method: "POST", body, duplex: "half" }, { operation: "idempotent" })
    .then(() => assert.fail("resolved"), (e) => e);
  assert.ok(error instanceof RetryError, `${error}`);
  assert.equal(error.reason, "deadline");
  assert.equal(error.records.at(-1).pending, "request-body");
  assert.equal(calls.length, 0, "nothing was sent");
  assert.notEqual(cancelled, null, "the body's source was cancelled");
  assert.equal(body.locked, false, "and the stream released");
});
