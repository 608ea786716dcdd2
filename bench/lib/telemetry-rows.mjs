// What telemetry costs a call (issue 35), as rows of bench/per-call.mjs beside retryline without
// it: the API's no-op providers (what an app gets from `trace.getTracerProvider()` and
// `metrics.getMeterProvider()` before it registers an SDK), and the real SDK — a tracer provider
// with the in-memory exporter and a meter provider with a reader — recording every span and point.
import { metrics, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";

class Reader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

/** Two rows for `RetryClient` calling `url`, each client also given `options` (`budget` a factory). */
export function telemetryRows(RetryClient, url, options) {
  const made = (send, telemetry) =>
    new RetryClient({ fetch: send, telemetry, ...(options.policy ? { policy: options.policy } : {}), ...(options.budget ? { budget: options.budget() } : {}) });
  return [
    { id: "retryline-otel-noop", name: "retryline, OpenTelemetry's no-op providers", config: "telemetry: { tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider() } (none registered)",
      make: (send) => {
        const client = made(send, { tracerProvider: trace.getTracerProvider(), meterProvider: metrics.getMeterProvider() });
        return () => client.fetch(url);
      } },
    { id: "retryline-otel-sdk", name: "retryline, the SDK recording (in-memory exporter, a metric reader)", config: "telemetry: { tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] }), meterProvider: new MeterProvider({ readers: [reader] }) }",
      make: (send) => {
        const exporter = new InMemorySpanExporter();
        const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
        const client = made(send, { tracerProvider, meterProvider: new MeterProvider({ readers: [new Reader()] }) });
        let calls = 0;
        // The exporter keeps every span: emptied now and then, as a real exporter's batch would be.
        return () => (++calls % 1000 === 0 && exporter.reset(), client.fetch(url));
      } },
  ];
}
