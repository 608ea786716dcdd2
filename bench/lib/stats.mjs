// Small statistics helpers for latency samples (milliseconds).

/** Nearest-rank percentile of an ascending-sorted array, p in [0, 100]. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samplesMs) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const total = sorted.reduce((s, x) => s + x, 0);
  return {
    count: sorted.length,
    medianMs: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: total / sorted.length,
    maxMs: sorted[sorted.length - 1],
  };
}
