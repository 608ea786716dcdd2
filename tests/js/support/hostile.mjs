// A catalogue of hostile values: what a careless or malicious caller, library or platform
// can hand retryline. Each entry is [what, value, what must happen].

/** A getter that throws, as an object property. */
export const throwing = (message = "getter") => ({ get x() { throw new Error(message) } , get y() { throw new Error(message) } });

/** A revoked Proxy: every operation on it throws a TypeError. */
export function revoked(target = {}) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** An array whose index getter throws (at index 1). */
export function throwingArray(items = [408, 429]) {
  const a = [...items];
  Object.defineProperty(a, 1, { get() { throw new Error("index") } });
  return a;
}

/** [what, options for new RetryClient, field the TypeError must name] */
export function hostileOptions() {
  return [
    ["policy getter", { policy: { get maxAttempts() { throw 1 } } }, "policy.maxAttempts"],
    ["fetch getter", { get fetch() { throw new Error("no fetch for you") } }, "fetch"],
    ["options revoked", revoked(), "options"],
    ["options ownKeys trap", new Proxy({}, { ownKeys() { throw new Error("keys") } }), "options"],
    ["policy revoked", { policy: revoked() }, "policy"],
    ["retryOn index getter", { policy: { retryOn: throwingArray() } }, "policy.retryOn[1]"],
    ["retryOn revoked array", { policy: { retryOn: revoked([]) } }, "policy.retryOn"],
    ["store method getter", { store: { get get() { throw new Error("store") }, set() {}, delete() {} } }, "store.get"],
    ["redact item getter", { redact: throwingArray(["myParam", "other"]) }, "redact[1]"],
    ["redact RegExp source getter", { redact: [Object.defineProperty(/x/, "source", { get() { throw new Error("src") } })] }, "redact[0]"],
    ["onAttempt getter", { get onAttempt() { throw new Error("cb") } }, "onAttempt"],
    ["seed Proxy", { seed: new Proxy({}, { get() { throw new Error("seed") } }) }, "seed"],
  ];
}

const rejectingThenable = { then(_, reject) { reject(new Error("thenable rejected")) } };

/** A Response whose `headers` getter throws. */
class HeadlessResponse extends Response {
  get headers() { throw new Error("no headers for you") }
}

/** A Response whose status is out of any HTTP range (wrapped to 200 by a u16). */
class WrappingResponse extends Response {
  get status() { return 65736 }
}

/** A body stream that never ends, and ignores cancellation. */
const endless = () => new Response(new ReadableStream({ pull() { return new Promise(() => {}) } }));

