// Every library under comparison, each configured the way its README shows, with the same
// number of attempts (initial request included) and, where it has one, the same base delay.
// create(options) takes { attempts, baseDelayMs } and optionally `fetch`, the function to send
// with (default: the platform's; axios then uses its fetch adapter instead of Node's http).
// get(url) sends one GET, reads the body, and resolves with what the caller finally saw:
// { status } (null after a network error) and, on failure, { error }.
import { RetryClient, RetryError } from "../../js/node.js";
import pRetry, { AbortError } from "p-retry";
import ky, { HTTPError } from "ky";
import { ExponentialBackoff, handleAll, retry } from "cockatiel";
import { backOff } from "exponential-backoff";
import fetchRetry from "fetch-retry";
import axios from "axios";
import axiosRetry from "axios-retry";

const RETRYABLE = [408, 429, 500, 502, 503, 504];

class HttpStatusError extends Error {
  constructor(status) {
    super(`HTTP ${status}`);
    this.status = status;
  }
}

/** Reads a fetch Response the way a caller would: JSON when it succeeded, drained otherwise. */
async function settle(res) {
  if (res.ok) await res.json();
  else await res.text();
  return { status: res.status };
}

const platformFetch = (...args) => fetch(...args);
const axiosConfig = (send) => (send ? { adapter: "fetch", env: { fetch: send } } : {});

const failed = (error, status = null) => ({ status, error: error?.reason ?? error?.name ?? String(error) });

