// OpenTelemetry without a dependency: `telemetry: { tracerProvider, meterProvider }` are the
// caller's `@opentelemetry/api` objects. The context (the caller's span, the parent of ours, and
// the suppression of the platform's own fetch instrumentation) is reached through the API's
// published global keys, so that a page without OpenTelemetry loads and pays nothing.

import { describe } from "./describe.js";

/** The API's registry of globals (@opentelemetry/api 1.x: `context`, `trace`, …). */
const API = Symbol.for("opentelemetry.js.api.1");
/** The context key of the active span (@opentelemetry/api's `trace.setSpan`). */
export const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
/** The context key instrumentations read to stay silent (@opentelemetry/core's `suppressTracing`). */
const SUPPRESS_KEY = Symbol.for("OpenTelemetry SDK Context Key SUPPRESS_TRACING");
/** Where no context manager is registered: a context of our own, immutable as the API's. */
class Context {
  constructor(values = new Map()) {
    this.values = values;
  }
  getValue(key) {
    return this.values.get(key);
  }
  setValue(key, value) {
    return new Context(new Map(this.values).set(key, value));
  }
  deleteValue(key) {
    const values = new Map(this.values);
    values.delete(key);
    return new Context(values);
  }
}
const ROOT = new Context();

/** The caller's active context, or an empty one. */
export function activeContext() {
  try {
    return globalThis[API]?.context?.active?.() ?? ROOT;
  } catch {
    return ROOT;
  }
}

/** Runs `f` inside `context` with tracing suppressed (the fetch instrumentations of undici and of
 * browsers then make no span of their own: retryline's client span is the request's). */
export function quietly(context, f) {
  const manager = globalThis[API]?.context;
  if (typeof manager?.with !== "function") return f();
  let quiet;
  try {
    quiet = context.setValue(SUPPRESS_KEY, true);
  } catch {
    return f();
  }
  return manager.with(quiet, f);
}

/** A provider's part that may throw: the first throw drops it, with one warning. */
export class Guarded {
  constructor(what) {
    this.what = what;
    this.dropped = false;
  }

  /** `f()`, or `fallback` once it threw (then and ever after). */
  run(f, fallback = undefined) {
    if (this.dropped) return fallback;
    try {
      return f();
    } catch (error) {
      this.drop(error);
      return fallback;
    }
  }

  drop(error) {
    if (this.dropped) return;
    this.dropped = true;
    try {
      console.warn(`retryline: telemetry's ${this.what} threw (${describe(error)}); it is dropped, and the calls go on without it`);
    } catch {}
  }
}

/** The tracer and instruments of a client's `telemetry` (read by readTelemetry), each made once
 * through its own guard; `instruments` (./metrics.js) is passed in, so that an entry without
 * metrics does not load them. */
export function clientTelemetry(read, instruments) {
  const out = {};
  if (read?.tracerProvider !== undefined) {
    const guard = new Guarded("tracerProvider");
    const tracer = guard.run(() => read.tracerProvider.getTracer("retryline", "0.1.0"));
    if (tracer !== undefined && tracer !== null) out.tracer = { guard, tracer };
  }
  if (read?.meterProvider !== undefined) {
    const guard = new Guarded("meterProvider");
    const meter = guard.run(() => read.meterProvider.getMeter("retryline", "0.1.0"));
    if (meter !== undefined && meter !== null) out.metrics = instruments(guard, meter);
  }
  return out;
}
