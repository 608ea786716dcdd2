// A call's OpenTelemetry spans, drawn from what its machine hands out: the parent (INTERNAL) when
// the call begins, a CLIENT span per request when the machine says send, its attributes and end
// from the request's record, the sleeps and refusals as events on the parent, and the parent's
// end from the call's outcome. Every time is the record's (ms since the call began, on the call's
// own clock). Nothing here decides; a tracer that throws is dropped (./telemetry.js).

import { SPAN_KEY, activeContext } from "./telemetry.js";

const INTERNAL = 0;
const CLIENT = 2;
const ERROR = 2;

/** Where the request goes, as the semantic conventions name it. */
function server(url) {
  try {
    const parsed = new URL(url);
    const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port);
    return { "server.address": parsed.hostname, "server.port": port };
  } catch {
    return {};
  }
}

/** The plan's numbers, the article's columns, as an event's attributes. */
function columns(record, reason) {
  const out = {
    "retryline.attempt": record.attempt,
    "retryline.planned_wait_ms": record.plannedWaitMs,
    "retryline.provider_wait_ms": record.providerWaitMs,
    "retryline.remaining_ms": record.remainingMs,
  };
  if (record.windowMs !== null) out["retryline.window_ms"] = record.windowMs;
  if (record.sampledDelayMs !== null) out["retryline.draw_ms"] = record.sampledDelayMs;
  if (record.budgetWaitMs > 0) out["retryline.budget_wait_ms"] = record.budgetWaitMs;
  if (reason !== null && reason !== undefined) out["retryline.reason"] = reason;
  if (record.limit !== null && record.limit !== undefined) out["retryline.limit"] = record.limit;
  return out;
}

/** What went wrong with a request, for `error.type`; undefined for a success. */
export function errorType(record) {
  if (record.status !== null && record.status >= 400) return String(record.status);
  if (record.outcome === "response") return record.reason === "success" ? undefined : "_OTHER";
  return record.outcome ?? "_OTHER";
}

/** The spans of one call; `guard` holds the tracer (dropped at its first throw). */
export class CallSpans {
  constructor(guard, tracer, { name, method, url, wall, attributes, links }) {
    this.guard = guard;
    this.tracer = tracer;
    this.method = method;
    this.server = server(url);
    this.wall = wall;
    this.requests = new Map();
    this.caller = activeContext();
    this.parent = guard.run(() => tracer.startSpan(name, { kind: INTERNAL, startTime: wall, attributes: { "http.request.method": method, ...attributes }, links }, this.caller));
    this.context = this.parent === undefined ? undefined : guard.run(() => this.caller.setValue(SPAN_KEY, this.parent));
  }

  /** The request of `attempt` goes out at `wallNow`: its CLIENT span; `{ traceparent, context }`
   * (the traceparent where the span has a valid context), or undefined. */
  sent(attempt, hedge, url, wallNow) {
    if (this.context === undefined) return undefined;
    const attributes = { "http.request.method": this.method, "url.full": url, ...this.server };
    if (attempt > 1) attributes["http.request.resend_count"] = attempt - 1;
    if (hedge) attributes["retryline.hedge"] = true;
    const span = this.guard.run(() => this.tracer.startSpan(this.method, { kind: CLIENT, startTime: wallNow, attributes }, this.context));
    if (span === undefined) return undefined;
    this.requests.set(attempt, span);
    return { traceparent: this.guard.run(() => traceparent(span.spanContext())), context: this.context };
  }

  /** A record made: a request's span ends, or a refusal or stale answer is an event. */
  recorded(record) {
    if (this.parent === undefined) return;
    this.guard.run(() => {
      if (record.decision === "sent") return this.ended(record);
      const name = record.decision === "stale" ? "retryline.stale" : "retryline.refused";
      this.parent.addEvent(name, columns(record, record.reason), this.wall + record.decidedAtMs);
    });
  }

  ended(record) {
    const span = this.requests.get(record.attempt);
    if (span === undefined) return;
    this.requests.delete(record.attempt);
    if (record.status !== null) span.setAttribute("http.response.status_code", record.status);
    const type = errorType(record);
    if (type !== undefined) {
      span.setAttribute("error.type", type);
      span.setStatus({ code: ERROR, message: record.error ?? record.reason ?? type });
    }
    if (record.winner !== null) span.setAttribute("retryline.winner", record.winner === record.attempt);
    span.end(this.wall + (record.endMs ?? record.startMs));
  }

  /** A retry stands, before its sleep: an event with the plan and why the last attempt failed. */
  retrying(record, after) {
    if (this.parent === undefined) return;
    this.guard.run(() => this.parent.addEvent("retryline.sleep", columns(record, after), this.wall + record.decidedAtMs));
  }

  /** The call ended with `reason` after `sent` requests (`hedges` of them hedges), at `wallEnd`. */
  callEnded({ reason, sent, hedges, stale, key, scope }, wallEnd) {
    if (this.parent === undefined) return;
    this.guard.run(() => {
      // Requests the machine never reported (abandoned with the call) end with it.
      for (const span of this.requests.values()) span.end(wallEnd);
      this.requests.clear();
      const attributes = { "retryline.reason": reason, "retryline.attempts": sent };
      if (hedges > 0) attributes["retryline.hedges"] = hedges;
      if (stale) attributes["retryline.stale"] = true;
      if (key !== undefined) attributes["retryline.key"] = key;
      if (scope !== undefined && scope !== null) attributes["retryline.scope"] = scope;
      this.parent.setAttributes(attributes);
      if (reason !== "success") this.parent.setStatus({ code: ERROR, message: reason });
      this.parent.end(wallEnd);
    });
  }

  /** The parent's span context, for a reconciliation's link. */
  spanContext() {
    return this.parent === undefined ? undefined : this.guard.run(() => this.parent.spanContext());
  }
}

/** A W3C `traceparent` for `context`, or undefined when it is not a valid one. */
function traceparent(context) {
  const { traceId, spanId, traceFlags } = context ?? {};
  if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId) || /^0+$/.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-${((traceFlags ?? 0) & 0xff).toString(16).padStart(2, "0")}`;
}

/** A stream's connection attempts as CLIENT spans, under the context the stream was made in:
 * each drawn from its record when the machine reports it (it ends then; its start is its
 * duration before). Refusals are events on the attempt's span's parent-less sibling: a span of
 * their own, `retryline.refused`, so a trace shows why a reconnect was not made. */
export function streamSpans(guard, tracer, url) {
  const caller = activeContext();
  const where = server(url);
  return (text) => {
    let records;
    try {
      records = JSON.parse(text);
    } catch {
      return;
    }
    const end = Date.now();
    for (const record of records) {
      guard.run(() => {
        const ms = record.endMs === null ? 0 : record.endMs - record.startMs;
        const attributes = { "url.full": record.url ?? url, "retryline.attempt": record.attempt, ...where };
        if (record.dropped !== null) attributes["retryline.dropped"] = record.dropped;
        const name = record.decision === "sent" ? "websocket connect" : "retryline.refused";
        const span = tracer.startSpan(name, { kind: record.decision === "sent" ? CLIENT : INTERNAL, startTime: end - ms, attributes }, caller);
        if (record.decision !== "sent") span.addEvent("retryline.refused", columns(record, record.reason), end);
        const type = record.decision === "sent" ? errorType(record) : record.reason;
        if (type !== undefined && type !== null) {
          span.setAttribute("error.type", type);
          span.setStatus({ code: ERROR, message: record.error ?? record.reason ?? type });
        }
        span.end(end);
      });
    }
  };
}