/** [what, fetch implementation, expected outcome of the attempt] */
export function hostileFetches() {
  const network = (error) => ({ outcome: "network-error", error });
  return [
    ["fetch throws", () => { throw new TypeError("connecting to 127.0.0.1 is not allowed") }, network(/connecting to 127\.0\.0\.1 is not allowed/)],
    ["fetch rejects", async () => { throw new TypeError("fetch failed", { cause: new Error("ECONNRESET") }) }, network(/fetch failed \(cause: Error: ECONNRESET\)/)],
    ["thenable whose then throws", () => ({ then() { throw new Error("then threw") } }), network(/then threw/)],
    ["thenable whose then getter throws", () => ({ get then() { throw new Error("then getter") } }), network(/then getter/)],
    ["rejecting thenable", () => rejectingThenable, network(/thenable rejected/)],
    ["promise with a throwing own then", () => Object.assign(Promise.resolve(new Response("x")), { then() { throw new Error("own then") } }), network(/own then/)],
    ["promise whose constructor getter throws", () => Object.defineProperty(Promise.resolve(new Response("x")), "constructor", { get() { throw new Error("ctor") } }), network(/ctor/)],
    ["never settles, ignores its signal", () => new Promise(() => {}), { outcome: "timeout", pending: "response" }],
    ["resolves a number", async () => 42, network(/fetch resolved with a number, not a Response/)],
    ["resolves null", async () => null, network(/fetch resolved with null, not a Response/)],
    // An async function resolving a revoked proxy rejects: resolving reads its `then`.
    ["resolves a revoked proxy", async () => revoked(new Response("x")), network(/proxy that has been revoked/)],
    ["returns a revoked proxy", () => revoked(new Response("x")), network(/proxy that has been revoked/)],
    ["a Proxy of a Response whose status trap throws", async () => [new Proxy(new Response("x"), { get(t, k) { if (k === "status") throw new Error("trap"); return Reflect.get(t, k) } })][0], network(/reading the response's status threw Error: trap/)],
    ["Response whose headers getter throws", async () => new HeadlessResponse("x", { status: 503 }), network(/no headers for you/)],
    ["status 65736", async () => new WrappingResponse("x"), network(/status 65736 is not an HTTP status/)],
    ["status 0 (opaque)", async () => Object.defineProperty(new Response("x"), "status", { value: 0 }), network(/opaque response/)],
    ["headers.get throws", async () => Object.defineProperty(new Response("x", { status: 503 }), "headers", { value: { get() { throw new Error("get") } } }), network(/retry-after header threw/)],
    ["arrayBuffer throws", async () => Object.defineProperty(new Response("x"), "arrayBuffer", { value() { throw new Error("ab") } }), network(/reading the response body threw/)],
    ["arrayBuffer never settles", async () => Object.defineProperty(new Response("x"), "arrayBuffer", { value: () => new Promise(() => {}) }), { outcome: "timeout", pending: "body" }],
    ["arrayBuffer resolves a string", async () => Object.defineProperty(new Response("x"), "arrayBuffer", { value: async () => "bytes" }), network(/not bytes/)],
    ["body never ends", async () => endless(), { outcome: "timeout", pending: "body" }],
  ];
}

/** [what, store, expected stop] — for an order, before it is sent. */
export function hostileStores() {
  const never = () => new Promise(() => {});
  const store = (methods) => ({ get: () => undefined, set() {}, delete() {}, ...methods });
  return [
    ["get throws", store({ get() { throw new Error("disk on fire") } }), { reason: "store", message: /store\.get failed: Error: disk on fire/ }],
    ["get rejects", store({ async get() { throw new Error("io") } }), { reason: "store", message: /store\.get failed/ }],
    // Cut at the deadline (or, under load, refused when the deadline has passed before the call ran).
    ["get never settles", store({ get: never }), { reason: "deadline", message: /the store's get was still pending|could not finish before the deadline/ }],
    ["get returns text that is not JSON", store({ get: () => "{not json" }), { reason: "store", message: /is not JSON/ }],
    ["get returns an object with a throwing getter", store({ get: () => throwing("state") }), { reason: "store", message: /unreadable/ }],
    // Resolving a revoked proxy reads its `then`, which throws: the get failed.
    ["get returns a revoked proxy", store({ get: () => revoked() }), { reason: "store", message: /store\.get failed: TypeError/ }],
    ["get returns a thenable that throws", store({ get: () => ({ then() { throw new Error("t") } }) }), { reason: "store", message: /store\.get failed/ }],
    ["set throws", store({ set() { throw new Error("full") } }), { reason: "store", message: /store\.set failed: Error: full/ }],
    ["set never settles", store({ set: never }), { reason: "deadline", message: /the store's set was still pending|could not finish before the deadline/ }],
  ];
}

/** [what, reconciliation query, "escalates" | "rejects"] */
export function hostileQueries() {
  return [
    ["query throws", () => { throw new Error("q") }, "escalates"],
    ["query rejects", async () => { throw new Error("q") }, "escalates"],
    ["query thenable throws", () => ({ then() { throw new Error("t") } }), "escalates"],
    ["query never settles", () => new Promise(() => {}), "escalates"],
    ["query resolves a revoked proxy", async () => revoked(), "escalates"],
    ["query resolves an object", async () => throwing(), "rejects"],
  ];
}
