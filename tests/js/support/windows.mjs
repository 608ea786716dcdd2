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
