// OpenTelemetry through the real JS SDK (sdk-trace-base's in-memory exporter, sdk-metrics'
// reader) against the loopback mock exchange: one INTERNAL span per call, one CLIENT span per
// request on the wire (counted at the server, each request carrying its span's traceparent), the
// sleeps and refusals as events with the plan's columns, a reconciliation linked to the order it
// settles, hedges as sibling spans, metric points that match the records one for one; onRetry and
// onEnd without OpenTelemetry; providers that throw are dropped with one warning, calls unharmed;
// and beside undici's own instrumentation, no request is traced twice.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { context, trace, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, RetryError, Budget } from "../../js/node.js";

let mock;
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
before(async () => {
  mock = await startMockExchange({ port: 0 });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
after(async () => mock?.close());
beforeEach(() => {
  mock.reset();
  exporter.reset();
});

/** A metric reader the test collects from when it asks. */
class Reader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}
/** Every data point of `name` collected by `reader`. */
async function points(reader, name) {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints);
}

const quick = { baseDelayMs: 20, maxDelayMs: 20, jitter: "none", attemptTimeoutMs: 2_000, deadlineMs: 10_000 };
const spans = () => exporter.getFinishedSpans();
const parentOf = (span) => span.parentSpanContext?.spanId ?? span.parentSpanId;

test("one INTERNAL span per call and one CLIENT span per request, each request carrying its own traceparent", async () => {
  const path = "/api/v3/ticker/traced";
  mock.script(path, [{ status: 503 }, { status: 429, retryAfter: "1" }, { status: 200, body: { price: "1" } }]);
  const records = [];
  const client = new RetryClient({ telemetry: { tracerProvider }, policy: { ...quick, maxAttempts: 4 }, onAttempt: (r) => records.push(r) });
  const outer = tracerProvider.getTracer("test").startSpan("dashboard poll");
  const response = await context.with(trace.setSpan(context.active(), outer), () => client.fetch(`${mock.url}${path}?apiKey=secret`));
  outer.end();
  assert.equal(response.status, 200);
  const [parent] = spans().filter((s) => s.kind === SpanKind.INTERNAL && s.name.startsWith("GET"));
  const requests = spans().filter((s) => s.kind === SpanKind.CLIENT);
  const served = mock.requests({ path });
  assert.equal(requests.length, served.length, "one client span per request at the server");
  assert.equal(served.length, 3);
  assert.equal(parentOf(parent), outer.spanContext().spanId, "the call's span is a child of the caller's");
  assert.equal(parent.name, "GET read");
  assert.equal(parent.status.code, SpanStatusCode.UNSET, "a call a retry fixed is not an error");
  assert.equal(parent.attributes["retryline.reason"], "success");
  assert.equal(parent.attributes["retryline.attempts"], 3);
  requests.sort((a, b) => (a.attributes["http.request.resend_count"] ?? 0) - (b.attributes["http.request.resend_count"] ?? 0));
  requests.forEach((span, i) => {
    assert.equal(parentOf(span), parent.spanContext().spanId);
    assert.equal(span.attributes["http.request.resend_count"], i === 0 ? undefined : i);
    assert.equal(span.attributes["url.full"], records[i].url, "url.full redacted exactly as the record");
    assert.ok(!String(span.attributes["url.full"]).includes("secret"));
    const { traceId, spanId } = span.spanContext();
    assert.equal(served[i].headers.traceparent, `00-${traceId}-${spanId}-01`, "the request carried its own span's context");
  });
  assert.deepEqual(requests.map((s) => s.attributes["http.response.status_code"]), [503, 429, 200]);
  assert.deepEqual(requests.map((s) => s.status.code), [SpanStatusCode.ERROR, SpanStatusCode.ERROR, SpanStatusCode.UNSET], "only the failed attempts' spans are in error");
  const sleeps = parent.events.filter((e) => e.name === "retryline.sleep");
  assert.equal(sleeps.length, 2, "one event per sleep");
  assert.deepEqual(sleeps.map((e) => e.attributes["retryline.reason"]), ["retryable", "throttled"]);
  assert.equal(sleeps[1].attributes["retryline.provider_wait_ms"], 1000, "the provider's minimum");
  assert.equal(sleeps[1].attributes["retryline.planned_wait_ms"], records[2].plannedWaitMs);
  assert.equal(sleeps[0].attributes["retryline.window_ms"], 20);
  assert.ok(sleeps.every((e) => typeof e.attributes["retryline.remaining_ms"] === "number"));
});

