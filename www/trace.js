// The trace panel: the timeline's calls traced with the OpenTelemetry SDK (the in-memory exporter,
// as a page would hand its own provider in), and the last call drawn as a waterfall from the spans
// the SDK exported — the call's span, a bar per request span, the events between them (each sleep,
// and the refused attempt). `window.__retrylineSpans` holds what was exported, for the test.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

const exporter = new InMemorySpanExporter();
/** The page's tracer provider: the timeline's clients take it as `telemetry.tracerProvider`. */
export const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const ms = (time) => time[0] * 1000 + time[1] / 1e6;

/** The spans exported since the last take, in plain form. */
export function takeSpans() {
  const spans = exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    kind: s.kind,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? s.parentSpanId ?? null,
    startMs: ms(s.startTime),
    endMs: ms(s.endTime),
    status: s.status.code,
    attributes: { ...s.attributes },
    events: s.events.map((e) => ({ name: e.name, atMs: ms(e.time), attributes: { ...e.attributes } })),
  }));
  exporter.reset();
  return spans;
}

const ROW = 26;
const LEFT = 150;

/** Draws the waterfall of the call whose INTERNAL span is the last in `spans` into `el`. */
export function drawTrace(el, spans) {
  window.__retrylineSpans = spans;
  const parent = spans.filter((s) => s.kind === 0).at(-1);
  if (parent === undefined) return void el.replaceChildren();
  const requests = spans.filter((s) => s.parentSpanId === parent.spanId).sort((a, b) => a.startMs - b.startMs);
  const span = Math.max(parent.endMs - parent.startMs, ...parent.events.map((e) => e.atMs - parent.startMs), 1);
  const width = 760;
  const x = (t) => LEFT + ((t - parent.startMs) / span) * (width - LEFT - 10);
  const rows = [parent, ...requests];
  const svg = [`<svg viewBox="0 0 ${width} ${ROW * rows.length + 24}" width="100%" role="img" aria-label="the call's trace">`];
  rows.forEach((s, i) => {
    const y = i * ROW + 4;
    const failed = s.status === 2;
    const label = i === 0 ? s.name : `${s.name} #${(s.attributes["http.request.resend_count"] ?? 0) + 1} ${s.attributes["http.response.status_code"] ?? s.attributes["error.type"] ?? ""}`;
    svg.push(`<g class="span ${i === 0 ? "call" : "request"}${failed ? " failed" : ""}" data-span-id="${s.spanId}" data-start-ms="${Math.round(s.startMs - parent.startMs)}" data-end-ms="${Math.round(s.endMs - parent.startMs)}">`,
      `<text x="4" y="${y + 15}">${label}</text>`,
      `<rect x="${x(s.startMs)}" y="${y}" width="${Math.max(2, x(s.endMs) - x(s.startMs))}" height="${ROW - 8}"><title>${s.name}: ${Math.round(s.endMs - s.startMs)} ms</title></rect></g>`);
  });
  for (const e of parent.events) {
    const at = Math.round(e.atMs - parent.startMs);
    const a = e.attributes;
    const title = `${e.name} at ${at} ms: attempt ${a["retryline.attempt"]}, window ${a["retryline.window_ms"] ?? "–"}, draw ${a["retryline.draw_ms"] ?? "–"}, provider ${a["retryline.provider_wait_ms"]}, planned ${a["retryline.planned_wait_ms"]}, left ${a["retryline.remaining_ms"]} ms, ${a["retryline.reason"]}`;
    svg.push(`<g class="event ${e.name === "retryline.refused" ? "refused" : "sleep"}" data-at-ms="${at}" data-attempt="${a["retryline.attempt"]}"><path d="M${x(e.atMs)},4 l5,9 l-5,9 l-5,-9 z"><title>${title}</title></path></g>`);
  }
  svg.push(`<text x="${LEFT}" y="${ROW * rows.length + 18}">0 s</text><text x="${width - 40}" y="${ROW * rows.length + 18}">${(span / 1000).toFixed(1)} s</text></svg>`);
  el.innerHTML = svg.join("");
  Object.assign(el.dataset, { requests: String(requests.length), events: String(parent.events.length) });
}
