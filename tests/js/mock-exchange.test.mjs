// Self-test for the mock exchange: real Node 20 fetch against the real server on 127.0.0.1.
// Run: node --test tests/js/mock-exchange.test.mjs
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startMockExchange } from "./mock-exchange.mjs";

const ORDER = "/api/v3/order";
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

let mock;
before(async () => {
  mock = await startMockExchange({ port: 0 });
});
after(() => mock.close());
beforeEach(() => mock.reset());

const get = (path, init) => fetch(mock.url + path, init);
const json = (body) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const postOrder = (params) => get(ORDER, json(params));

test("scripted behaviours are consumed in order, then the default applies", async () => {
  assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  mock.script("/api/v3/ticker", [{ status: 201, body: { n: 1 } }, { status: 202, headers: { "X-Extra": "yes" } }]);
  mock.script("/api/v3/ticker", [{ status: 503 }], { method: "POST" }); // must not affect GETs

  const first = await get("/api/v3/ticker?symbol=BTCUSDT");
  assert.equal(first.status, 201);
  assert.equal(first.headers.get("connection"), "close", "one request per connection");
  assert.deepEqual(await first.json(), { n: 1 });
  const second = await get("/api/v3/ticker");
  assert.equal(second.status, 202);
  assert.equal(second.headers.get("x-extra"), "yes");
  assert.deepEqual(await second.json(), { ok: true, path: "/api/v3/ticker", seq: 2 });
  const third = await get("/api/v3/ticker");
  assert.deepEqual([third.status, await third.json()], [200, { ok: true, path: "/api/v3/ticker", seq: 3 }]);
  assert.equal((await get("/api/v3/ticker", { method: "POST" })).status, 503);

  const [entry] = mock.requests({ path: "/api/v3/ticker", method: "get" });
  assert.equal(entry.seq, 1);
  assert.deepEqual(entry.query, { symbol: "BTCUSDT" });
  assert.equal(entry.outcome, "responded");
  assert.equal(entry.status, 201);
  assert.equal(typeof entry.headers["user-agent"], "string");
  assert.ok(entry.respondedAtMs >= entry.receivedAtMs);
  assert.equal(mock.requests().length, 4);
});

test("429 with Retry-After seconds, readable cross-origin", async () => {
  mock.script("/api/v3/depth", [{ status: 429, retryAfter: 1, body: { code: -1003, msg: "Too many requests." } }]);
  const res = await get("/api/v3/depth");
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "1");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("access-control-expose-headers"), /Retry-After/);
  assert.deepEqual(await res.json(), { code: -1003, msg: "Too many requests." });
  assert.equal(mock.requests()[0].status, 429);
});

test("retryAfterDateInMs gives an IMF-fixdate never earlier than now+ms, plus a Date header", async () => {
  mock.script("/api/v3/depth", [{ status: 503, retryAfterDateInMs: 2500 }]);
  const before = Date.now();
  const res = await get("/api/v3/depth");
  const after = Date.now();
  const retryAfter = res.headers.get("retry-after");
  const date = res.headers.get("date");
  assert.match(retryAfter, IMF_FIXDATE);
  assert.match(date, IMF_FIXDATE);
  const retryAt = Date.parse(retryAfter);
  assert.ok(retryAt >= before + 2500, `${retryAfter} is earlier than now+2500ms`);
  assert.ok(retryAt <= after + 2500 + 1000, `${retryAfter} rounds up by more than a second`);
  // A client measuring against the Date header (1 s resolution) also waits at least 2.5 s.
  assert.ok(retryAt - Date.parse(date) >= 2500);
});

test("418, 500 and 503 with their bodies", async () => {
  mock.script("/api/v3/time", [{ status: 418 }, { status: 500, body: { code: -1000 } }, { status: 503, body: "maintenance" }]);
  const a = await get("/api/v3/time");
  assert.deepEqual([a.status, await a.json()], [418, { ok: true, path: "/api/v3/time", seq: 1 }]);
  const b = await get("/api/v3/time");
  assert.deepEqual([b.status, await b.json()], [500, { code: -1000 }]);
  const c = await get("/api/v3/time");
  assert.deepEqual([c.status, await c.json()], [503, "maintenance"]);
  assert.deepEqual(mock.requests().map((e) => e.status), [418, 500, 503]);
});

