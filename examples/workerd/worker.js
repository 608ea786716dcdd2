// A worker that proxies an exchange's public API with retries: a 503 is retried, a Retry-After
// honoured, and a call that cannot finish in time answers 502 with the reason.
import { RetryClient, RetryError } from "retryline";

// One client per isolate: its budget (holds, bans, the retry quota) covers every request it serves.
const client = new RetryClient({ policy: { maxAttempts: 3, baseDelayMs: 100, attemptTimeoutMs: 2000, deadlineMs: 6000 } });

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const upstream = new URL(url.pathname + url.search, env.UPSTREAM);
    try {
      return await client.fetch(upstream);
    } catch (error) {
      if (!(error instanceof RetryError)) throw error;
      const sent = error.records.filter((r) => r.decision === "sent");
      return Response.json({ reason: error.reason, message: error.message, lastError: sent.at(-1)?.error ?? null }, { status: 502 });
    }
  },
};
