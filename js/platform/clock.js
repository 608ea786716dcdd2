// The two clocks: monotonic milliseconds for waits and deadlines, wall-clock Unix milliseconds for
// durable expiry and HTTP-dates. performance.now() is monotonic in browsers and Node; in workerd it
// is coarse and only advances across I/O. The value handed to the core never goes backwards, and is
// rounded up, so a timer that fired is never read as early.

// Looked up once: `performance` cannot change under a running program.
const source = typeof performance === "object" && typeof performance?.now === "function" ? performance : Date;
let last = 0;

export function now() {
  let reading;
  try {
    reading = Math.ceil(source.now());
  } catch {
    reading = 0;
  }
  if (reading > last) last = reading;
  return last;
}

export function wall() {
  const t = Date.now();
  return t > 0 ? t : 0;
}

/** 53 random bits (a seed for jitter), from crypto.getRandomValues, or from the clocks without it. */
export function entropy() {
  try {
    const words = crypto.getRandomValues(new Uint32Array(2));
    return words[0] * 2 ** 21 + (words[1] >>> 11);
  } catch {
    return (Date.now() * 1024 + (now() % 1024)) % 2 ** 53;
  }
}

/** 16 hex digits that name a client in the leases it writes. */
export function ownerId() {
  const a = entropy().toString(16).padStart(14, "0").slice(-8);
  const b = entropy().toString(16).padStart(14, "0").slice(-8);
  return a + b;
}
