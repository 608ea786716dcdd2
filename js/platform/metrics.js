// A client's OpenTelemetry instruments, fed from its calls' records: the semantic conventions'
// `http.client.request.duration` per request, and after gRPC A96 a call's retries, hedges and
// time spent waiting between attempts, its duration, and refusals by reason. Attributes stay low
// in cardinality: method, server, status, reason — never a URL or a key.

import { errorType } from "./spans.js";

/** Bucket boundaries in seconds, as the HTTP conventions advise for durations. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const COUNTS = [0, 1, 2, 3, 4, 5, 10];

/** The instruments of `meter`, made through `guard` (undefined when it threw). */
export function instruments(guard, meter) {
  return guard.run(() => ({
    guard,
    requestDuration: meter.createHistogram("http.client.request.duration", { unit: "s", description: "Duration of HTTP client requests.", advice: { explicitBucketBoundaries: SECONDS } }),
    attempts: meter.createCounter("retryline.client.attempt.started", { unit: "{attempt}", description: "Requests sent, each attempt and hedge." }),
    callDuration: meter.createHistogram("retryline.client.call.duration", { unit: "s", description: "Duration of a call, from its start to its outcome, every attempt and wait included.", advice: { explicitBucketBoundaries: SECONDS } }),
    retries: meter.createHistogram("retryline.client.call.retries", { unit: "{retry}", description: "Retries a call made (requests after the first, hedges aside).", advice: { explicitBucketBoundaries: COUNTS } }),
    hedges: meter.createHistogram("retryline.client.call.hedges", { unit: "{hedge}", description: "Hedged requests a call made.", advice: { explicitBucketBoundaries: COUNTS } }),
    retryDelay: meter.createHistogram("retryline.client.call.retry_delay", { unit: "s", description: "Time a call spent waiting between its attempts.", advice: { explicitBucketBoundaries: SECONDS } }),
    refusals: meter.createCounter("retryline.client.refusals", { unit: "{refusal}", description: "Attempts refused before sending, by reason." }),
  }));
}

/** What the conventions call the request's server. */
function serverOf(scope) {
  if (typeof scope !== "string") return {};
  try {
    const url = new URL(scope);
    return { "server.address": url.hostname };
  } catch {
    return {};
  }
}

/** One record's points: a request's duration, or a refusal. */
export function recordPoints(m, record, method) {
  m.guard.run(() => {
    const where = serverOf(record.scope);
    if (record.decision === "sent") {
      const attributes = { "http.request.method": method, ...where };
      if (record.status !== null) attributes["http.response.status_code"] = record.status;
      const type = errorType(record);
      if (type !== undefined) attributes["error.type"] = type;
      m.attempts.add(1, { "http.request.method": method, ...where });
      if (record.endMs !== null) m.requestDuration.record((record.endMs - record.startMs) / 1000, attributes);
    } else if (record.decision === "refused") {
      const attributes = { "retryline.reason": record.reason ?? "unknown", ...where };
      if (record.limit !== null && record.limit !== undefined) attributes["retryline.limit"] = record.limit;
      m.refusals.add(1, attributes);
    }
  });
}

/** A call's points at its end, from all its records. */
export function callPoints(m, { reason, method, operation, records, durationMs }) {
  m.guard.run(() => {
    const sent = records.filter((r) => r.decision === "sent");
    const hedges = sent.filter((r) => r.hedge).length;
    const first = records[0];
    const where = serverOf(first?.scope);
    const attributes = { "http.request.method": method, "retryline.operation": operation, "retryline.reason": reason, ...where };
    const waited = sent.filter((r) => r.attempt > 1 && !r.hedge).reduce((sum, r) => sum + r.plannedWaitMs, 0);
    m.callDuration.record(durationMs / 1000, attributes);
    m.retries.record(Math.max(0, sent.length - hedges - 1), attributes);
    m.hedges.record(hedges, attributes);
    m.retryDelay.record(waited / 1000, attributes);
  });
}
