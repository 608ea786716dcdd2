// Who watches a call beyond onAttempt: the caller's `onRetry` and `onEnd`, and the client's
// OpenTelemetry spans and metrics. Each hears what the machine handed out — a send, records, a
// retry that stands, the end — and nothing it does reaches the call: a hook or a provider that
// throws is ignored or dropped.

import { CallSpans } from "../platform/spans.js";
import { callPoints, recordPoints } from "../platform/metrics.js";
import { hand } from "../platform/observers.js";
import { now, wall } from "../platform/clock.js";

/** Calls each of `hooks` with `info`; what they throw or reject with is ignored. */
const hear = (hooks, info) => hooks.forEach((hook) => hand(hook, info));

/** The watch of a call of client `c` begun at `t` (monotonic) and `w` (wall), or undefined when no
 * one watches. `what`: `{ method, url, family, key, onRetry, onEnd, purpose, links }`. */
export function watchOf(c, t, w, what) {
  const retry = [c.onRetry, what.onRetry].filter((h) => h !== undefined);
  const end = [c.onEnd, what.onEnd].filter((h) => h !== undefined);
  const { tracer, metrics } = c.telemetry;
  if (retry.length === 0 && end.length === 0 && tracer === undefined && metrics === undefined) return undefined;
  return new Watch(c, t, w, what, retry, end);
}

class Watch {
  constructor(c, t, w, what, retry, end) {
    this.c = c;
    this.t = t;
    this.method = what.method;
    this.url = what.url;
    this.retry = retry;
    this.end = end;
    this.records = [];
    this.key = what.key;
    this.family = what.family ?? undefined;
    const { tracer, metrics } = c.telemetry;
    this.metrics = metrics?.guard.dropped ? undefined : metrics;
    if (tracer !== undefined && !tracer.guard.dropped) {
      const name = `${what.method} ${what.purpose ?? this.family ?? "call"}`;
      const attributes = this.family === undefined ? {} : { "retryline.family": this.family };
      this.spans = new CallSpans(tracer.guard, tracer.tracer, { name, method: what.method, url: what.url, wall: w, attributes, links: what.links });
      this.named = what.purpose !== undefined || this.family !== undefined;
    }
  }

  /** Request `attempt` goes out: its traceparent, if a span carries one. */
  sent(attempt, hedge) {
    return this.spans?.sent(attempt, hedge, this.c.redact(this.url ?? "", true), wall());
  }

  /** Records made (their JSON array). */
  reported(text) {
    let records;
    try {
      records = JSON.parse(text);
    } catch {
      return;
    }
    for (const record of records) this.record(record);
  }

  record(record) {
    this.records.push(record);
    if (this.spans !== undefined && !this.named) {
      this.named = true;
      this.spans.guard.run(() => this.spans.parent?.updateName(`${this.method} ${record.operation}`));
    }
    this.spans?.recorded(record);
    if (this.metrics !== undefined) recordPoints(this.metrics, record, this.method);
  }

  /** A retry stands: `record` is the attempt as planned, `after` why the last one failed. */
  retrying(record, after) {
    this.spans?.retrying(record, after);
    if (this.retry.length === 0) return;
    const info = {
      attempt: record.attempt,
      plannedWaitMs: record.plannedWaitMs,
      providerWaitMs: record.providerWaitMs,
      windowMs: record.windowMs,
      sampledDelayMs: record.sampledDelayMs,
      remainingMs: record.remainingMs,
      reason: after,
      record,
    };
    hear(this.retry, info);
  }

  /** The call ended: `reason` ("success" or the RetryError's), with `records` when the outcome
   * carried them all; `error` when it rejected with something else. */
  ended(reason, records, error) {
    for (const record of records?.slice(this.records.length) ?? []) this.record(record);
    const all = this.records;
    const sent = all.filter((r) => r.decision === "sent");
    const stale = all.some((r) => r.decision === "stale");
    const durationMs = now() - this.t;
    const scope = all[0]?.scope;
    this.spans?.callEnded({ reason: reason ?? "error", sent: sent.length, hedges: sent.filter((r) => r.hedge).length, stale, key: this.key, scope }, wall());
    if (this.metrics !== undefined) callPoints(this.metrics, { reason: reason ?? "error", method: this.method, operation: all[0]?.operation ?? "read", records: all, durationMs });
    if (this.end.length === 0) return;
    const info = { ok: reason === "success" || stale, reason, attempts: sent.length, durationMs, records: all };
    if (stale) info.stale = true;
    if (error !== undefined) info.error = error;
    hear(this.end, info);
  }
}
