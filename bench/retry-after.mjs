// (c1) A throttled provider: the route answers 429 with `Retry-After: 1`, then 200. Each library,
// configured as its README shows with 3 attempts and a base delay of 100 ms (so a gap of a
// second can only come from reading the header), sends one GET. The gap is measured by the
// server: from its 429 leaving to the retry arriving.
import { contenders } from "./lib/contenders.mjs";
import { timeLimit } from "./lib/time-limit.mjs";

const options = { attempts: 3, baseDelayMs: 100 };

export async function measureRetryAfter(mock, { log = () => {} } = {}) {
  const rows = [];
  for (const c of contenders.filter((c) => c.retries)) {
    const path = `/api/v3/ticker/retry-after/${c.id}`;
    await mock.script(path, [{ status: 429, retryAfter: 1 }, { status: 200 }]);
    const { get } = c.create(options);
    const started = performance.now();
    let result;
    try {
      result = await timeLimit(get(`${mock.url}${path}`), 15_000, c.name);
    } catch (error) {
      result = { status: null, error: error.message };
    }
    const totalMs = performance.now() - started;
    const seen = await mock.requests(path);
    const gapMs = seen.length >= 2 ? seen[1].receivedAtMs - seen[0].respondedAtMs : null;
    rows.push({
      id: c.id,
      name: c.name,
      config: c.config(options),
      finalStatus: result.status,
      error: result.error ?? null,
      serverRequests: seen.length,
      gapMs,
      honouredRetryAfter: gapMs !== null && gapMs >= 1000,
      totalMs,
    });
    log(`  ${c.name}: ${seen.length} requests, gap ${gapMs === null ? "-" : gapMs.toFixed(0)} ms`);
  }
  return rows;
}
