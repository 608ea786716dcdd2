// What `fetch` is handed: a wrapped `fetch` always gets a `Request`; the platform's own, given a
// bare absolute URL and no init, gets the URL itself (it builds its own `Request` anyway).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { RetryClient } from "../../js/node.js";

const realFetch = globalThis.fetch;
afterEach(() => { globalThis.fetch = realFetch; });

/** A fetch that records its arguments and answers 200 (or hangs until its signal aborts). */
function recorder({ hang = false } = {}) {
  const calls = [];
  const fetch = (input, init) => {
    calls.push({ input, init });
    if (!hang) return Promise.resolve(new Response("ok"));
    return new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal.reason)));
  };
  return { calls, fetch };
}

const policy = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, attemptTimeoutMs: 200, deadlineMs: 5000 };

test("a wrapped fetch gets a Request and { signal }, for a bare URL too", async () => {
  const { calls, fetch } = recorder();
  await new RetryClient({ fetch, policy }).fetch("http://127.0.0.1:9/a?x=1");
  assert.equal(calls.length, 1);
  assert.ok(calls[0].input instanceof Request);
  assert.equal(calls[0].input.url, "http://127.0.0.1:9/a?x=1");
  assert.ok(calls[0].init.signal instanceof AbortSignal);
});

test("the platform's fetch gets a bare absolute URL as it is, with { signal }", async () => {
  const { calls, fetch } = recorder();
  globalThis.fetch = fetch;
  const records = [];
  await new RetryClient({ policy, onAttempt: (r) => records.push(r) }).fetch("HTTP://127.0.0.1:9/a?x=1");
  assert.equal(calls[0].input, "HTTP://127.0.0.1:9/a?x=1");
  assert.ok(calls[0].init.signal instanceof AbortSignal);
  assert.deepEqual([records[0].method, records[0].url], ["GET", "http://127.0.0.1:9/a?x=1"], "recorded as a Request would serialize it");
});

test("the platform's fetch gets a Request when there is an init, a Request input or credentials in the URL", async () => {
  const { calls, fetch } = recorder();
  globalThis.fetch = fetch;
  const client = new RetryClient({ policy });
  await client.fetch("http://127.0.0.1:9/a", { headers: { "x-a": "1" } });
  await client.fetch(new Request("http://127.0.0.1:9/b"));
  assert.ok(calls.every((c) => c.input instanceof Request));
  assert.equal(calls[0].input.headers.get("x-a"), "1");
  // A URL with credentials is refused as the platform refuses it: a TypeError, nothing sent.
  await assert.rejects(client.fetch("http://user:pw@127.0.0.1:9/c"), TypeError);
  await assert.rejects(client.fetch("not a url"), TypeError);
  assert.equal(calls.length, 2);
});

test("a bare URL's attempt is still aborted by our timer through its signal", async () => {
  const { calls, fetch } = recorder({ hang: true });
  globalThis.fetch = fetch;
  const error = await new RetryClient({ policy }).fetch("http://127.0.0.1:9/slow").catch((e) => e);
  assert.equal(error.reason, "attempts");
  assert.equal(calls.length, 2);
  assert.ok(calls.every((c) => c.init.signal.aborted), "each attempt's signal aborted at its timeout");
  assert.deepEqual(error.records.filter((r) => r.decision === "sent").map((r) => r.outcome), ["timeout", "timeout"]);
});

test("a scheme the platform's fetch cannot send is a TypeError at once, nothing sent; a wrapped fetch still gets it", async () => {
  const { calls, fetch } = recorder();
  globalThis.fetch = fetch;
  const client = new RetryClient({ policy });
  const error = await client.fetch("htp:/bad url").catch((e) => e);
  assert.ok(error instanceof TypeError, String(error));
  assert.match(error.message, /htp: is not a scheme fetch can send/);
  assert.equal(calls.length, 0, "nothing sent, no retries");
  // A wrapped fetch may know schemes the platform's does not: it is asked.
  const wrapped = recorder();
  await new RetryClient({ fetch: wrapped.fetch, policy }).fetch("mock://exchange/ticker");
  assert.equal(wrapped.calls.length, 1);
});
