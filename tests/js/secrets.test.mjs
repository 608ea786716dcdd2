// Nothing secret leaves in anything the library builds: messages, records, onAttempt payloads,
// causes, and the response carried by a RetryError (its URL redacted). The successful Response
// is the caller's own and keeps its real URL.
// Run: node scripts/build.mjs --quiet && node --test tests/js/secrets.test.mjs
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { RetryClient, RetryError } from "../../js/node.js";
import { startMockExchange } from "./mock-exchange.mjs";

const TICKER = "/api/v3/ticker";
const SECRETS = ["s3cr3tSIG", "k3yVALUE", "t0kenVALUE", "myPrivateVALUE", "traceVALUE", "nestedTOKEN"];

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

/** Everything an error exposes, as text: message, inspect (stack, cause, response), records, response URL. */
function everything(error, records = []) {
  return [
    error.message,
    inspect(error, { depth: 6 }),
    JSON.stringify(error.records),
    JSON.stringify(records),
    error.response?.url ?? "",
    error.cause ? `${error.cause.message} ${inspect(error.cause)}` : "",
  ].join("\n");
}

function assertNoSecrets(text) {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} leaked:\n${text}`);
}

const secretQuery =
  "symbol=BTCUSDT&signature=s3cr3tSIG&%61piKey=k3yVALUE;token=t0kenVALUE&myParam=myPrivateVALUE&X-Trace=traceVALUE" +
  `&next=${encodeURIComponent("https://cb.test/done?access_token=nestedTOKEN")}`;

test("a RetryError's message, records, cause and response carry no secret; its response URL is redacted", async () => {
  mock.script(TICKER, [{ status: 503 }, { status: 503 }]);
  const seen = [];
  const client = new RetryClient({
    redact: ["myParam", /^x-trace$/i],
    onAttempt: (r) => seen.push(r),
    policy: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 5 },
  });
  const error = await client.fetch(`${mock.url}${TICKER}?${secretQuery}`).then(() => assert.fail("resolved"), (e) => e);
  assert.ok(error instanceof RetryError);
  assertNoSecrets(everything(error, seen));
  assert.equal(error.response.status, 503);
  assert.match(error.response.url, /signature=REDACTED/);
  assert.match(error.response.url, /%61piKey=REDACTED;token=REDACTED&myParam=REDACTED&X-Trace=REDACTED/);
  assert.match(error.response.url, /symbol=BTCUSDT/, "ordinary parameters stay readable");
  assert.equal(typeof (await error.response.text()), "string", "its body is still readable");
});

test("the successful response keeps its real URL: it is the caller's own", async () => {
  const client = new RetryClient();
  const res = await client.fetch(`${mock.url}${TICKER}?${secretQuery}`);
  assert.equal(res.status, 200);
  assert.ok(res.url.includes("signature=s3cr3tSIG"), res.url);
});

test("a network error's own message reaches the record and the cause, redacted", async () => {
  const fetch = (request) => {
    throw new TypeError(`request to ${request.url} failed, reason: connect ECONNREFUSED`);
  };
  const client = new RetryClient({ fetch, redact: ["myParam", /^x-trace$/i], policy: { maxAttempts: 1 } });
  const error = await client.fetch(`http://127.0.0.1:9/api?${secretQuery}`).then(() => assert.fail("resolved"), (e) => e);
  assertNoSecrets(everything(error));
  const sent = error.records.find((r) => r.decision === "sent");
  assert.equal(sent.outcome, "network-error");
  assert.match(sent.error, /^TypeError: request to http:\/\/127\.0\.0\.1:9\/api\?symbol=BTCUSDT&signature=REDACTED.* failed, reason: connect ECONNREFUSED$/);
  assert.ok(error.cause instanceof Error);
  assert.equal(error.cause.message, sent.error);
});

test("workerd's refusal to connect is what the record and the cause say", async () => {
  const fetch = () => Promise.reject(new TypeError("connecting to 127.0.0.1 is not allowed"));
  const client = new RetryClient({ fetch, policy: { maxAttempts: 1 } });
  const error = await client.fetch("http://127.0.0.1:9/api").then(() => assert.fail("resolved"), (e) => e);
  assert.equal(error.records[0].error, "TypeError: connecting to 127.0.0.1 is not allowed");
  assert.equal(error.cause.message, "TypeError: connecting to 127.0.0.1 is not allowed");
});

test("redact option: names and RegExps are checked, and a bad entry is a TypeError naming it", () => {
  assert.throws(() => new RetryClient({ redact: "token" }), { name: "TypeError", message: /RetryClient: redact must be an array of strings and RegExps/ });
  assert.throws(() => new RetryClient({ redact: ["ok", 5] }), { name: "TypeError", message: /RetryClient: redact\[1\] must be a string or a RegExp, got a number/ });
  assert.throws(() => new RetryClient({ redact: [""] }), { name: "RangeError", message: /RetryClient: redact\[0\] must not be empty/ });
  new RetryClient({ redact: [/sig/gy, "my-param"] });
});
