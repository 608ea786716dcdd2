// retryline's spans beside undici's own instrumentation (@opentelemetry/instrumentation-undici, the
// one that traces Node's fetch): a plain fetch gets undici's CLIENT span, a retryline call gets
// only retryline's — one CLIENT span per request on the wire, its traceparent the one the server
// saw — never two. A file of its own: the instrumentation patches the process.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { context, SpanKind } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { startMockExchange } from "./mock-exchange.mjs";
import { RetryClient } from "../../js/node.js";

let mock;
let unregister;
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
before(async () => {
  mock = await startMockExchange({ port: 0 });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  unregister = registerInstrumentations({ tracerProvider, instrumentations: [new UndiciInstrumentation()] });
});
after(async () => {
  unregister?.();
  await mock?.close();
});

const undiciSpans = () => exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name.includes("undici"));

test("undici's instrumentation traces a plain fetch, and stays silent for retryline's requests: no request has two spans", async () => {
  const path = "/api/v3/ticker/undici";
  mock.script(path, [{ status: 200 }, { status: 503 }, { status: 200 }]);
  const url = `${mock.url}${path}`;
  await (await fetch(url)).arrayBuffer();
  // Spans end as the response's body ends: wait for undici's to be exported.
  for (let i = 0; i < 50 && undiciSpans().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(undiciSpans().length, 1, "the instrumentation is live: a plain fetch has its span");
  exporter.reset();
  const client = new RetryClient({ telemetry: { tracerProvider }, policy: { baseDelayMs: 20, maxDelayMs: 20, jitter: "none" } });
  await (await client.fetch(url)).arrayBuffer();
  await new Promise((r) => setTimeout(r, 200));
  const clientSpans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  const served = mock.requests({ path }).slice(1);
  assert.equal(served.length, 2);
  assert.equal(undiciSpans().length, 0, "no span of undici's for retryline's requests");
  assert.equal(clientSpans.length, served.length, "one client span per request on the wire");
  const ids = clientSpans.map((s) => s.spanContext().spanId).sort();
  const carried = served.map((r) => r.headers.traceparent?.split("-")[2]).sort();
  assert.deepEqual(carried, ids, "each request carried retryline's span, not undici's");
});
