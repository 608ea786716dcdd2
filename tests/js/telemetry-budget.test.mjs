// A Budget's own telemetry against the loopback mock exchange: "hold", "ban" and "breaker" events
// as its calls learn them (without OpenTelemetry), each scope's gauges through the real
// sdk-metrics reader, and a stream's connection attempts as spans, counted against the server's
// own log of connections.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { SpanKind } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient, Budget } from "../../js/node.js";

let mock;
before(async () => (mock = await startMockExchange({ port: 0 })));
after(async () => mock?.close());
beforeEach(() => mock.reset());

class Reader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}
const quick = { baseDelayMs: 20, maxDelayMs: 20, jitter: "none", attemptTimeoutMs: 2_000, deadlineMs: 3_000 };

test("budget events: a hold and a ban as its calls learn them, and a breaker's every change of state", async () => {
  const budget = new Budget({ breaker: { consecutiveFailures: 2, openMs: 200 } });
  const heard = [];
  for (const type of ["hold", "ban", "breaker"]) budget.addEventListener(type, (e) => heard.push([type, e.detail]));
  const client = new RetryClient({ budget, policy: { ...quick, maxAttempts: 1 } });
  const url = (p) => `${mock.url}${p}`;
  mock.script("/held", [{ status: 429, retryAfter: "1" }]);
  await assert.rejects(client.fetch(url("/held")));
  assert.equal(heard.length, 1);
  assert.equal(heard[0][0], "hold");
  assert.equal(heard[0][1].scope, mock.url);
  assert.ok(heard[0][1].until > Date.now() + 500);
  mock.script("/broken", [{ status: 503 }, { status: 503 }]);
  await new Promise((r) => setTimeout(r, 1100));
  await assert.rejects(client.fetch(url("/broken")));
  await assert.rejects(client.fetch(url("/broken")));
  const breaker = heard.filter(([t]) => t === "breaker").map(([, d]) => d.state);
  assert.deepEqual(breaker, ["open"], "two failures opened it");
  const opened = heard.find(([t]) => t === "breaker")[1];
  assert.ok(opened.openUntil > Date.now(), "the event says when it is probed");
  await new Promise((r) => setTimeout(r, opened.openUntil - Date.now() + 50));
  mock.script("/fine", [{ status: 200 }]);
  await client.fetch(url("/fine"));
  assert.deepEqual(heard.filter(([t]) => t === "breaker").map(([, d]) => d.state), ["open", "closed"], "its probe succeeded: closed");
  mock.script("/banned", [{ status: 418, retryAfter: "60" }]);
  await assert.rejects(client.fetch(url("/banned")));
  const bans = heard.filter(([t]) => t === "ban");
  assert.equal(bans.length, 1);
  assert.ok(bans[0][1].until > Date.now() + 50_000);
  assert.equal(mock.requests().length, 5, "every event came from a request the server counted");
});

test("each scope's gauges: tokens, the retry quota, the breaker and a ban, read from the budget when collected", async () => {
  const reader = new Reader();
  const budget = new Budget({ capacity: 5, refillPerSecond: 10, telemetry: { meterProvider: new MeterProvider({ readers: [reader] }) } });
  const client = new RetryClient({ budget, policy: { ...quick, maxAttempts: 1 } });
  mock.script("/gauged", [{ status: 200 }, { status: 418, retryAfter: "30" }]);
  await client.fetch(`${mock.url}/gauged`);
  await assert.rejects(client.fetch(`${mock.url}/gauged`));
  const { resourceMetrics } = await reader.collect();
  const metrics = Object.fromEntries(resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m.dataPoints]));
  const [snapshot] = budget.snapshot();
  assert.equal(metrics["retryline.budget.tokens"][0].value, snapshot.tokens);
  assert.equal(metrics["retryline.budget.tokens"][0].attributes["retryline.scope"], mock.url);
  assert.ok(metrics["retryline.budget.ban.remaining"][0].value > 25, "the ban's time left, in seconds");
  assert.equal(metrics["retryline.budget.retry_quota"][0].value, snapshot.retryQuota.available);
  assert.throws(() => new Budget({ telemetry: { tracerProvider: {} } }), { name: "TypeError", message: /telemetry\.tracerProvider is not a known option \(telemetry takes meterProvider\)/ });
});

test("a stream's connection attempts are spans: one per connection the server saw, the refused upgrades in error", async (t) => {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  mock.streams.script("/ws/ticker", [{ action: "refuse", status: 503 }, { action: "accept" }]);
  const client = new RetryClient({ telemetry: { tracerProvider } });
  const stream = client.stream(`${mock.url.replace(/^http/, "ws")}/ws/ticker`, { WebSocket, policy: { baseDelayMs: 20, maxDelayMs: 20, jitter: "none" } });
  t.after(() => stream.close());
  await new Promise((resolve) => stream.addEventListener("state", (e) => e.state === "open" && resolve()));
  const during = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  assert.equal(during.length, 1, "the refused upgrade's span ended; the open connection's lasts as long as it does");
  stream.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const connections = mock.streams.connections({ path: "/ws/ticker" });
  const spans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  assert.equal(spans.length, connections.length, "one span per connection attempt at the server");
  assert.equal(spans.length, 2);
  assert.equal(spans[0].attributes["error.type"], "503", "the refused upgrade's span is in error");
  assert.equal(spans[0].status.code, 2);
  assert.deepEqual(spans.map((s) => s.attributes["retryline.attempt"]), [1, 2]);
});
