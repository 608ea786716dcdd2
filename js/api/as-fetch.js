// client.asFetch(defaults): the platform `fetch` signature over client.fetch, for clients that map
// HTTP errors themselves (ccxt's fetchImplementation, ky's fetch option). It resolves with the
// provider's last response whatever its status, once the policy has finished with it, and rejects
// only where fetch itself would: a TypeError (cause: the RetryError) when there is no response to
// give, the caller's signal.reason on abort, a DOMException "TimeoutError" when `init.timeout`
// ends the call with nothing to give — and, for an order already sent whose outcome is unknown,
// a TypeError that says so (never a plain abort or timeout, which a client might resubmit).
// This module runs the calls; api/as-fetch-install.js gives clients the method (it reads the
// defaults at once), and a page loads this only when it first calls such a function.

import { FROM_AS_FETCH } from "./options.js";

/** A call's deadline from `init.timeout` leaves at least this much to each attempt it still starts. */
const MIN_ATTEMPT_MS = 1000;

/** A rejection without a response, in undici's words: what axios (ERR_NETWORK), ky and ccxt read as a
 * network error; why is the cause's (the RetryError) to say. */
const NO_RESPONSE_WORDS = "fetch failed";
/** An order in doubt: a TypeError as fetch's, in words no client takes for a network error to resubmit. */
const UNKNOWN_WORDS = "retryline: sent, and its outcome is unknown: do not send it again before checking it (error.cause says how)";

/** What an order in doubt that asFetch ends says: reconcile it where a key lets it be reconciled. */
const unknownAdvice = (key) =>
  typeof key === "string"
    ? "the order was sent and its outcome is unknown: reconcile it (client.reconcile), do not resubmit it"
    : "the request was sent and its outcome is unknown; without a key nothing can reconcile it: check by your own means before sending it again";

/** `init` as client.fetch takes it: `timeout` is asFetch's, read above. */
function withoutTimeout(init) {
  if (init === null || typeof init !== "object" || !("timeout" in init)) return init;
  const { timeout: _, ...rest } = init;
  return rest;
}

/** Reads `object[key]` as fetch reads its init: a throwing getter rejects the call. */
const read = (object, key) => (object === null || object === undefined ? undefined : object[key]);

/** `describe` wins over the defaults; policies merge field by field. */
function merge(defaults, described) {
  if (described === undefined || described === null) return { ...defaults };
  if (typeof described !== "object") throw new TypeError(`asFetch: describe(request) must give an object of call options, not ${typeof described}`);
  const merged = { ...defaults, ...described };
  if (defaults.policy && described.policy) merged.policy = { ...defaults.policy, ...described.policy };
  return merged;
}

const timeoutError = (message, cause) => {
  const error = new DOMException(message, "TimeoutError");
  if (cause !== undefined) Object.defineProperty(error, "cause", { value: cause, configurable: true, writable: true });
  return error;
};

/** Waits for `value`, but no longer than `leftMs` (a TimeoutError) or the caller's abort. */
function bounded(value, leftMs, signal, what) {
  if (leftMs === undefined && !signal) return Promise.resolve(value);
  return new Promise((resolve, reject) => {
    const timer = leftMs === undefined ? undefined : setTimeout(() => done(reject, timeoutError(`${what} did not finish before the timeout`)), leftMs);
    const onAbort = () => done(reject, signal.reason);
    function done(settle, result) {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      settle(result);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(value).then((v) => done(resolve, v), (e) => done(reject, e));
  });
}

/** The attempts that reached the wire, last first. */
const sentRecords = (error) => (Array.isArray(error.records) ? error.records.filter((r) => r?.decision === "sent").reverse() : []);

/** An order whose last attempt left and never got a usable answer: it may have executed. */
function orderInDoubt(error) {
  const last = sentRecords(error)[0];
  return last?.operation === "order" && ["aborted", "timeout", "network-error", "interrupted"].includes(last.outcome);
}

/**
 * What `fetch` would have done with a RetryError: a Response to resolve with, or a value to throw.
 * Returns { response } or { thrown }.
 */
function settle(error, RetryError, signal) {
  // No "fetch" in these words: axios would call it a network error, which axios-retry resubmits.
  const unknown = (cause) => ({ thrown: new TypeError(UNKNOWN_WORDS, { cause }) });
  switch (error.reason) {
    case "unknown-outcome":
      return unknown(error);
    case "aborted":
      if (orderInDoubt(error)) {
        const message = `${error.message}; ${unknownAdvice(error.key)}`;
        return unknown(new RetryError("unknown-outcome", message, { response: error.response, records: error.records, key: error.key, cause: error }));
      }
      return { thrown: signal?.aborted ? signal.reason : new DOMException("The operation was aborted.", "AbortError") };
    case "deadline":
      if (error.response) return { response: error.response };
      if (orderInDoubt(error)) {
        return unknown(new RetryError("unknown-outcome", `${error.message}; ${unknownAdvice(error.key)}`, { records: error.records, key: error.key, cause: error }));
      }
      return { thrown: timeoutError(`retryline: ${error.message}`, error) };
    default:
      // Retries used, refused or not allowed: the provider's last word is the answer.
      if (error.response) return { response: error.response };
      return { thrown: new TypeError(NO_RESPONSE_WORDS, { cause: error }) };
  }
}

/** One call of an asFetch function: `fixed` its defaults, `calledAt` when it was called. */
export async function call(client, fixed, RetryError, calledAt, input, init) {
  const timeout = read(init, "timeout");
  const timeoutMs = typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0 ? timeout : undefined;
  const left = () => (timeoutMs === undefined ? undefined : Math.max(0, timeoutMs - (performance.now() - calledAt)));
  const signal = read(init, "signal") ?? (input instanceof Request ? input.signal : undefined);
  // Only `describe` needs a Request of ours (a clone to read); otherwise the input goes on as
  // given, and client.fetch checks it — a bad URL, then an aborted signal — as fetch would.
  let request;
  let headers;
  if (fixed.describe) {
    request = new Request(input, init);
    if (signal?.aborted) throw signal.reason;
    headers = request.headers;
  } else {
    const given = read(init, "headers");
    headers = given !== undefined ? new Headers(given) : input instanceof Request ? input.headers : undefined;
  }

  const described = request ? await bounded(fixed.describe(request.clone()), left(), signal, "describe(request)") : undefined;
  const options = merge(fixed.options, described);
  const idempotencyKey = headers?.get("idempotency-key") ?? null;
  if (idempotencyKey !== null) {
    options.key ??= idempotencyKey;
    options.operation ??= "idempotent";
  }
  const remaining = left();
  if (remaining !== undefined) {
    if (remaining < 1) throw timeoutError(`retryline: the timeout (${timeoutMs} ms) passed before the request was sent`);
    options.deadlineMs = Math.min(options.deadlineMs ?? Infinity, remaining);
  }
  // A stale answer is never given where it could be taken as fresh: only if the defaults ask for it.
  options.staleIfErrorMs ??= 0;
  // Under the client's, the family's and the call's own: the deadline is cut, the attempts must still start.
  options[FROM_AS_FETCH] = { minAttemptMs: remaining === undefined ? undefined : MIN_ATTEMPT_MS };
  try {
    return await (request ? client.fetch(request, undefined, options) : client.fetch(input, withoutTimeout(init), options));
  } catch (error) {
    if (!(error instanceof RetryError)) throw error;
    const { response, thrown } = settle(error, RetryError, signal);
    if (response) return response;
    throw thrown;
  }
}
