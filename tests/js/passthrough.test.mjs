// By default a response is handed on as the platform gave it (its body unread, so streams
// stream); `readBody: true` reads the body inside the attempt timeout and rebuilds it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { RetryClient, RetryError } from "../../js/node.js";

let server, url;
const STREAM_GAP_MS = 300;
before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/stream") {
      // Head and a first chunk now, the last chunk later: a streamed body.
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first;");
      setTimeout(() => res.end(`last@${Date.now()}`), STREAM_GAP_MS);
    } else if (path === "/503") {
      res.writeHead(503, { "content-type": "text/plain" }).end("busy");
    } else {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));

const policy = { baseDelayMs: 1, maxDelayMs: 1, jitter: "none", maxAttempts: 3, attemptTimeoutMs: 2000, deadlineMs: 10_000 };

test("a successful response is the very object the fetch resolved with", async () => {
  const given = [];
  const fetch = async (input, init) => { const r = await globalThis.fetch(input, init); given.push(r); return r; };
  const res = await new RetryClient({ fetch, policy }).fetch(`${url}/ok`);
  assert.equal(given.length, 1);
  assert.equal(res, given[0], "handed on, not rebuilt");
  assert.equal(await res.text(), "ok");
});

test("a streamed body streams: the call resolves before the body has ended", async () => {
  const client = new RetryClient({ policy });
  const res = await client.fetch(`${url}/stream`);
  const resolvedAt = Date.now();
  const text = await res.text();
  const endedAt = Number(text.split("@")[1]);
  assert.match(text, /^first;last@\d+$/);
  // The server wrote the last chunk ~300 ms after the head; the call had resolved before that
  // (20 ms of slack for the server's and our timers).
  assert.ok(resolvedAt <= endedAt + 20, `resolved ${resolvedAt - endedAt} ms after the body ended`);
});

test("readBody: true buffers inside the attempt timeout and hands on a rebuilt response", async () => {
  const given = [];
  const fetch = async (input, init) => { const r = await globalThis.fetch(input, init); given.push(r); return r; };
  const client = new RetryClient({ fetch, policy });
  const res = await client.fetch(`${url}/stream`, undefined, { readBody: true });
  const resolvedAt = Date.now();
  const text = await res.text();
  assert.notEqual(res, given[0], "rebuilt from the bytes");
  // Causal order on one clock (the server runs in this process): the last chunk was stamped before it was sent.
  assert.ok(resolvedAt >= Number(text.split("@")[1]), "resolved only once the body had ended");
  assert.equal(res.status, 200);
  assert.equal(res.url, `${url}/stream`);
});

test("a client-wide readBody: true is the default of its calls; a call may turn it off", async () => {
  const given = [];
  const fetch = async (input, init) => { const r = await globalThis.fetch(input, init); given.push(r); return r; };
  const client = new RetryClient({ fetch, policy, readBody: true });
  const buffered = await client.fetch(`${url}/ok`);
  const passed = await client.fetch(`${url}/ok`, undefined, { readBody: false });
  assert.notEqual(buffered, given[0]);
  assert.equal(passed, given[1]);
  assert.deepEqual([await buffered.text(), await passed.text()], ["ok", "ok"]);
});

test("the unread body of a response that is retried is cancelled; the last one reaches the caller unread", async () => {
  const cancelled = [];
  let n = 0;
  const fetch = async () => {
    const i = n++;
    const body = new ReadableStream({ pull(c) { c.enqueue(new TextEncoder().encode(`body ${i}`)); c.close(); }, cancel: () => cancelled.push(i) });
    return new Response(body, { status: 503 });
  };
  const error = await new RetryClient({ fetch, policy }).fetch(`${url}/503`).catch((e) => e);
  assert.ok(error instanceof RetryError);
  assert.equal(error.reason, "attempts");
  await new Promise((r) => setTimeout(r, 10)); // cancel() runs as a microtask of the stream
  assert.deepEqual(cancelled, [0, 1], "the two responses that were retried");
  assert.equal(await error.response.text(), "body 2", "the last body is the caller's to read");
});

