//! A call's `tracing` spans (feature `tracing`), drawn from what its machine hands out, as the
//! JavaScript shell draws OpenTelemetry's: a span per call (`otel.kind = "internal"`), a span per
//! request on the wire under it (`otel.kind = "client"`, the HTTP conventions' fields), each sleep
//! and refusal an event of the call's span with the plan's columns, and metric events in
//! tracing-opentelemetry's convention (`histogram.*`, `counter.*`). Without the feature, nothing.

use crate::record::AttemptRecord;

/// The spans of one call; empty without the feature.
#[derive(Default)]
pub struct Traced {
    #[cfg(feature = "tracing")]
    call: Option<tracing::Span>,
    #[cfg(feature = "tracing")]
    requests: Vec<(u32, tracing::Span)>,
}

#[cfg(not(feature = "tracing"))]
impl Traced {
    pub fn begin(_: &crate::call::Call) -> Traced {
        Traced {}
    }
    pub fn sent(&mut self, _: u32, _: bool) {}
    pub fn recorded(&mut self, _: &[AttemptRecord]) {}
    pub fn retrying(&self, _: &AttemptRecord, _: Option<&str>) {}
    pub fn ended(&mut self, _: &crate::call::Call, _: bool) {}
}

#[cfg(feature = "tracing")]
impl Traced {
    /// The call's span, begun with the call.
    pub fn begin(call: &crate::call::Call) -> Traced {
        let op = call.operation();
        let method = op.method().unwrap_or("GET");
        let name = crate::text::join(&[method, " ", op.kind().name()]);
        let span = tracing::info_span!(
            "retryline.call",
            otel.name = %name,
            otel.kind = "internal",
            http.request.method = %method,
            retryline.scope = %op.scope(),
            retryline.key = op.key().unwrap_or(""),
            retryline.reason = tracing::field::Empty,
            retryline.attempts = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        Traced { call: Some(span), requests: Vec::new() }
    }

    /// Request `attempt` goes out: its span, under the call's.
    pub fn sent(&mut self, attempt: u32, hedge: bool) {
        let Some(call) = &self.call else { return };
        let span = tracing::info_span!(
            parent: call,
            "retryline.request",
            otel.kind = "client",
            http.request.resend_count = attempt.saturating_sub(1),
            retryline.hedge = hedge,
            url.full = tracing::field::Empty,
            http.response.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        self.requests.push((attempt, span));
    }

    /// Records made: a request's span ends with its outcome; a refusal is an event.
    pub fn recorded(&mut self, records: &[AttemptRecord]) {
        for record in records {
            if record.is_sent() {
                let Some(at) = self.requests.iter().position(|(n, _)| *n == record.attempt) else { continue };
                let (_, span) = self.requests.remove(at);
                span.record("url.full", record.url.as_deref().unwrap_or(""));
                if let Some(status) = record.status {
                    span.record("http.response.status_code", status);
                }
                let failed = record.reason != Some(crate::reason::Reason::Success);
                if failed {
                    let kind = record.status.map_or_else(|| outcome_name(record), |s| s.to_string());
                    span.record("error.type", kind.as_str());
                    span.record("otel.status_code", "ERROR");
                }
                let seconds = record.end_ms.unwrap_or(record.start_ms).saturating_sub(record.start_ms) as f64 / 1000.0;
                tracing::info!(parent: &span, histogram.http.client.request.duration = seconds, failed);
            } else if let Some(call) = &self.call {
                let reason = record.reason.map_or("", |r| r.as_str());
                tracing::info!(
                    parent: call,
                    counter.retryline.client.refusals = 1u64,
                    retryline.event = "retryline.refused",
                    retryline.attempt = record.attempt,
                    retryline.planned_wait_ms = record.planned_wait_ms,
                    retryline.provider_wait_ms = record.provider_wait_ms,
                    retryline.remaining_ms = record.remaining_ms,
                    retryline.reason = reason,
                );
            }
        }
    }

    /// A retry stands, before its sleep: an event with the plan.
    pub fn retrying(&self, record: &AttemptRecord, after: Option<&str>) {
        let Some(call) = &self.call else { return };
        tracing::info!(
            parent: call,
            retryline.event = "retryline.sleep",
            retryline.attempt = record.attempt,
            retryline.window_ms = record.window_ms.unwrap_or(0),
            retryline.draw_ms = record.sampled_delay_ms.unwrap_or(0),
            retryline.planned_wait_ms = record.planned_wait_ms,
            retryline.provider_wait_ms = record.provider_wait_ms,
            retryline.remaining_ms = record.remaining_ms,
            retryline.reason = after.unwrap_or(""),
        );
    }

    /// The call ended: its reason and requests on its span, which closes.
    pub fn ended(&mut self, call: &crate::call::Call, success: bool) {
        self.requests.clear();
        let Some(span) = self.call.take() else { return };
        let op = call.operation();
        let reason = if success { "success" } else { op.stopped().map_or("", |s| s.reason.as_str()) };
        span.record("retryline.reason", reason);
        span.record("retryline.attempts", op.attempts_sent());
        if !success {
            span.record("otel.status_code", "ERROR");
        }
        let sent = || op.records().iter().filter(|r| r.is_sent());
        let retries = sent().filter(|r| !r.hedge).count().saturating_sub(1) as u64;
        let hedges = sent().filter(|r| r.hedge).count() as u64;
        let waited =
            sent().filter(|r| r.attempt > 1 && !r.hedge).map(|r| r.planned_wait_ms).sum::<u64>() as f64 / 1000.0;
        tracing::info!(
            parent: &span,
            histogram.retryline.client.call.retries = retries,
            histogram.retryline.client.call.hedges = hedges,
            histogram.retryline.client.call.retry_delay = waited,
        );
    }
}

/// How a request without a status ended: "timeout", "network-error", …
#[cfg(feature = "tracing")]
fn outcome_name(record: &AttemptRecord) -> String {
    record.outcome.map_or("_OTHER", |o| o.name()).to_owned()
}