test("an exhausted call: its span in error with the reason, the refused attempt an event, onEnd told", async () => {
  const path = "/api/v3/ticker/exhausted";
  mock.script(path, [{ status: 503 }, { status: 503 }]);
  const ends = [];
  const client = new RetryClient({ telemetry: { tracerProvider }, policy: { ...quick, maxAttempts: 2 }, onEnd: (info) => ends.push(info) });
  await assert.rejects(client.fetch(`${mock.url}${path}`), (e) => e instanceof RetryError && e.reason === "attempts");
  const [parent] = spans().filter((s) => s.kind === SpanKind.INTERNAL);
  assert.equal(parent.status.code, SpanStatusCode.ERROR);
  assert.equal(parent.status.message, "attempts");
  const refused = parent.events.filter((e) => e.name === "retryline.refused");
  assert.equal(refused.length, 1);
  assert.equal(refused[0].attributes["retryline.reason"], "attempts");
  assert.equal(refused[0].attributes["retryline.attempt"], 3);
  assert.equal(spans().filter((s) => s.kind === SpanKind.CLIENT).length, mock.requests({ path }).length);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].ok, false);
  assert.equal(ends[0].reason, "attempts");
  assert.equal(ends[0].attempts, 2);
  assert.equal(ends[0].records.at(-1).decision, "refused");
});

test("a ban: the 418's span, then a call refused without a request — a span with its refusal and no client span", async () => {
  const path = "/api/v3/ticker/banned";
  mock.script(path, [{ status: 418, retryAfter: "60" }]);
  const reader = new Reader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const client = new RetryClient({ telemetry: { tracerProvider, meterProvider }, policy: quick });
  await assert.rejects(client.fetch(`${mock.url}${path}`), (e) => e.reason === "banned");
  exporter.reset();
  await assert.rejects(client.fetch(`${mock.url}${path}`), (e) => e.reason === "banned");
  assert.equal(mock.requests({ path }).length, 1, "nothing more was sent");
  assert.equal(spans().filter((s) => s.kind === SpanKind.CLIENT).length, 0);
  const [parent] = spans();
  assert.equal(parent.events[0].name, "retryline.refused");
  assert.equal(parent.events[0].attributes["retryline.reason"], "banned");
  assert.ok(parent.events[0].attributes["retryline.provider_wait_ms"] > 50_000);
  const refusals = await points(reader, "retryline.client.refusals");
  assert.deepEqual(refusals.map((p) => [p.attributes["retryline.reason"], p.value]), [["banned", 2]]);
  const durations = await points(reader, "http.client.request.duration");
  assert.equal(durations.reduce((n, p) => n + p.value.count, 0), 1, "one request, one duration");
  assert.equal(durations[0].attributes["http.response.status_code"], 418);
  assert.equal(durations[0].attributes["error.type"], "418");
  assert.ok(!Object.keys(durations[0].attributes).some((k) => k === "url.full"), "no URL in metric attributes");
});

test("metrics match the records one for one: retries, the wait between attempts, and each request's duration", async () => {
  const path = "/api/v3/ticker/metered";
  mock.script(path, [{ status: 503 }, { status: 500 }, { status: 200 }]);
  const reader = new Reader();
  const client = new RetryClient({ telemetry: { meterProvider: new MeterProvider({ readers: [reader] }) }, policy: { ...quick, maxAttempts: 4 } });
  const records = [];
  await client.fetch(`${mock.url}${path}`, undefined, { onAttempt: (r) => records.push(r) });
  const sent = records.filter((r) => r.decision === "sent");
  const [retries] = await points(reader, "retryline.client.call.retries");
  assert.equal(retries.value.sum, sent.length - 1);
  const [delay] = await points(reader, "retryline.client.call.retry_delay");
  assert.equal(Math.round(delay.value.sum * 1000), sent.slice(1).reduce((n, r) => n + r.plannedWaitMs, 0));
  const durations = await points(reader, "http.client.request.duration");
  assert.equal(durations.reduce((n, p) => n + p.value.count, 0), mock.requests({ path }).length);
  const [started] = await points(reader, "retryline.client.attempt.started");
  assert.equal(started.value, 3);
  const [call] = await points(reader, "retryline.client.call.duration");
  assert.equal(call.attributes["retryline.reason"], "success");
});

