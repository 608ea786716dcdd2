// Counting in sliding windows: what a provider's per-second limit sees.

/** The most events within any `window` ms of sorted times `xs`. */
export function busiest(xs, window) {
  let worst = 0;
  for (let lo = 0, hi = 0; hi < xs.length; hi++) {
    while (xs[hi] - xs[lo] >= window) lo++;
    worst = Math.max(worst, hi - lo + 1);
  }
  return worst;
}

/** The most requests the mock exchange received in any one-second window. */
export function busiestSecond(requests) {
  return busiest(requests.map((r) => r.receivedAtMs).sort((a, b) => a - b), 1000);
}

/** What a bucket of `capacity` refilled at `refillPerSecond` lets through over the span the server saw
 * (first to last arrival), one more for a token landing on its edge: a flood that a busy machine
 * stretches past its planned length is judged by the time it really took. */
export function bucketBound(requests, { capacity, refillPerSecond }) {
  const times = requests.map((r) => r.receivedAtMs);
  const span = times.length === 0 ? 0 : Math.max(...times) - Math.min(...times);
  return capacity + Math.ceil((span / 1000) * refillPerSecond) + 1;
}