test("delayMs delays the answer; timestamps prove waits between requests", async () => {
  mock.script("/slow", [{ delayMs: 150 }]);
  await (await get("/slow")).json();
  await new Promise((r) => setTimeout(r, 100));
  await (await get("/slow")).json();
  const [slow, next] = mock.requests();
  // Node's timers run on a loop clock of whole ms taken at the start of each turn: one armed late
  // in a turn fires up to 1 ms early by performance.now(), which these timestamps use.
  const TIMER_GRAIN_MS = 1;
  assert.ok(slow.respondedAtMs - slow.receivedAtMs >= 150 - TIMER_GRAIN_MS, `${slow.respondedAtMs - slow.receivedAtMs} ms`);
  assert.ok(next.receivedAtMs - slow.respondedAtMs >= 100 - TIMER_GRAIN_MS, `${next.receivedAtMs - slow.respondedAtMs} ms`);
  assert.ok(Math.abs(slow.receivedAtMs - slow.at) < 50, "receivedAtMs is Unix ms");

  mock.script("/slow", [{ delayMs: 150 }]);
  await assert.rejects(get("/slow", { signal: AbortSignal.timeout(50) }), { name: "TimeoutError" });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(mock.requests()[2].outcome, "aborted", "client gave up during the delay");
});

test("hang: the client's timeout fires, and close() still returns promptly", { timeout: 5000 }, async () => {
  const own = await startMockExchange({ port: 0 });
  own.script("/api/v3/ticker", [{ action: "hang" }, { action: "hang" }]);

  await assert.rejects(fetch(`${own.url}/api/v3/ticker`, { signal: AbortSignal.timeout(150) }), { name: "TimeoutError" });
  const [hung] = own.requests();
  assert.equal(hung.outcome, "hung");
  assert.equal(hung.respondedAtMs, null);
  assert.equal(hung.status, null);

  const stillHanging = fetch(`${own.url}/api/v3/ticker`).then(() => "answered", () => "failed");
  while (own.requests().length < 2) await new Promise((r) => setTimeout(r, 5));
  const started = performance.now();
  await own.close();
  assert.ok(performance.now() - started < 1000, "close() waited on a hung socket");
  assert.equal(await stillHanging, "failed");
});

test("reset: fetch rejects with a TypeError and no response is logged", async () => {
  mock.script("/api/v3/ticker", [{ action: "reset" }]);
  await assert.rejects(get("/api/v3/ticker"), TypeError);
  const [entry] = mock.requests();
  assert.deepEqual([entry.outcome, entry.status, entry.respondedAtMs], ["reset", null, null]);
  assert.ok(entry.endedAtMs >= entry.receivedAtMs);
  assert.equal((await get("/api/v3/ticker")).status, 200, "the default applies afterwards");
});

test("execute-then-drop: the client sees a network error but the order is filled, and a resubmit is refused", async () => {
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const form = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "symbol=BTCUSDT&quantity=0.5&newClientOrderId=abc-1" };
  await assert.rejects(get(ORDER, form), TypeError);
  assert.equal(mock.requests()[0].outcome, "dropped");
  assert.equal(mock.orders.get("abc-1").status, "FILLED");
  assert.equal(mock.orders.get("abc-1").executedQty, "0.5");

  const again = await get(ORDER, form);
  assert.equal(again.status, 400);
  assert.deepEqual(await again.json(), { code: -2010, msg: "Duplicate order sent." });
  assert.equal(mock.orders.size, 1);
  assert.equal(mock.orders.get("abc-1").duplicates, 1);
});

test("execute-then-500 and execute-then-hang fill the order; a plain 429/503 does not", async () => {
  mock.script(ORDER, [{ status: 429, retryAfter: 1 }, { status: 503 }, { action: "execute-then-500" }, { action: "execute-then-hang" }]);
  assert.equal((await postOrder({ clientOrderId: "o1" })).status, 429);
  assert.equal((await postOrder({ clientOrderId: "o1" })).status, 503);
  assert.equal(mock.orders.size, 0);
  assert.equal((await postOrder({ clientOrderId: "o1" })).status, 500);
  assert.ok(mock.orders.has("o1"));
  await assert.rejects(get(ORDER, { ...json({ clientOrderId: "o2" }), signal: AbortSignal.timeout(100) }), { name: "TimeoutError" });
  assert.ok(mock.orders.has("o2"));
  assert.deepEqual(mock.requests().map((e) => e.outcome), ["responded", "responded", "responded", "hung"]);
});

test("order status query: 200 with the order, -2013 when unknown; scriptable to hang", async () => {
  const placed = await get(`${ORDER}?newClientOrderId=q-1&quantity=2`, { method: "POST" });
  assert.equal(placed.status, 200);
  assert.deepEqual(await placed.json(), { ...mock.orders.get("q-1") });

  const found = await get(`${ORDER}?origClientOrderId=q-1`);
  assert.equal(found.status, 200);
  assert.equal((await found.json()).executedQty, "2");
  const missing = await get(`${ORDER}?origClientOrderId=nope`);
  assert.equal(missing.status, 400);
  assert.deepEqual(await missing.json(), { code: -2013, msg: "Order does not exist." });

  mock.script(ORDER, [{ action: "hang" }], { method: "GET" });
  await assert.rejects(get(`${ORDER}?origClientOrderId=q-1`, { signal: AbortSignal.timeout(100) }), { name: "TimeoutError" });
  assert.equal((await postOrder({ newClientOrderId: "q-2" })).status, 200, "POST unaffected by the GET script");
});

