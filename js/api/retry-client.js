// `RetryClient`: fetch with retries. A call is prepared synchronously when fetch() is called —
// options read, request built, deadline fixed, its machine begun in the core — so its deadline
// counts from the call, not from whenever the event loop first gets to it; js/executor/call.js
// then carries it out.

import { entropy, now, wall } from "../platform/clock.js";
import { Template } from "../platform/request.js";
import { defaultWaits } from "../platform/response.js";
import { FETCH, RECONCILE, RESOLVE } from "../core/calls.js";
import { run } from "../executor/call.js";
import { budgetOf } from "./budget.js";
import { matchedNames, redact } from "./redaction.js";
import { familyOf, readFamilies, withFamily } from "./families.js";
import { FROM_AS_FETCH, readCallOptions, readClientOptions, readInit, readReconcileOptions } from "./options.js";
import { clientTelemetry } from "../platform/telemetry.js";
import { instruments } from "../platform/metrics.js";
import { watchOf } from "../executor/watch.js";

/** Whether `error` carries a URL worth redacting in its message (a Request with credentials). */
function redactedThrow(c, error) {
  let message;
  try {
    message = error?.message;
  } catch {
    return error;
  }
  if (typeof message !== "string") return error;
  const redacted = c.redact(message);
  if (redacted === message) return error;
  if (error instanceof TypeError) return new TypeError(redacted);
  try {
    if (error instanceof DOMException) return new DOMException(redacted, error.name);
  } catch {}
  return new Error(redacted);
}

/** Frees a client's part in the core. */
function freeClient(c) {
  if (c.handle === 0) return;
  c.core.clients.free(c.handle);
  c.handle = 0;
}

/** `RetryClient` over `core` (js/core/index.js); `stream` and `worksheet` define those methods
 * where the entry has them, and `beyond` (js/executor/beyond.js) carries out what its calls do
 * beyond the fetch path. */
