// axios through client.asFetch() (its fetch adapter, env.fetch), against the loopback mock exchange;
// axios-retry beside it, as its users run it. What axios must see is what the platform fetch would
// have given it. Wire counts are the server's.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import axios from "axios";
import axiosRetry from "axios-retry";
import { startMockExchange } from "./mock-exchange.mjs";
import { rejection } from "./support/rejection.mjs";
import { Budget, RetryClient, RetryError } from "../../js/node.js";

const ORDER = "/api/v3/order";
const TICKER = "/api/v3/ticker/price";
let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

const wire = (path, method) => mock.requests({ path, method }).length;
const fast = (policy = {}) => new RetryClient({ policy: { baseDelayMs: 10, maxDelayMs: 20, ...policy }, budget: new Budget() });
/** An axios instance whose every request goes through `fetch` (axios's fetch adapter). */
const axiosOver = (fetch, config = {}) => axios.create({ adapter: "fetch", env: { fetch }, baseURL: mock.url, ...config });
const describeOrder = async (request) => (request.method === "POST" ? { key: JSON.parse(await request.text()).newClientOrderId } : {});

test("axios: a 503 retried by retryline, the 200 its data; a 404 axios's own error with its response", async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 200, body: { price: "1" } }]);
  const api = axiosOver(fast().asFetch());
  const { data } = await api.get(TICKER);
  assert.deepEqual(data, { price: "1" });
  assert.equal(wire(TICKER), 2);
  mock.script(TICKER, [{ status: 404, body: { msg: "no such symbol" } }]);
  const missing = await rejection(api.get(TICKER));
  assert.equal(missing.response?.status, 404);
  assert.equal(wire(TICKER), 3);
});

test("axios: a rejection without a response is axios's ERR_NETWORK, its cause the RetryError", async () => {
  mock.script(TICKER, [{ action: "reset" }, { action: "reset" }, { action: "reset" }]);
  const error = await rejection(axiosOver(fast().asFetch()).get(TICKER));
  assert.equal(error.code, "ERR_NETWORK", String(error));
  assert.ok(error.cause instanceof RetryError, String(error.cause));
  assert.equal(error.cause.reason, "attempts");
  assert.equal(wire(TICKER), 3);
  // A refusal (a ban) too: no response to give.
  mock.script(TICKER, [{ status: 418, retryAfter: 60 }]);
  const client = fast();
  const api = axiosOver(client.asFetch());
  assert.equal((await rejection(api.get(TICKER))).response?.status, 418);
  const refused = await rejection(api.get(TICKER));
  assert.equal(refused.code, "ERR_NETWORK");
  assert.equal(refused.cause?.reason, "banned");
  assert.equal(wire(TICKER), 4);
});

test("axios-retry: an order whose outcome is unknown is not resubmitted, and the unknown outcome is at error.cause", async () => {
  const api = axiosOver(fast().asFetch({ describe: describeOrder }));
  axiosRetry(api, { retries: 3, retryDelay: () => 0 });
  mock.script(ORDER, [{ action: "execute-then-drop" }], { method: "POST" });
  const lost = await rejection(api.post(ORDER, { newClientOrderId: "ax-1" }));
  assert.notEqual(lost.code, "ERR_NETWORK", "axios-retry resubmits a network error, whatever the method");
  assert.ok(lost.cause instanceof TypeError, String(lost.cause));
  assert.equal(lost.cause.cause?.reason, "unknown-outcome");
  assert.equal(lost.cause.cause?.key, "ax-1");
  assert.equal(wire(ORDER, "POST"), 1);
  assert.equal(mock.orders.get("ax-1")?.status, "FILLED");
});

test("axios: its own timeout or abort ends an order in flight; the unknown outcome is at error.cause.cause", async () => {
  const api = axiosOver(fast().asFetch({ describe: describeOrder }), { timeout: 300 });
  mock.script(ORDER, [{ action: "execute-then-hang" }, { action: "execute-then-hang" }], { method: "POST" });
  const slow = await rejection(api.post(ORDER, { newClientOrderId: "ax-2" }));
  assert.match(slow.code ?? "", /ECONNABORTED|ETIMEDOUT/, String(slow));
  assert.ok(slow.cause instanceof TypeError, String(slow.cause));
  assert.equal(slow.cause.cause?.reason, "unknown-outcome", `error.cause: ${slow.cause}`);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 150);
  const aborted = await rejection(api.post(ORDER, { newClientOrderId: "ax-3" }, { signal: controller.signal, timeout: 0 }));
  assert.ok(axios.isCancel(aborted), String(aborted));
  assert.equal(aborted.cause?.cause?.reason, "unknown-outcome");
  assert.equal(wire(ORDER, "POST"), 2);
  assert.deepEqual([mock.orders.get("ax-2")?.status, mock.orders.get("ax-3")?.status], ["FILLED", "FILLED"]);
});

test("asFetch's 1 s minAttemptMs yields to the client's, and fits a deadline under 1 s", async () => {
  // A client whose whole policy is under a second: asFetch's default must not break it.
  const short = fast({ deadlineMs: 800, attemptTimeoutMs: 400 });
  mock.script(TICKER, [{ status: 200, body: { price: "2" } }]);
  assert.equal((await short.asFetch()(`${mock.url}${TICKER}`, { timeout: 700 })).status, 200);
  // The client's own 100 ms: after a 300 ms attempt times out, 150 ms of a 450 ms timeout are left,
  // enough for a second attempt (asFetch's 1 s, put over it, would have refused it).
  const client = fast({ attemptTimeoutMs: 300, minAttemptMs: 100 });
  mock.script(TICKER, [{ action: "hang" }, { status: 200, body: { price: "3" } }]);
  const res = await client.asFetch()(`${mock.url}${TICKER}`, { timeout: 450 });
  assert.equal(res.status, 200);
  assert.equal(wire(TICKER), 3);
});