test("a hedged read: sibling client spans, the hedge marked, the winner marked", async () => {
  const path = "/api/v3/ticker/hedged";
  mock.script(path, [{ delayMs: 800, body: { n: 1 } }, { delayMs: 10, body: { n: 2 } }]);
  const client = new RetryClient({ telemetry: { tracerProvider }, policy: { ...quick, maxHedges: 1, hedgeAfterMs: 100 } });
  const response = await client.fetch(`${mock.url}${path}`);
  assert.equal((await response.json()).n, 2);
  const requests = spans().filter((s) => s.kind === SpanKind.CLIENT);
  assert.equal(requests.length, 2);
  assert.equal(new Set(requests.map(parentOf)).size, 1, "siblings under the call's span");
  const hedge = requests.find((s) => s.attributes["retryline.hedge"] === true);
  assert.ok(hedge, "the hedge is marked");
  assert.equal(hedge.attributes["retryline.winner"], true);
  assert.equal(requests.find((s) => s !== hedge).attributes["retryline.winner"], false);
});

test("an unknown order's reconciliation is a span of its own, linked to the call it settles", async () => {
  const path = "/api/v3/order";
  mock.script(path, [{ status: 500 }]);
  const client = new RetryClient({ telemetry: { tracerProvider }, policy: quick });
  const key = `otel-${Date.now()}`;
  await assert.rejects(client.fetch(`${mock.url}${path}`, { method: "POST", body: "{}" }, { key }), (e) => e.reason === "unknown-outcome");
  const order = spans().find((s) => s.kind === SpanKind.INTERNAL);
  assert.equal(order.attributes["retryline.key"], key);
  assert.equal(order.name, "POST order");
  const result = await client.reconcile(key, async () => "filled");
  assert.equal(result.resolved, true);
  const reconciliation = spans().find((s) => s.kind === SpanKind.INTERNAL && s !== order);
  assert.equal(reconciliation.name, "reconcile order");
  assert.equal(reconciliation.links.length, 1);
  assert.equal(reconciliation.links[0].context.spanId, order.spanContext().spanId);
  assert.equal(mock.requests({ path }).length, 1, "reconciled, never resubmitted");
});

test("onRetry before each sleep with the plan, without OpenTelemetry; a throwing hook changes nothing", async () => {
  const path = "/api/v3/ticker/hooks";
  mock.script(path, [{ status: 503 }, { status: 429, retryAfter: "1" }, { status: 200 }]);
  const heard = [];
  const client = new RetryClient({ policy: { ...quick, maxAttempts: 4 }, onRetry: () => { throw new Error("a broken hook"); } });
  const started = performance.now();
  const response = await client.fetch(`${mock.url}${path}`, undefined, { onRetry: (info) => heard.push({ ...info, at: performance.now() - started }) });
  assert.equal(response.status, 200);
  assert.deepEqual(heard.map((i) => [i.attempt, i.reason]), [[2, "retryable"], [3, "throttled"]]);
  assert.equal(heard[1].providerWaitMs, 1000);
  assert.ok(heard[1].plannedWaitMs >= 1000);
  const served = mock.requests({ path });
  // Heard before the sleep: before the retried request reached the server.
  assert.ok(heard[1].at < served[2].receivedAtMs - served[0].receivedAtMs, "onRetry came before the retry was sent");
});

test("providers that throw or return nonsense are dropped with one warning; calls go on and the wasm instance lives", async (t) => {
  const warned = t.mock.method(console, "warn", () => {});
  const path = "/api/v3/ticker/hostile";
  const url = `${mock.url}${path}`;
  mock.script(path, Array.from({ length: 12 }, () => ({ status: 200 })));
  const throwingProvider = { getTracer: () => { throw new Error("no tracer today"); } };
  const spanThrows = { getTracer: () => ({ startSpan: () => ({ spanContext: () => { throw new Error("span broke"); }, end() { throw new Error("end broke"); }, setAttribute() {}, setAttributes() {}, addEvent() {}, setStatus() {}, updateName() {} }) }) };
  const nonsenseMeter = { getMeter: () => ({ createHistogram: () => 42, createCounter: () => null }) };
  for (const telemetry of [{ tracerProvider: throwingProvider }, { tracerProvider: spanThrows }, { meterProvider: nonsenseMeter }]) {
    const client = new RetryClient({ telemetry, policy: quick });
    for (let i = 0; i < 3; i++) assert.equal((await client.fetch(url)).status, 200);
  }
  assert.equal(warned.mock.callCount(), 3, "one warning per dropped provider");
  assert.match(String(warned.mock.calls[0].arguments[0]), /tracerProvider threw/);
  assert.equal(mock.requests({ path }).length, 9);
  assert.equal((await new RetryClient({ policy: quick }).fetch(url)).status, 200, "the instance still serves calls");
});