export function defineRetryClient(core, Budget, RetryError, { stream, worksheet, beyond } = {}) {
  const callOptions = new Set(core.names.callOptions);
  if (defaultWaits.reset.length === 0) defaultWaits.reset.push(...(core.names.resetHeaders ?? []).map((name, i) => [i, name]));
  const freed = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(freeClient) : null;

  class RetryClient {
    #c;

    /** @throws {TypeError | RangeError} naming the invalid field. */
    constructor(options) {
      const read = readClientOptions(options);
      const handle = core.clients.create(read.core, entropy());
      // A client without a budget gets a private one: holds and bans, and the retry quota.
      const budgetObject = read.budget?.object ?? new Budget();
      const c = {
        core,
        handle,
        RetryError,
        beyond,
        budgetObject,
        budget: budgetOf("RetryClient", budgetObject),
        fetch: read.fetch,
        onAttempt: read.onAttempt,
        onEscalation: read.onEscalation,
        onRetry: read.onRetry,
        onEnd: read.onEnd,
        // OpenTelemetry's tracer and instruments, where a provider was handed in (each dropped at its first throw).
        telemetry: clientTelemetry(read.telemetry, instruments),
        // Unknown outcomes' spans, by key: a reconciliation's span links to the call it settles.
        unknownSpans: new Map(),
        shouldRetry: read.shouldRetry,
        // What asFetch's default minAttemptMs yields to, and must fit within.
        policy: { minAttemptMs: read.core.policy?.minAttemptMs, deadlineMs: read.core.policy?.deadlineMs },
        store: read.store,
        // Each read's last good response, for staleIfErrorMs (js/platform/kept.js).
        kept: new Map(),
        // Its options may ask for a request's identity (coalesce, staleIfErrorMs).
        identifies: read.core.coalesce !== undefined || read.core.staleIfErrorMs !== undefined,
        patterns: read.patterns,
        redact: (text, url = false) => redact(c, text, url),
      };
      this.#c = c;
      freed?.register(this, c, this);
      c.families = readFamilies("RetryClient", read.families, (where, options) => dryRun(c, where, options), core.names.resetHeaders ?? []);
    }

    /** Like fetch(input, init), with retries: the successful Response, or a RetryError. */
    fetch(input, init, options) {
      const t = now();
      const w = wall();
      let call;
      try {
        call = prepare(this, this.#c, t, w, input, init, options);
      } catch (error) {
        return Promise.reject(error);
      }
      return run(call);
    }

    /** Runs the caller's status query for an unknown outcome under its own bounded policy. */
    reconcile(key, query, options) {
      const t = now();
      const w = wall();
      try {
        const read = readReconcileOptions(options, core.names.evidence);
        const call = begun(this, this.#c, { purpose: RECONCILE, now: t, wall: w, key, options: read.core }, "reconcile", read.signal === undefined ? [] : [read.signal]);
        if (typeof query !== "function") {
          core.calls.free(call.handle);
          throw new TypeError("reconcile: query must be a function");
        }
        call.statusQuery = query;
        call.statuses = read.statuses;
        return run(call);
      } catch (error) {
        return Promise.reject(error);
      }
    }

    /** Closes an unknown outcome by hand with what an operator established. */
    resolve(key, state) {
      const t = now();
      const w = wall();
      try {
        return run(begun(this, this.#c, { purpose: RESOLVE, now: t, wall: w, key, state: state ?? null }, "resolve", []));
      } catch (error) {
        return Promise.reject(error);
      }
    }

    /** A WebSocket that reconnects under a policy and this client's budget (see README "Streams"). */
    stream(url, options) {
      if (stream === undefined) throw new TypeError('stream: retryline/fetch leaves out streams: the default entry, "retryline", has them');
      return stream(this, this.#c, url, options);
    }

    /** What this configuration decides, family by family: the worksheet a risk reviewer reads. */
    worksheet() {
      if (worksheet === undefined) throw new TypeError("worksheet: this build has no worksheet; run it in Node or workerd, or `npx retryline worksheet <module>`");
      return worksheet(this.#c, dryRun);
    }

    /** Releases the client's memory in the wasm instance (optional; garbage collection does it too). */
    free() {
      freed?.unregister(this);
      freeClient(this.#c);
    }
  }

  /** A reconciliation or resolve of client `c` (`client` its RetryClient, which it holds), begun in the core. */
  function begun(client, c, fields, where, signals) {
    if (c.handle === 0 || c.budget.handle === 0) throw new TypeError(`${where}: the client or its budget was freed`);
    const key = typeof fields.key === "string" ? fields.key : undefined;
    const link = key === undefined ? undefined : c.unknownSpans.get(key);
    const watch = watchOf(c, fields.now, fields.wall, { method: where, url: "", purpose: "order", key, links: link === undefined ? undefined : [{ context: link }] });
    const observed = c.onAttempt !== undefined || watch !== undefined;
    const { handle } = core.calls.begin({ client: c.handle, budget: c.budget.handle, observed, ...fields }, (mem) => {
      const argument = mem.number(1) === 0 || fields.purpose === RESOLVE ? where : `${where} options`;
      return new (mem.number(0) === 1 ? RangeError : TypeError)(`${argument}: ${mem.text()}`);
    });
    return { client, c, handle, signals, key, onAttempt: undefined, family: undefined, template: null, watch };
  }

  /** Begins (without sending) a call of `options` for a GET of a placeholder URL: the core checks
   * them; its handle, or the core's error named by `where`. */
  function dryRun(c, where, options, url = "https://family.check/", method = "GET") {
    return core.calls.begin({ client: c.handle, budget: c.budget.handle, now: now(), wall: wall(), url, method, options }, where).handle;
  }

  /** Everything a call needs, read synchronously; its machine begun at `t`. The call holds its
   * client: a client no one else holds must not be freed (by the collector) under it. */
  function prepare(client, c, t, w, input, init, options) {
    const call = options === undefined || options === null ? null : readCallOptions(options);
    const fromAsFetch = asFetchOf(options);
    const extra = readInit(init, callOptions, fromAsFetch !== undefined);
    let template;
    try {
      template = new Template(input, init, c.fetch === undefined, extra);
    } catch (error) {
      throw redactedThrow(c, error);
    }
    // The request's signal can abort only if it follows one of the caller's: listening to a
    // signal that never aborts would cost a listener on every wait.
    const signals = [];
    let initSignal = false;
    try {
      initSignal = init !== undefined && init !== null && init.signal !== undefined && init.signal !== null;
    } catch {}
    if (initSignal || (template.request !== null && input instanceof Request)) signals.push(template.signal());
    if (call?.signal !== undefined) signals.push(call.signal);
    // The origin is the core's to read; another scheme's is the platform's.
    let scope;
    if (!/^https?:\/\//.test(template.url)) {
      try {
        scope = new URL(template.url).origin;
      } catch {
        scope = template.url;
      }
    }
    const family = c.families.length === 0 ? undefined : familyOf(c.families, { method: template.method, url: template.url, init });
    let given = family === undefined ? call?.core : withFamily(family, { method: template.method, url: template.url, init }, call?.core);
    given = withYielding(c, given, fromAsFetch?.minAttemptMs);
    if (c.handle === 0 || c.budget.handle === 0) throw new TypeError("fetch: the client or its budget was freed");
    const onAttempt = call?.onAttempt;
    const shouldRetry = call?.shouldRetry ?? family?.shouldRetry ?? c.shouldRetry;
    const key = typeof given?.key === "string" ? given.key : undefined;
    const familyName = family?.name ?? (c.families.length === 0 ? undefined : null);
    const watch = watchOf(c, t, w, { method: template.method, url: template.url, family: familyName, key, onRetry: call?.onRetry, onEnd: call?.onEnd });
    const { handle, header, caller } = core.calls.begin({
      client: c.handle,
      budget: c.budget.handle,
      now: t,
      wall: w,
      purpose: FETCH,
      hasBody: template.hasBody(),
      asks: shouldRetry !== undefined,
      observed: c.onAttempt !== undefined || onAttempt !== undefined || watch !== undefined || c.budget.events.listening,
      platformFetch: c.fetch === undefined,
      url: template.url,
      method: template.method,
      scope,
      options: given,
      extra: c.patterns.length > 0 ? matchedNames(c, template.url) : "",
      // Read only where an option may ask for the request's identity (the core decides if it does).
      headers: c.identifies || given?.coalesce !== undefined || given?.staleIfErrorMs !== undefined ? template.headerFields() : undefined,
    }, "fetch options");
    return {
      client,
      c,
      handle,
      caller,
      template,
      fetch: c.fetch,
      signals,
      key,
      // null: no family matched (the records say so); undefined: the client has none (absent).
      family: familyName,
      watch,
      waits: family?.waits,
      onAttempt,
      shouldRetry,
      header,
    };
  }

  return RetryClient;
}

/** What asFetch marked its call with (undefined for the caller's own; a throwing proxy is theirs). */
function asFetchOf(options) {
  try {
    return options?.[FROM_AS_FETCH];
  } catch {
    return undefined;
  }
}

/** asFetch's default `minAttemptMs`, where neither the call, its family nor the client sets one;
 * never past the policy's deadline. */
function withYielding(c, given, soft) {
  if (soft === undefined || given?.policy?.minAttemptMs !== undefined || c.policy.minAttemptMs !== undefined) return given;
  const deadline = given?.policy?.deadlineMs ?? c.policy.deadlineMs;
  const minAttemptMs = typeof deadline === "number" && deadline >= 1 ? Math.min(soft, deadline) : soft;
  return { ...given, policy: { ...given?.policy, minAttemptMs } };
}