test("a failed call's response keeps its body and shows a redacted URL", async () => {
  const client = new RetryClient({ policy: { ...policy, maxAttempts: 1 } });
  const error = await client.fetch(`${url}/503?signature=abc123&symbol=BTC`).catch((e) => e);
  assert.equal(error.response.status, 503);
  assert.doesNotMatch(error.response.url, /abc123/);
  assert.match(error.response.url, /symbol=BTC/);
  assert.equal(await error.response.text(), "busy");
});

test("readBody must be a boolean", () => {
  assert.throws(() => new RetryClient({ readBody: "yes" }), (e) => e instanceof TypeError && /readBody must be a boolean/.test(e.message));
  return assert.rejects(new RetryClient().fetch(`${url}/ok`, undefined, { readBody: 1 }), (e) => e instanceof TypeError && /readBody/.test(e.message));
});

test("an unread body goes on following the caller's signal after the call resolved", async () => {
  for (const where of ["init", "options"]) {
    const controller = new AbortController();
    const client = new RetryClient({ policy });
    const res = where === "init"
      ? await client.fetch(`${url}/stream`, { signal: controller.signal })
      : await client.fetch(`${url}/stream`, undefined, { signal: controller.signal });
    const reading = res.text();
    controller.abort(new Error(`stop reading (${where})`));
    // The server sends the rest ~300 ms later: the read fails at once instead.
    await assert.rejects(reading, (e) => /stop reading|abort/i.test(`${e?.message} ${e?.cause?.message}`), where);
  }
});

test("without a signal the unread body reads to its end", async () => {
  const res = await new RetryClient({ policy }).fetch(`${url}/stream`);
  assert.match(await res.text(), /^first;last@\d+$/);
});

test("a response that refuses the redacted url (frozen) is not handed out with its secret", async () => {
  const secret = "https://api.example/v1/order?apiKey=SECRET123";
  const frozen = () => Object.freeze({ status: 503, statusText: "", url: secret, redirected: false, headers: new Headers(), body: null });
  const error = await new RetryClient({ fetch: async () => frozen(), policy: { ...policy, maxAttempts: 1 } }).fetch(secret).catch((e) => e);
  assert.equal(error.reason, "attempts");
  assert.equal(error.response, undefined, "never the original with its secret URL");
  assert.doesNotMatch(JSON.stringify(error.records) + error.message, /SECRET123/);
});

test("a long-lived signal does not gather a listener per call: they go with their responses", async () => {
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  const { getEventListeners } = await import("node:events");
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const controller = new AbortController();
  const client = new RetryClient({ fetch: async () => new Response("ok"), policy });
  for (let i = 0; i < 300; i++) await (await client.fetch(`${url}/ok`, undefined, { signal: controller.signal })).text();
  for (let i = 0; i < 10 && getEventListeners(controller.signal, "abort").length > 20; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  const left = getEventListeners(controller.signal, "abort").length;
  assert.ok(left <= 20, `${left} abort listeners left on the signal after 300 calls`);
});

test("hostile heads keep their messages: a function is no Response; headers without get", async () => {
  const one = (fetch) => new RetryClient({ fetch, policy: { ...policy, maxAttempts: 1 } }).fetch(`${url}/ok`).catch((e) => e);
  const fn = await one(async () => Object.assign(() => {}, { status: 200 }));
  assert.match(fn.records[0].error, /fetch resolved with a function, not a Response/);
  const noGet = await one(async () => ({ status: 503, headers: {}, statusText: "", url: "", redirected: false }));
  assert.match(noGet.records[0].error, /reading the response's retry-after header threw TypeError: get is not a function/);
  // A success's provider headers are not read (the core has no use for them): its broken headers
  // are the caller's to meet, as fetch's own caller would.
  const broken = Object.defineProperty(new Response("ok"), "headers", { get() { throw new Error("no headers") } });
  const ok = await new RetryClient({ fetch: async () => broken, policy }).fetch(`${url}/ok`);
  assert.equal(ok, broken);
});

test("a fetch that hands back the same response object for every attempt keeps its body", async () => {
  const same = new Response("the one body", { status: 503 });
  const error = await new RetryClient({ fetch: async () => same, policy }).fetch(`${url}/503`).catch((e) => e);
  assert.equal(error.reason, "attempts");
  assert.equal(error.response, same);
  assert.equal(await error.response.text(), "the one body");
});
