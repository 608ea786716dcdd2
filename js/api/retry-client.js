// `RetryClient`: fetch with retries. A call is prepared synchronously when fetch() is called —
// options read, request built, deadline fixed — so its deadline counts from the call, not from
// whenever the event loop first gets to it; drivers/operation.js then runs it.

import { encode } from "../core/wire.js";
import { ABSENT, invalid } from "../core/instance.js";
import { entropy, now, ownerId, wall } from "../platform/clock.js";
import { Template } from "../platform/request.js";
import { defaultWaits } from "../platform/attempt.js";
import { run } from "../drivers/operation.js";
import { budgetOf } from "./budget.js";
import { defineStream } from "./stream.js";
import { familyOf, readFamilies, withFamily } from "./families.js";
import { readCallOptions, readClientOptions, readInit, readReconcileOptions } from "./options.js";

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

export function defineRetryClient(core, Budget, RetryError, load) {
  const x = core.x;
  const callOptions = new Set(core.names.callOptions);
  if (defaultWaits.reset.length === 0) defaultWaits.reset.push(...(core.names.resetHeaders ?? []).map((name, i) => [i, name]));
  const streams = x.rl_stream_begin === undefined ? null : defineStream(core, load.stream);
  const freed = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((h) => x.rl_client_free(h)) : null;

  class RetryClient {
    #c;

    /** @throws {TypeError | RangeError} naming the invalid field. */
    constructor(options) {
      const read = readClientOptions(options);
      // RegExps in `redact` cross as such: the core checks the names, the glue tests the patterns.
      const { text, numbers } = encode(read.core, true);
      core.putNumbers(numbers);
      const [len] = core.put([text]);
      const handle = x.rl_client_new(len, entropy());
      if (handle === 0) throw invalid(core, "RetryClient");
      // A client without a budget gets a private one: holds and bans, and the retry quota.
      const budgetObject = read.budget?.object ?? new Budget();
      const c = {
        core,
        handle,
        RetryError,
        load,
        budgetObject,
        budget: budgetOf("RetryClient", budgetObject),
        fetch: read.fetch,
        onAttempt: read.onAttempt,
        onEscalation: read.onEscalation,
        shouldRetry: read.shouldRetry,
        store: read.store,
        storeImpl: undefined,
        owner: ownerId(),
        readBody: read.readBody,
        patterns: read.patterns,
        redact: (text, url = false) => redact(c, text, url),
      };
      this.#c = c;
      freed?.register(this, handle, this);
      c.families = readFamilies("RetryClient", read.families, (where, options) => x.rl_op_free(dryRun(c, where, options)), core.names.resetHeaders ?? []);
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
    async reconcile(key, query, options) {
      const t = now();
      const w = wall();
      const read = readReconcileOptions(options);
      return (await load.reconcile()).reconcile(this, this.#c, t, w, key, query, read);
    }

    /** Closes an unknown outcome by hand with what an operator established. */
    async resolve(key, state) {
      const t = now();
      const w = wall();
      return (await load.reconcile()).resolve(this, this.#c, t, w, key, state);
    }

    /** A WebSocket that reconnects under a policy and this client's budget (see README "Streams"). */
    stream(url, options) {
      if (streams === null) throw new TypeError("stream: this build has no streams");
      return streams.stream(this, this.#c, url, options);
    }

    /** What this configuration decides, family by family: the worksheet a risk reviewer reads. */
    worksheet() {
      const module = load.worksheet?.();
      if (module === undefined || typeof x.rl_op_plan !== "function") throw new TypeError("worksheet: this build has no worksheet; run it in Node or workerd, or `npx retryline worksheet <module>`");
      worksheet ??= module.defineWorksheet(core, dryRun);
      return worksheet(this.#c);
    }

    /** Releases the client's memory in the wasm instance (optional; garbage collection does it too). */
    free() {
      freed?.unregister(this);
      x.rl_client_free(this.#c.handle);
      this.#c.handle = 0;
    }
  }

  /** Begins (without sending) an operation of `options` for a GET of a placeholder URL: the
   * core checks them; its handle, or the core's error named by `where`. */
  function dryRun(c, where, options, url = "https://family.check/", method = "GET") {
    const { text, numbers } = encode(options);
    core.putNumbers(numbers);
    const lengths = core.put([url, method, undefined, text, ""]);
    const op = x.rl_op_begin(c.handle, c.budget.handle, now(), wall(), ...lengths);
    if (op === 0) throw invalid(core, where);
    return op;
  }
  // The worksheet is the server build's (its wasm has the plan export): pages load none of it.
  let worksheet = null;

  /** `text` redacted as the client redacts: the built-in names, the caller's, and what its RegExps match. */
  function redact(c, text, url) {
    let extra = "";
    if (c.patterns.length > 0) {
      const [len] = core.put([text]);
      x.rl_parameter_names(len);
      const names = core.text().split("\0").filter((name) => name !== "" && c.patterns.some((p) => matches(p, name)));
      extra = names.join("\0");
    }
    const [len, extraLen] = core.put([text, extra]);
    x.rl_redact(c.handle, len, url ? 1 : 0, extraLen);
    return core.text();
  }

  /** A pattern that throws counts as a match: when in doubt, redact. */
  function matches(pattern, name) {
    try {
      return pattern.test(name);
    } catch {
      return true;
    }
  }

  /** Everything a call needs, read synchronously; the deadline is fixed at `t`. */
  function prepare(client, c, t, w, input, init, options) {
    const call = options === undefined || options === null ? null : readCallOptions(options);
    const extra = readInit(init, callOptions);
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
    let extraNames = "";
    if (c.patterns.length > 0) {
      const [len] = core.put([template.url]);
      x.rl_parameter_names(len);
      extraNames = core.text().split("\0").filter((name) => name !== "" && c.patterns.some((p) => matches(p, name))).join("\0");
    }
    const family = c.families.length === 0 ? undefined : familyOf(c.families, { method: template.method, url: template.url, init });
    const given = family === undefined ? call?.core : withFamily(family, { method: template.method, url: template.url, init }, call?.core);
    let lengths;
    if (given !== undefined) {
      const { text, numbers } = encode(given);
      core.putNumbers(numbers);
      lengths = core.put([template.url, template.method, scope, text, extraNames]);
    } else lengths = core.put([template.url, template.method, scope, undefined, extraNames]);
    const op = x.rl_op_begin(c.handle, c.budget.handle, t, w, lengths[0], lengths[1], lengths[2], lengths[3], lengths[4]);
    if (op === 0) {
      if (c.handle === 0 || c.budget.handle === 0) throw new TypeError("fetch: the client or its budget was freed");
      throw invalid(core, "fetch options");
    }
    const header = core.number(0) === 1 ? core.text() : undefined;
    return {
      client,
      c,
      op,
      template,
      signals,
      key: typeof given?.key === "string" ? given.key : undefined,
      // null: no family matched (the records say so); undefined: the client has none (absent).
      family: family?.name ?? (c.families.length === 0 ? undefined : null),
      waits: family?.waits,
      readBody: given?.readBody === true || (given?.readBody === undefined && c.readBody),
      onAttempt: call?.onAttempt,
      shouldRetry: call?.shouldRetry ?? family?.shouldRetry ?? c.shouldRetry,
      header,
      deadline: core.number(1),
      timeout: core.number(2),
      reported: 0,
      lastResponse: undefined,
      lastCause: undefined,
      note: undefined,
      ownsKey: false,
      keyed: undefined,
      controller: null,
      reason: undefined,
      n0: 0,
      n1: 0,
    };
  }

  return RetryClient;
}

export { ABSENT };