test("telemetry's fields are checked like every option: an unknown one is a TypeError naming it", async () => {
  assert.throws(() => new RetryClient({ telemetry: { tracer: {} } }), { name: "TypeError", message: /telemetry\.tracer is not a known option/ });
  assert.throws(() => new RetryClient({ telemetry: { tracerProvider: {} } }), { name: "TypeError", message: /telemetry\.tracerProvider must be an OpenTelemetry tracerProvider/ });
  assert.throws(() => new RetryClient({ telemetry: 5 }), TypeError);
  assert.throws(() => new RetryClient({ onRetry: 5 }), { name: "TypeError", message: /onRetry must be a function/ });
  await assert.rejects(new RetryClient().fetch("https://x.test/", { onEnd() {} }), /onEnd is a retryline option/);
});

test("a 429 storm: six reads on one budget, every request a client span, every span a request at the server, the hold's sleeps as events", async () => {
  const path = "/api/v3/depth/storm";
  mock.script(path, Array.from({ length: 6 }, () => ({ status: 429, retryAfter: "1" })));
  const reader = new Reader();
  const budget = new Budget();
  const client = new RetryClient({ budget, telemetry: { tracerProvider, meterProvider: new MeterProvider({ readers: [reader] }) }, policy: { ...quick, maxAttempts: 3 } });
  const records = [];
  const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => client.fetch(`${mock.url}${path}?n=${i}`, undefined, { onAttempt: (r) => records.push(r) })));
  assert.ok(results.every((r) => r.status === "fulfilled"), "every read got through after the hold");
  const served = mock.requests({ path });
  const requests = spans().filter((s) => s.kind === SpanKind.CLIENT);
  const calls = spans().filter((s) => s.kind === SpanKind.INTERNAL);
  assert.equal(calls.length, 6);
  assert.equal(requests.length, served.length, "one client span per request at the server");
  assert.equal(requests.length, records.filter((r) => r.decision === "sent").length, "and per sent record");
  assert.equal(requests.filter((s) => s.attributes["http.response.status_code"] === 429).length, served.filter((r) => r.status === 429).length);
  const sleeps = calls.flatMap((c) => c.events.filter((e) => e.name === "retryline.sleep"));
  assert.ok(sleeps.every((e) => e.attributes["retryline.provider_wait_ms"] > 0), "each retry waited for the scope's hold");
  const { resourceMetrics } = await reader.collect();
  const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  const durations = all.find((m) => m.descriptor.name === "http.client.request.duration").dataPoints;
  assert.equal(durations.reduce((n, p) => n + p.value.count, 0), served.length, "a duration point per request");
  const retries = all.find((m) => m.descriptor.name === "retryline.client.call.retries").dataPoints;
  assert.equal(retries.reduce((n, p) => n + p.value.sum, 0), served.length - 6, "retries: the requests beyond each read's first");
});

test("coalesced reads: the first caller's span has the request, each joined caller's span ends with it, marked joined; onEnd hears every caller", async () => {
  const path = "/api/v3/ticker/joined";
  mock.script(path, [{ delayMs: 50, status: 200 }]);
  const ends = [];
  const client = new RetryClient({ coalesce: true, telemetry: { tracerProvider }, policy: quick, onEnd: (info) => ends.push(info.reason) });
  const responses = await Promise.all(Array.from({ length: 5 }, () => client.fetch(`${mock.url}${path}`)));
  assert.ok(responses.every((r) => r.status === 200));
  assert.equal(mock.requests({ path }).length, 1);
  const calls = spans().filter((s) => s.kind === SpanKind.INTERNAL);
  assert.equal(calls.length, 5, "every caller's span ended");
  assert.equal(calls.filter((s) => s.attributes["retryline.joined"] === true).length, 4);
  assert.equal(spans().filter((s) => s.kind === SpanKind.CLIENT).length, 1, "one request, one client span");
  assert.deepEqual(ends, ["success", "success", "success", "success", "success"]);
});
