// `RetryClient`: fetch with retries. A call is prepared synchronously when fetch() is called —
// options read, request built, deadline fixed — so its deadline counts from the call, not from
// whenever the event loop first gets to it; drivers/operation.js then runs it.

import { encode } from "../core/wire.js";
import { ABSENT, invalid } from "../core/instance.js";
import { isWhole, lacks } from "../core/cores.js";
import { entropy, now, ownerId, wall } from "../platform/clock.js";
import { Template } from "../platform/request.js";
import { defaultWaits } from "../platform/attempt.js";
import { FULFILLED, REJECTED } from "../platform/race.js";
import { bounds, cutReason } from "../drivers/steps.js";
import { run, stopUnsent } from "../drivers/operation.js";
import { budgetOf } from "./budget.js";
import { matchedNames, redact } from "./redaction.js";
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

/** Frees a client in every core it was made in. */
function freeTwins(twins) {
  for (const twin of twins.values()) {
    twin.core.x.rl_client_free(twin.handle);
    twin.handle = 0;
  }
}

export function defineRetryClient(cores, Budget, RetryError, load) {
  const core = cores.first;
  const x = core.x;
  const callOptions = new Set(core.names.callOptions);
  if (defaultWaits.reset.length === 0) defaultWaits.reset.push(...(core.names.resetHeaders ?? []).map((name, i) => [i, name]));
  const streams = x.rl_stream_begin === undefined && x.rl_stream_options === undefined ? null : defineStream(cores, load.stream, clientIn);
  const freed = typeof FinalizationRegistry === "function" ? new FinalizationRegistry(freeTwins) : null;

  class RetryClient {
    #c;

    /** @throws {TypeError | RangeError} naming the invalid field. */
    constructor(options) {
      const read = readClientOptions(options);
      // RegExps in `redact` cross as such: the core checks the names, the glue tests the patterns.
      const encoded = encode(read.core, true);
      core.putNumbers(encoded.numbers);
      const [len] = core.put([encoded.text]);
      const handle = x.rl_client_new(len, entropy());
      if (handle === 0) throw invalid(core, "RetryClient");
      // A client without a budget gets a private one: holds and bans, and the retry quota.
      const budgetObject = read.budget?.object ?? new Budget();
      const c = {
        core,
        handle,
        // The same client in each core it is used in (js/core/cores.js), made from these options.
        twins: new Map(),
        options: encoded,
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
      c.twins.set(core, c);
      this.#c = c;
      freed?.register(this, c.twins, this);
      c.families = readFamilies("RetryClient", read.families, (where, options) => x.rl_op_free(dryRun(c, where, options)), core.names.resetHeaders ?? []);
      // Keyed calls (a store is for them) and hedged reads run on the whole core: a page starts loading it now.
      const hedged = typeof read.core.policy === "object" && read.core.policy?.maxHedges > 0;
      if ((read.store !== undefined || hedged) && !isWhole(core)) cores.whole().catch(() => {});
    }

    /** Like fetch(input, init), with retries: the successful Response, or a RetryError. */
    fetch(input, init, options) {
      const t = now();
      const w = wall();
      let call;
      try {
        call = prepare(this, clientIn(this.#c, cores.current), t, w, input, init, options);
      } catch (error) {
        return Promise.reject(error);
      }
      // A keyed or hedged call runs on the whole core: loaded first, within the call's bounds.
      if (lacks(call)) return moved(call);
      return run(call);
    }

    /** Runs the caller's status query for an unknown outcome under its own bounded policy. */
    async reconcile(key, query, options) {
      const t = now();
      const w = wall();
      const read = readReconcileOptions(options);
      const c = clientIn(this.#c, await cores.whole());
      return (await load.reconcile()).reconcile(this, c, t, w, key, query, read);
    }

    /** Closes an unknown outcome by hand with what an operator established. */
    async resolve(key, state) {
      const t = now();
      const w = wall();
      const c = clientIn(this.#c, await cores.whole());
      return (await load.reconcile()).resolve(this, c, t, w, key, state);
    }

    /** A WebSocket that reconnects under a policy and this client's budget (see README "Streams"). */
    stream(url, options) {
      if (streams === null) throw new TypeError("stream: this build has no streams");
      return streams.stream(this, clientIn(this.#c, cores.current), url, options);
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
      freeTwins(this.#c.twins);
    }
  }

  /** The client `c` (any of its twins) in `core`: made there on first use (./twins.js, loaded
   * with the whole core, the only other core there is). */
  function clientIn(c, core) {
    return c.twins.get(core) ?? (c.handle === 0 ? c : cores.extras.clientIn(c, core, cores.first));
  }

  /** A call prepared on the first core that needs more: it runs on the whole core once that is loaded, the
   * load bounded by the call's deadline and the caller's abort; else it stops with nothing sent. */
  async function moved(call) {
    const race = bounds(call);
    const [how, value] = await race.wait(cores.whole());
    race.end();
    if (how !== FULFILLED) {
      if (how === REJECTED) {
        call.c.core.x.rl_op_free(call.op);
        throw value;
      }
      return stopUnsent(call, cutReason(value));
    }
    const first = call.c;
    let c;
    let op;
    try {
      c = clientIn(first, value);
      op = beginOp(c, call.begun);
    } finally {
      first.core.x.rl_op_free(call.op);
    }
    Object.assign(call, { c, op, header: c.core.number(0) === 1 ? c.core.text() : undefined });
    return run(call);
  }

  /** Begins (without sending) an operation of `options` for a GET of a placeholder URL: the
   * core checks them; its handle, or the core's error named by `where`. */
  function dryRun(c, where, options, url = "https://family.check/", method = "GET") {
    const { core } = c;
    const { text, numbers } = encode(options);
    core.putNumbers(numbers);
    const lengths = core.put([url, method, undefined, text, ""]);
    const op = core.x.rl_op_begin(c.handle, c.budget.handle, now(), wall(), ...lengths);
    if (op === 0) throw invalid(core, where);
    return op;
  }
  // The worksheet is the server build's (its wasm has the plan export): pages load none of it.
  let worksheet = null;

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
    const extraNames = c.patterns.length > 0 ? matchedNames(c, template.url) : "";
    const family = c.families.length === 0 ? undefined : familyOf(c.families, { method: template.method, url: template.url, init });
    const given = family === undefined ? call?.core : withFamily(family, { method: template.method, url: template.url, init }, call?.core);
    // What the core begins the operation from: kept, so that a call moved to another core begins there the same.
    const begun = { t, w, url: template.url, method: template.method, scope, given, extraNames };
    const op = beginOp(c, begun);
    const { core } = c;
    const header = core.number(0) === 1 ? core.text() : undefined;
    return {
      client,
      c,
      op,
      begun,
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
      hedges: core.number(3),
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

  /** Begins the operation of a prepared call in `c`'s core; its handle (the core's numbers: the
   * used-weight header flag, the deadline, the attempt timeout), or throws the core's error. */
  function beginOp(c, { t, w, url, method, scope, given, extraNames }) {
    const { core } = c;
    let lengths;
    if (given !== undefined) {
      const { text, numbers } = encode(given);
      core.putNumbers(numbers);
      lengths = core.put([url, method, scope, text, extraNames]);
    } else lengths = core.put([url, method, scope, undefined, extraNames]);
    const op = core.x.rl_op_begin(c.handle, c.budget.handle, t, w, lengths[0], lengths[1], lengths[2], lengths[3], lengths[4]);
    if (op === 0) {
      if (c.handle === 0 || c.budget.handle === 0) throw new TypeError("fetch: the client or its budget was freed");
      throw invalid(core, "fetch options");
    }
    return op;
  }

  return RetryClient;
}

export { ABSENT };
