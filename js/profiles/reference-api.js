// A starting point for the API of the second reference document ("Retries and Backoff",
// currency-core.com/docs/guides/retries/, updated 2026-11-11, read from ../shared/reference/ on
// 2026-12-02): retry 429 and 5xx only; a 429 without Retry-After at most a few times; 400, 401,
// 402, 403, 404, 413, 422 final; a 429 that persists after its stated wait is escalated (the
// core's "rate-limited"). It publishes no quota headers, so only Retry-After is a provider wait.

export default {
  families: [
    {
      name: "data reads",
      match: { method: "GET", url: "https://currency-core.com/*" },
      operation: "read",
      policy: { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 4000, attemptTimeoutMs: 5000, deadlineMs: 20_000, retryOn: [429, 500, 502, 503] },
      docs: { url: "https://currency-core.com/docs/guides/retries/", checked: "2026-12-02", final: [400, 401, 402, 403, 404, 413, 422] },
    },
  ],
};