test("malformed order body answers 400 -1102", async () => {
  const res = await get(ORDER, { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).code, -1102);
});

test("X-MBX-USED-WEIGHT-1M counts weight in the current minute", async () => {
  const weight = async (path) => Number((await get(path)).headers.get("x-mbx-used-weight-1m"));
  const a = await weight("/api/v3/ping");
  const b = await weight("/api/v3/ping");
  const c = await weight("/api/v3/ping?weight=5");
  mock.setWeight("/api/v3/depth", 10);
  const d = await weight("/api/v3/depth");
  // Tolerate a UTC minute boundary between requests (the counter restarts at that request's weight).
  assert.equal(a, 1);
  assert.ok(b === a + 1 || b === 1);
  assert.ok(c === b + 5 || c === 5);
  assert.ok(d === c + 10 || d === 10);
});

test("CORS preflight answers 204, echoes requested headers, and is not logged", async () => {
  const res = await get("/api/v3/order", {
    method: "OPTIONS",
    headers: { origin: "http://127.0.0.1:9", "access-control-request-method": "POST", "access-control-request-headers": "x-mbx-apikey, content-type" },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("access-control-allow-methods"), "GET, POST, PUT, DELETE, OPTIONS, HEAD");
  assert.equal(res.headers.get("access-control-allow-headers"), "x-mbx-apikey, content-type");
  assert.equal(res.headers.get("access-control-allow-private-network"), "true");
  const bare = await get("/x", { method: "OPTIONS" });
  assert.equal(bare.headers.get("access-control-allow-headers"), "*");
  assert.equal(mock.stats().total, 0);
});

test("control API over HTTP mirrors the in-process API and is not logged", async () => {
  const control = (path, body) => get(`/__mock/${path}`, body === undefined ? undefined : { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

  const bad = await control("script", "{not json");
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /JSON/);
  assert.equal(bad.headers.get("access-control-allow-origin"), "*");
  assert.equal((await control("script", { path: "/a", behaviours: [{ action: "explode" }] })).status, 400);
  assert.equal((await control("nope")).status, 404);

  assert.equal((await control("script", { path: "/api/v3/ticker", method: "GET", behaviours: [{ status: 429, retryAfter: "2" }] })).status, 200);
  assert.equal((await control("weight", { path: "/api/v3/ticker", weight: 4 })).status, 200);
  const scripted = await get("/api/v3/ticker?symbol=ETHUSDT");
  assert.deepEqual([scripted.status, scripted.headers.get("retry-after")], [429, "2"]);
  await postOrder({ newClientOrderId: "h-1" });

  const logged = await (await control("requests?path=/api/v3/ticker&method=GET")).json();
  assert.equal(logged.length, 1);
  assert.deepEqual(logged[0].query, { symbol: "ETHUSDT" });
  const stats = await (await control("stats")).json();
  assert.equal(stats.total, 2);
  assert.deepEqual(stats.byPath, { "/api/v3/ticker": 1, [ORDER]: 1 });
  assert.equal(Object.values(stats.perSecond).reduce((x, y) => x + y), 2);
  const orders = await (await control("orders")).json();
  assert.deepEqual(orders.map((o) => o.clientOrderId), ["h-1"]);

  assert.equal((await control("reset", {})).status, 200);
  assert.deepEqual([mock.stats().total, mock.orders.size], [0, 0]);
  assert.equal((await get("/api/v3/ticker")).headers.get("x-mbx-used-weight-1m"), "1", "reset clears weights");
});

test("CLI mode prints its URL, serves, and exits cleanly on SIGTERM", { timeout: 5000 }, async () => {
  const script = fileURLToPath(new URL("./mock-exchange.mjs", import.meta.url));
  const child = spawn(process.execPath, [script, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  try {
    const [line] = await once(createInterface({ input: child.stdout }), "line");
    const { url } = JSON.parse(line);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    await fetch(`${url}/__mock/script`, { method: "POST", body: JSON.stringify({ path: "/p", behaviours: [{ action: "hang" }] }) });
    fetch(`${url}/p`).catch(() => {}); // a hung socket must not stop the exit
    while ((await (await fetch(`${url}/__mock/stats`)).json()).total < 1) await new Promise((r) => setTimeout(r, 5));
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    assert.deepEqual([code, signal], [0, null]);
  } finally {
    child.kill("SIGKILL"); // no-op once exited; keeps a failed test from leaking the child
  }
});