export const contenders = [
  {
    id: "fetch",
    name: "plain fetch (no retries)",
    packages: [],
    retries: false,
    config: () => "fetch(url)",
    create: ({ fetch: send = platformFetch } = {}) => ({ get: async (url) => settle(await send(url)) }),
  },
  {
    id: "retryline",
    name: "retryline",
    packages: [],
    retries: true,
    config: ({ attempts, baseDelayMs, budget }) =>
      `new RetryClient({ policy: { maxAttempts: ${attempts}, baseDelayMs: ${baseDelayMs} }${budget ? ", budget" : ""} })`,
    // clientPerRequest: a new client for every call, so no state at all is shared between calls.
    create: ({ attempts, baseDelayMs, budget, clientPerRequest = false, fetch: send }) => {
      const make = () =>
        new RetryClient({ policy: { maxAttempts: attempts, baseDelayMs }, ...(budget ? { budget } : {}), ...(send ? { fetch: send } : {}) });
      const shared = clientPerRequest ? null : make();
      return {
        async get(url) {
          const client = shared ?? make();
          try {
            return await settle(await client.fetch(url));
          } catch (error) {
            if (error instanceof RetryError) return failed(error, error.response?.status ?? null);
            throw error;
          } finally {
            if (!shared) client.free();
          }
        },
      };
    },
  },
  {
    id: "p-retry",
    name: "p-retry + fetch",
    packages: ["p-retry"],
    retries: true,
    config: ({ attempts, baseDelayMs }) =>
      `pRetry(() => fetch(url) /* throws on 408/429/5xx, AbortError on other 4xx */, { retries: ${attempts - 1}, minTimeout: ${baseDelayMs} })`,
    create: ({ attempts, baseDelayMs, fetch: send = platformFetch }) => ({
      async get(url) {
        try {
          return await pRetry(async () => {
            const res = await send(url);
            if (res.ok) return settle(res);
            await res.text();
            if (RETRYABLE.includes(res.status)) throw new HttpStatusError(res.status);
            throw new AbortError(new HttpStatusError(res.status));
          }, { retries: attempts - 1, minTimeout: baseDelayMs });
        } catch (error) {
          return failed(error, error.status ?? null);
        }
      },
    }),
  },
  {
    id: "ky",
    name: "ky",
    packages: ["ky"],
    retries: true,
    config: ({ attempts, baseDelayMs }) =>
      `ky.create({ retry: { limit: ${attempts - 1}, delay: (n) => ${baseDelayMs} * 2 ** (n - 1) } })`,
    create: ({ attempts, baseDelayMs, fetch: send }) => {
      const api = ky.create({ ...(send ? { fetch: send } : {}), retry: { limit: attempts - 1, delay: (n) => baseDelayMs * 2 ** (n - 1) } });
      return {
        async get(url) {
          try {
            return await settle(await api.get(url));
          } catch (error) {
            if (error instanceof HTTPError) return failed(error, error.response.status);
            return failed(error);
          }
        },
      };
    },
  },
  {
    id: "cockatiel",
    name: "cockatiel",
    packages: ["cockatiel"],
    retries: true,
    config: ({ attempts, baseDelayMs }) =>
      `retry(handleAll.orWhenResult((r) => [408, 429, 5xx].includes(r.status)), { maxAttempts: ${attempts - 1}, backoff: new ExponentialBackoff({ initialDelay: ${baseDelayMs} }) })`,
    create: ({ attempts, baseDelayMs, fetch: send = platformFetch }) => {
      const policy = retry(handleAll.orWhenResult((r) => RETRYABLE.includes(r.status)), {
        maxAttempts: attempts - 1, // cockatiel counts retries, not attempts
        backoff: new ExponentialBackoff({ initialDelay: baseDelayMs }),
      });
      return {
        async get(url) {
          try {
            return await settle(await policy.execute(() => send(url)));
          } catch (error) {
            return failed(error);
          }
        },
      };
    },
  },
  {
    id: "exponential-backoff",
    name: "exponential-backoff + fetch",
    packages: ["exponential-backoff"],
    retries: true,
    config: ({ attempts, baseDelayMs }) =>
      `backOff(() => fetch(url) /* throws on 408/429/5xx */, { numOfAttempts: ${attempts}, startingDelay: ${baseDelayMs} })`,
    create: ({ attempts, baseDelayMs, fetch: send = platformFetch }) => ({
      async get(url) {
        try {
          return await backOff(async () => {
            const res = await send(url);
            if (RETRYABLE.includes(res.status)) {
              await res.text();
              throw new HttpStatusError(res.status);
            }
            return settle(res);
          }, { numOfAttempts: attempts, startingDelay: baseDelayMs });
        } catch (error) {
          return failed(error, error.status ?? null);
        }
      },
    }),
  },
  {
    id: "fetch-retry",
    name: "fetch-retry",
    packages: ["fetch-retry"],
    retries: true,
    config: ({ attempts, baseDelayMs }) =>
      `fetchRetry(fetch, { retries: ${attempts - 1}, retryOn: [408, 429, 5xx], retryDelay: (n) => ${baseDelayMs} * 2 ** n })`,
    create: ({ attempts, baseDelayMs, fetch: send = platformFetch }) => {
      const f = fetchRetry(send, { retries: attempts - 1, retryOn: RETRYABLE, retryDelay: (n) => baseDelayMs * 2 ** n });
      return {
        async get(url) {
          try {
            return await settle(await f(url));
          } catch (error) {
            return failed(error);
          }
        },
      };
    },
  },
  {
    id: "axios",
    name: "axios (no retries)",
    packages: ["axios"],
    retries: false,
    config: () => "axios.create().get(url)",
    create: ({ fetch: send } = {}) => {
      const api = axios.create(axiosConfig(send));
      return {
        async get(url) {
          try {
            const res = await api.get(url);
            return { status: res.status };
          } catch (error) {
            return failed(error, error.response?.status ?? null);
          }
        },
      };
    },
  },
  {
    id: "axios-retry",
    name: "axios-retry + axios",
    packages: ["axios-retry", "axios"],
    retries: true,
    config: ({ attempts }) =>
      `axiosRetry(axios.create(), { retries: ${attempts - 1}, retryDelay: axiosRetry.exponentialDelay /* 200 ms, 400 ms, +0-20% */ })`,
    create: ({ attempts, fetch: send }) => {
      const api = axios.create(axiosConfig(send));
      axiosRetry(api, { retries: attempts - 1, retryDelay: axiosRetry.exponentialDelay });
      return {
        async get(url) {
          try {
            const res = await api.get(url);
            return { status: res.status };
          } catch (error) {
            return failed(error, error.response?.status ?? null);
          }
        },
      };
    },
  },
];
