// Type declarations for retryline. One import on every runtime, no init():
//   import { RetryClient, RetryError, Budget, replay } from "retryline";
// They name only globals that both lib.dom and @types/node declare (Request, Response, RequestInit,
// AbortSignal, URL; not RequestInfo), so they compile without the dom lib; tests/js/types.test.mjs.

/** How a delay is drawn from its backoff window `min(maxDelayMs, baseDelayMs × 2^n)`. */
export type Jitter = "full" | "equal" | "decorrelated" | "none";

/** Retry policy. Every field is optional; invalid values throw a TypeError/RangeError naming the field. */
export interface Policy {
  /** Window of the first retry, ms. Default 500. */
  baseDelayMs?: number;
  /** Cap on every window, ms; must be ≥ baseDelayMs. Default 4000. */
  maxDelayMs?: number;
  /** Default "full": uniform over [0, window]. */
  jitter?: Jitter;
  /** Total requests, including the initial one (1–10000). Default 3. */
  maxAttempts?: number;
  /** Bound on one request — connect, headers and body — enforced with an AbortController. Default 10000; under a shorter deadlineMs, deadlineMs / maxAttempts (so retries still fit). One you set must be ≤ deadlineMs. */
  attemptTimeoutMs?: number;
  /** The operation's expiry, measured from its start; must be ≥ an attemptTimeoutMs you set. Default 30000. */
  deadlineMs?: number;
  /** Statuses worth another attempt. Default [408, 429, 500, 502, 503, 504]. */
  retryOn?: number[];
  /** Extra random spread (≥ 0) after a provider's Retry-After boundary, so clients don't return together. Default 0. */
  retryAfterSpreadMs?: number;
  /**
   * The least time left before the deadline with which an attempt still starts, its timeout cut to
   * the time left (≥ 1; at most attemptTimeoutMs). Default: the whole attemptTimeoutMs — an attempt
   * starts only if its full timeout fits. `asFetch` sets 1000 so that a client's `timeout` no longer
   * than one attempt timeout still allows retries.
   */
  minAttemptMs?: number;
  /**
   * Hedged reads: how many more requests of a "read" or "idempotent" call may go while its answer
   * is late (0–4, at most this many per call; never for an order). Each passes the gate like a
   * retry — attempts, breaker, bans and holds, deadline — and spends the scope's tokens and the
   * retry quota; the first usable answer wins and the others are aborted. Default 0: off.
   */
  maxHedges?: number;
  /**
   * How late an answer is before a hedge goes: ms (≥ 1), or "p95": the scope's observed 95th-
   * percentile response time (no hedge until 20 responses of the scope were seen). Default "p95".
   */
  hedgeAfterMs?: number | "p95";
  /**
   * Your veto over a retry the core has already admitted (on the client or per call; sync or async, bounded by the
   * deadline). Return false — or throw — to stop it: the call ends "non-retryable", the refused record's `limit` is
   * "should-retry" and its `error` says what was thrown. It can only narrow: it is never asked where the gate, the
   * budget, a ban or an order's unknown outcome already stop the call. Add statuses to `retryOn` to decide on them.
   */
  shouldRetry?: (context: { attempt: number; status: number | undefined; error: Error | undefined; response: Response | undefined; record: AttemptRecord }) => boolean | Promise<boolean>;
}

/** What a request could change. Default from the method: GET/HEAD/OPTIONS → "read", others → "order". */
export type Operation = "read" | "idempotent" | "order";

/** Who goes first when a shared budget is short. Default from the operation: orders → "order", others → "read". */
export type Priority = "reconcile" | "order" | "read" | "refresh";

/** Why an operation stopped without a successful response. */
export type RetryReason =
  | "non-retryable"
  | "attempts"
  | "deadline"
  | "provider-wait"
  | "budget"
  | "banned"
  | "rate-limited"
  | "unknown-outcome"
  | "aborted"
  /** The operation's state could not be read or saved in its store, so nothing more was sent. */
  | "store"
  /** The scope's circuit breaker is open: refused before sending; the message says when it is probed. */
  | "circuit-open";

/** What was still pending when a timeout, the deadline or a store failure cut an attempt short. */
export type Pending =
  | "response"
  | "body"
  | "request-body"
  | "query"
  | "lease"
  | "store-get"
  | "store-set"
  | "store-delete";

/** One attempt, sent or refused. Times are ms since the operation started. */
export interface AttemptRecord {
  /** 1 for the initial request; a refused proposal has the number it would have had. */
  attempt: number;
  decision: "sent" | "refused" | "stale";
  operation: Operation;
  key: string | null;
  scope: string | null;
  method: string | null;
  /** Redacted: no credentials, no secret query values (signature, apiKey, token, …), no fragment. Never headers. */
  url: string | null;
  decidedAtMs: number;
  /** When it started (sent) or would have started (refused). */
  startMs: number;
  /** When it ended (sent) or when its full timeout would have ended (refused). */
  endMs: number | null;
  outcome: "response" | "timeout" | "network-error" | "aborted" | "interrupted" | null;
  status: number | null;
  /** The backoff window of the wait before this attempt (null before the initial request). */
  windowMs: number | null;
  /** The delay drawn from that window. */
  sampledDelayMs: number | null;
  /** The provider's minimum still to wait (Retry-After, scope hold) when the wait was planned. */
  providerWaitMs: number;
  /**
   * How the Retry-After behind providerWaitMs was read. "unreadable": a cross-origin response that does not expose
   * Retry-After (Access-Control-Expose-Headers), so there may have been one; null: the response had none.
   */
  retryAfter: "seconds" | "date" | "unparseable" | "clamped" | "unreadable" | "ratelimit-reset" | "x-ratelimit-reset" | "x-ratelimit-retry-after" | "x-rate-limit-reset" | null;
  /** Wait imposed by the shared budget (refused for want of tokens: the wait they would have imposed). */
  budgetWaitMs: number;
  /** max(provider minimum + spread, draw) + budget wait: the wait before this attempt. */
  plannedWaitMs: number;
  /** Time left before the deadline when the decision was made. */
  remainingMs: number;
  /** Sent: what the outcome meant ("success", "retryable", "throttled", …). Refused: why. */
  reason: RetryReason | "success" | "retryable" | "throttled" | null;
  /** What a reconciliation query found (reconciliation records only). */
  evidence: Evidence | null;
  /** What the platform said of a failed attempt (redacted), or why its response was unusable. */
  error: string | null;
  /** What was still pending when a timeout, the deadline or a store failure cut it short. */
  pending: Pending | null;
  /** A store failure after this attempt (redacted); the attempt's outcome stands. */
  storeError: string | null;
  /** Which part of the budget refused it (reason "budget" only). */
  limit: "tokens" | "retry-quota" | "should-retry" | "in-flight" | null;
  /** A hedge: a further request of a read whose answer was late (policy.maxHedges). */
  hedge: boolean;
  /** In a hedged race, the attempt whose answer was used (on every request of the race); null: no race. */
  winner: number | null;
  /**
   * Refused by the scope's hold or ban: the response that set it (its method, redacted URL and status), when it came
   * and when the hold or ban ends (wall-clock ms since the epoch). Refused by the scope's open breaker: the last
   * failure it counted (status null for a timeout or a network error) and when it is probed again. null otherwise,
   * or when it was learnt from another tab or process.
   */
  heldBy: { method: string; url: string; status: number | null; atWallMs: number; untilWallMs: number } | null;
  /** A stream's reconnect: how the connection before it ended (close code and reason, or why it was replaced). */
  dropped: string | null;
  /** The endpoint family its call ran under (null: the client's defaults); absent without families. */
  family?: string | null;
  /** Of the last record of a read that served its kept response (decision "stale"): that response's age, ms. */
  staleAgeMs?: number;
  /** The call joined the same read already running (`coalesce`): these are that operation's records. */
  joined?: boolean;
}

/** What a family's functions are given of a request. */
export interface FamilyRequest {
  method: string;
  url: string;
  init: RequestInit | undefined;
}

/** An endpoint family: which requests it matches, and the call options they run under. */
export interface Family {
  name: string;
  /** `url`: a pattern (`*` any run, `:name` one path segment; the query ignored unless named), a URLPattern or a RegExp. */
  match: { method?: string | string[]; url?: string | RegExp | object } | ((request: FamilyRequest) => boolean);
  operation?: Operation;
  scope?: string;
  weight?: number | ((request: FamilyRequest) => number);
  priority?: Priority;
  policy?: Policy;
  /** The operation's identity (e.g. the client order id), when the call gives none. */
  key?: (request: FamilyRequest) => string | undefined;
  /** Which provider wait headers its responses may set (default: Retry-After and every reset header retryline reads). */
  providerWaitHeaders?: string[];
  /** The provider's page, the ISO date it was checked, and the statuses it documents as final. */
  docs?: { url?: string; checked?: string; final?: number[] };
  /** Its reads' `staleIfErrorMs` (see CallOptions). */
  staleIfErrorMs?: number;
  /** Its reads' `coalesce` (see CallOptions). */
  coalesce?: boolean;
}

/** One worksheet row (`family` null: requests no family matches). */
export interface WorksheetRow {
  family: string | null;
  match: string;
  operation: Operation;
  priority: Priority;
  scope: string;
  weight: number | "by request";
  policy: Required<Omit<Policy, "minAttemptMs" | "shouldRetry">> & { minAttemptMs?: number };
  windowsMs: number[];
  longestScheduleMs: number;
  attemptsThatFit: number;
  retried: number[];
  unknownOutcome: number[];
  banned: number[];
  final: number[];
  timeouts: RetryReason | "retryable";
  providerWaitHeaders: string[];
  bucket: { capacity: number; refillMilliPerSecond: number } | null;
  exhausted: string;
  docs: { url?: string; checked?: string; final?: number[] } | null;
  /** What a reviewer must see. */
  flags: string[];
}

export interface Worksheet {
  rows: WorksheetRow[];
  toMarkdown(): string;
  toJSON(): { rows: WorksheetRow[] };
}

export interface ClientOptions {
  /** Defaults for every call. */
  policy?: Policy;
  /** A budget shared with other clients. Default: a private `new Budget()` (no token limit; retry quota, holds and bans apply). */
  budget?: Budget;
  /** Seed for reproducible jitter. Default: random (crypto.getRandomValues). */
  seed?: number;
  /**
   * The first backoff delays of this client, ms, used in order before the seeded ones — to show a schedule
   * exactly (the reference article's 400/600/1200/2400 ms) in demos and tests. Default none.
   */
  draws?: number[];
  /**
   * The fetch to wrap. Default: globalThis.fetch, looked up at each call. It is called as `fetch(request, { signal })`
   * with the call's `Request` (one per call; a request with a body gets a fresh `Request` per attempt, carrying the
   * signal, and no init). It may resolve with any Response-like object (another realm's or library's); one that
   * ignores its AbortSignal still loses to our timers.
   */
  fetch?: (input: Request, init?: { signal: AbortSignal }) => Promise<Response>;
  /** Called once with each finished record. What it throws, or an async one rejects with, is ignored. */
  onAttempt?: (record: AttemptRecord) => unknown;
  /**
   * More query parameters to redact, beyond the built-in credential names (signature, key, token, secret, pass,
   * auth, hmac, jwt, session, code, …): names (compared without case or separators) and RegExps (tested on the
   * decoded name). Applies to records, messages, causes and the response carried by a RetryError.
   */
  redact?: (string | RegExp)[];
  /** Endpoint families, first match wins; a call's own options override the family's field by field. See README "Endpoint families". */
  families?: Family[];
  /**
   * Where keyed operations keep their state: `{ get, set, delete }` (a `Map` works), `{ get, put, delete }`
   * (Durable Object storage, KV) or Web Storage (`localStorage`), sync or async. Values are JSON text under
   * `retryline:<key>`. Default: in memory, per client.
   */
  store?: Store;
  /** Called when reconciliation is exhausted without settling evidence (the key stays unresolved). */
  onEscalation?: (result: Reconciliation) => unknown;
  /** The default of `readBody` for every call (see CallOptions). Default false. */
  readBody?: boolean;
  /** The default of `staleIfErrorMs` for every read (see CallOptions). Default 0: never stale. */
  staleIfErrorMs?: number;
  /** The default of `coalesce` for every read (see CallOptions). Default false. */
  coalesce?: boolean;
  /** Called before each retry's sleep, for every call of this client (before the call's own). See CallOptions. */
  onRetry?: (info: RetryInfo) => unknown;
  /** Called once at the end of every call of this client, exhausted included (before the call's own). See CallOptions. */
  onEnd?: (info: EndInfo) => unknown;
  /**
   * OpenTelemetry, from the `@opentelemetry/api` objects handed in (retryline depends on none; without them nothing
   * is created). `tracerProvider`: an INTERNAL span per call (its outcome's reason, attempts, scope, family, key),
   * a CLIENT span per request on the wire with the HTTP conventions' attributes (`http.request.resend_count`,
   * `url.full` redacted as records are, `error.type`), a `traceparent` on each request, the sleeps and refusals as
   * events (`retryline.sleep`, `retryline.refused`) with the plan's columns, hedges marked, and a reconciliation
   * linked to the call it settles; the platform's own fetch instrumentation is silenced for these requests.
   * `meterProvider`: `http.client.request.duration`, `retryline.client.attempt.started`, `.call.duration`,
   * `.call.retries`, `.call.hedges`, `.call.retry_delay` and `retryline.client.refusals`. A provider that throws is
   * dropped with one warning; the calls go on. See README "Telemetry".
   */
  telemetry?: { tracerProvider?: { getTracer(name: string, version?: string): any }; meterProvider?: { getMeter(name: string, version?: string): any } };
}

/** What `onRetry` hears: a retry that stands, before its sleep (or its send, when no wait is planned). */
export interface RetryInfo {
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  /** The wait before it, ms: max(provider minimum + spread, draw) plus the budget's. */
  plannedWaitMs: number;
  /** The provider's minimum (Retry-After, a scope's hold) within that wait, ms. */
  providerWaitMs: number;
  /** The backoff window the draw came from, ms. */
  windowMs: number | null;
  /** The delay drawn from that window, ms. */
  sampledDelayMs: number | null;
  /** Time left before the deadline when the retry was planned, ms. */
  remainingMs: number;
  /** What the attempt before it meant: "retryable", "throttled", … */
  reason: string | null;
  /** The planned attempt's record (its decision still open). */
  record: AttemptRecord;
}

/** What `onEnd` hears, once per call, however it ended. */
export interface EndInfo {
  /** It resolved (with a fresh response, or a stale one). */
  ok: boolean;
  /** "success", or the RetryError's reason (a stale answer: why the fresh read failed); null when the call rejected with another error. */
  reason: RetryReason | "success" | null;
  /** Requests sent. */
  attempts: number;
  durationMs: number;
  records: AttemptRecord[];
  /** It resolved with a stale response (staleIfErrorMs). */
  stale?: true;
  /** What it rejected with, when that was not a RetryError (a request body that threw). */
  error?: unknown;
}

/** A store for keyed operations. */
export type Store =
  | { get(key: string): unknown; set(key: string, value: string): unknown; delete(key: string): unknown }
  | { get(key: string): unknown; put(key: string, value: string): unknown; delete(key: string): unknown }
  | { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };

/** What a status query found about an order whose outcome is unknown. */
export type Evidence = "filled" | "partially-filled" | "open" | "canceled" | "rejected" | "not-found";

/** `reconcile`'s options. */
export interface ReconcileOptions {
  /** The queries' own policy (default: 5 queries of at most 5 s within 60 s). */
  policy?: Policy;
  signal?: AbortSignal;
  /** A provider's order statuses as evidence, e.g. `{ FILLED: "filled", NEW: "open" }`: the query may return them as they come. */
  statuses?: Readonly<Record<string, Evidence>>;
}

/** The result of `reconcile` (and `resolve`). */
export interface Reconciliation {
  key: string;
  /** Settled by evidence (any but "not-found") or by hand; the key is free again. */
  resolved: boolean;
  /** The last evidence seen (null if no query answered). */
  state: Evidence | null;
  /** Every query was spent without settling evidence: the key stays unresolved and refused. */
  escalated: boolean;
  /** One record per status query (with its `evidence`), and the refused proposal that ended them. */
  records: AttemptRecord[];
  /** The store could not be brought up to date with what was learnt (the result stands). */
  storeError?: string;
}

export interface CallOptions {
  operation?: Operation;
  priority?: Priority;
  /** The operation's identity, e.g. the client order id you also send to the exchange. */
  key?: string;
  /**
   * Overrides policy.deadlineMs for this call (ms from the call). A deadline shorter than the attempt timeout cuts
   * the attempt timeout to it (one attempt at most).
   */
  deadlineMs?: number;
  /** Where provider limits apply. Default: the URL origin. */
  scope?: string;
  /** Budget tokens each attempt spends (1–1000000). Default 1. */
  weight?: number;
  /** Aborts a pending backoff at once and the request in flight. `init.signal` works too. */
  signal?: AbortSignal;
  /** Overrides of the client's policy for this call. */
  policy?: Policy;
  /**
   * true: the body is read inside the attempt timeout (a body that stalls is a timed-out attempt, retried like one)
   * and the response is rebuilt from the bytes. false (default): the response is handed on as the platform gave
   * it, body unread: streams stream, and the attempt timeout covers the request up to the response's headers.
   */
  readBody?: boolean;
  /**
   * This call's own observer: every record of the call (sent or refused) as it is made, after the client's
   * `onAttempt`. A throw or rejection in it is ignored. Use it to keep a successful call's records.
   */
  onAttempt?: (record: AttemptRecord) => void | Promise<void>;
  /**
   * Called before each retry's sleep (or its send, when no wait is planned) with the plan — the attempt, the
   * planned wait, the provider's minimum, the window and draw, the time left — and why the attempt before it
   * failed. After the client's. A throw or rejection in it is ignored.
   */
  onRetry?: (info: RetryInfo) => unknown;
  /** Called once when the call ends, however it ends (exhausted included), with the reason. After the client's. */
  onEnd?: (info: EndInfo) => unknown;
  /**
   * A read (operation "read") that fails for want of a current answer — deadline, attempts, budget, banned,
   * circuit-open, rate-limited, provider-wait — resolves instead with the last successful response of the same
   * request (scope, method, URL and request headers) if it is at most this old, ms: a copy with an `Age` header,
   * which `staleness(response)` marks with why the fresh read failed; the records end with a "stale" record.
   * Each client keeps at most 256 such responses, the oldest going first. Never for orders, never for a response
   * that said repeating cannot help (a 404), and with `asFetch` only if its defaults ask. Default 0: never.
   */
  staleIfErrorMs?: number;
  /**
   * A GET or HEAD read without a body or key joins the same read already running under the same budget — same
   * scope, method, URL and request headers (trace headers aside) — instead of sending its own: one sequence of
   * attempts serves every caller. Each gets its own Response (its body a branch of one tee) and the same records,
   * marked `joined: true`; its abort, or a deadline earlier than the running read's, rejects it alone; the request
   * is aborted when its last caller has left. A caller whose deadline is later gets the running read's outcome.
   * With a budget shared across tabs, the same read in another tab awaits this tab's answer (carried to it) instead
   * of sending its own. Orders and idempotent writes never join. Default false.
   */
  coalesce?: boolean;
}

/** Call options for every request of an `asFetch` function, plus `describe`. */
export interface AsFetchDefaults extends CallOptions {
  /**
   * Per-request call options (e.g. the order's client id as `key`), read from a clone of the request (its body
   * can be read). May be async; it counts against `init.timeout`. Wins over the defaults where both set an option
   * (a `policy` merges field by field).
   */
  describe?: (request: Request) => CallOptions | undefined | Promise<CallOptions | undefined>;
}

/** `RequestInit` plus the `timeout` (ms) that ccxt and node-fetch pass. */
export interface AsFetchInit extends RequestInit {
  /** The call's deadline, ms from the moment the function is called (before `describe`). */
  timeout?: number;
}

export class RetryClient {
  /** @throws {TypeError | RangeError} naming the invalid field. */
  constructor(options?: ClientOptions);
  /**
   * Like `fetch(input, init)`, with retries. Resolves with the successful (2xx/3xx) Response (body unread unless
   * `readBody`); rejects with a {@link RetryError} otherwise.
   */
  fetch(input: Request | string | URL, init?: RequestInit, options?: CallOptions): Promise<Response>;
  /**
   * The platform `fetch` signature, for clients that map HTTP errors themselves (ccxt's `fetchImplementation`, ky's
   * `fetch`). Resolves with the provider's last response whatever its status, once retries are used, refused or not
   * allowed. Rejects only where `fetch` would: a `TypeError` whose `cause` is the {@link RetryError} when there is no
   * response (refused before sending, network errors, an unknown outcome — whose message says to reconcile, not
   * resubmit); the caller's `signal.reason` on abort (an order already sent: an unknown outcome instead); a
   * `DOMException` named `TimeoutError` when `init.timeout` ends the call with nothing to give. A request with an
   * `Idempotency-Key` header uses it as its `key` and runs as `"idempotent"`. Sets `policy.minAttemptMs` to 1000
   * unless given, so a `timeout` no longer than one attempt timeout still allows retries.
   */
  asFetch(defaults?: AsFetchDefaults): (input: Request | string | URL, init?: AsFetchInit) => Promise<Response>;
  /**
   * Runs your status lookup for an order whose outcome is unknown, under its own bounded policy (default:
   * 5 queries of at most 5 s within 60 s, budget priority "reconcile"), until evidence settles it. Never resubmits.
   * Rejects with a TypeError if the key is still being run by its owner, or if the query resolves to a string
   * that is neither an `Evidence` nor a key of `options.statuses` (the TypeError shows it). A plain `string` is
   * accepted here so that `async () => "filled"` needs no `as const`, and a provider's own status passes through
   * `statuses` (e.g. `orderStatuses` of `retryline/profiles/binance-spot`).
   */
  reconcile(
    key: string,
    query: (context: { attempt: number; signal: AbortSignal }) => Evidence | (string & {}) | Promise<Evidence | (string & {})>,
    options?: ReconcileOptions,
  ): Promise<Reconciliation>;
  /** Closes an unknown outcome by hand, with what an operator established. */
  resolve(key: string, state: Exclude<Evidence, "not-found">): Promise<Reconciliation>;
  /**
   * A WebSocket that reconnects under a policy and this client's budget: every connection attempt spends the
   * scope's tokens, waits out its holds and bans, and leaves a record (`operation: "stream"`). See README "Streams".
   */
  stream(url: string | URL | (() => string | URL | Promise<string | URL>), options?: StreamOptions): RetryStream;
  /** What this configuration decides, family by family (Node and workerd). */
  worksheet(): Worksheet;
  /** Releases the client's memory in the wasm instance (optional; garbage collection does it too). */
  free(): void;
}

/** The standard WebSocket constructor interface (the platform's, `ws`, undici's). */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => unknown;

export interface StreamOptions {
  /** Per outage. Defaults: baseDelayMs 1000, maxDelayMs 30 000, equal jitter, maxAttempts 20, attemptTimeoutMs (the connect
   * timeout, onOpen included) 10 000, deadlineMs (the longest outage before giving up with "deadline") 300 000. */
  policy?: Policy;
  /** Default: the URL's origin with ws:/wss: read as http:/https:, so the exchange's REST bans hold its streams. */
  scope?: string;
  /** Budget tokens per connection attempt (default 1). */
  weight?: number;
  /** A connection must stay up this long before the outage ends and its attempt count resets (default 5 000). */
  minUptimeMs?: number;
  /** No message for this long: state "stale" (default 10 000; 0: never). */
  staleAfterMs?: number;
  /** No message for this long: the silent connection is closed and replaced (default 30 000; 0: never). */
  reconnectAfterStaleMs?: number;
  /** Make-before-break: a connection this old is replaced by one opened beside it (default 0: never). */
  rotateAfterMs?: number;
  /** Outgoing pace: at most this many sends a second, the rest queued (default: unpaced). */
  sendPerSecond?: number;
  /** Close codes that stop the stream with "non-retryable" (default [1002, 1003, 1007, 1008]). */
  stopCodes?: number[];
  /** The constructor (default: globalThis.WebSocket; Node 20: pass `WebSocket` from "ws"). */
  WebSocket?: WebSocketConstructor;
  /** Subprotocols, or a function giving them on each attempt (sync or async; a throw fails that attempt). */
  protocols?: string | string[] | (() => string | string[] | undefined | Promise<string | string[] | undefined>);
  /** In a browser page: pause attempts while offline, try at once when online, check the connection on a wake
   * (visible after a long hidden time, back from the bfcache, resumed). Default true; no effect without a page. */
  pageSignals?: boolean;
  /** Runs on every open before the stream counts as open (resubscribe here); bounded by the connect timeout. */
  onOpen?: (socket: { send(data: string | ArrayBufferLike | ArrayBufferView): void; readonly socket: unknown; readonly protocol: string }) => void | Promise<void>;
  /** After every open and on gap(): rebuild state (a REST snapshot through client.fetch); "stale" until it resolves. */
  resync?: (stream: RetryStream) => unknown;
  /** An application-level ping when nothing was heard for everyMs. */
  heartbeat?: { everyMs: number; message: string | (() => string) };
  onAttempt?: (record: AttemptRecord) => unknown;
  /** Aborting it closes the stream. */
  signal?: AbortSignal;
}

export type StreamState = "connecting" | "open" | "stale" | "waiting" | "stopped";

/** addEventListener's options, spelt out: the package's types name no DOM-only global. */
export interface StreamListenerOptions { capture?: boolean; once?: boolean; passive?: boolean; signal?: AbortSignal }

/** An EventTarget (it is one at run time) with the stream's events typed. */
export interface RetryStream {
  readonly state: StreamState;
  readonly url: string;
  /** When the last message came (Unix ms), null before the first. */
  readonly lastMessageAt: number | null;
  /** How long it has been stale, ms (0 while fresh). */
  readonly staleForMs: number;
  /** Why it stopped, once it has. */
  readonly reason: RetryReason | undefined;
  /** Sends on the open connection (paced); throws while the stream is not open. */
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  /** Reports a gap: "stale" until resync resolves. */
  gap(): void;
  /**
   * Closes it for good: its socket closed with `code` and `reason` (1000 or 3000–4999, at most 123 bytes; default 1000
   * "closed"; a RangeError or TypeError otherwise, and nothing changes), a "stop" event with reason "aborted";
   * `state` is "stopped" when it returns.
   */
  close(code?: number, reason?: string): void;
  /**
   * Drops the connection (closed with `code` and `reason`, default 1000 "reconnect") and begins a fresh outage at once
   * under the same policy and budget — after a stop by the policy too (a stop code, attempts, deadline). Throws after
   * close(), and while the scope is banned (a RetryError "banned" naming the ban); then nothing changes.
   */
  reconnect(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: Event & { readonly data: unknown }) => void, options?: boolean | StreamListenerOptions): void;
  addEventListener(type: "state", listener: (event: Event & { state: StreamState; previous: StreamState }) => void, options?: boolean | StreamListenerOptions): void;
  addEventListener(type: "stop", listener: (event: Event & { reason: RetryReason; error: RetryError | undefined }) => void, options?: boolean | StreamListenerOptions): void;
  /** The server closed a connection that was up (the stream then reconnects, or stops on a stop code). */
  addEventListener(type: "close", listener: (event: Event & { code: number; reason: string; wasClean: boolean }) => void, options?: boolean | StreamListenerOptions): void;
  /** A message send() queued that will never go (its connection closed, or the stream stopped or reconnected, first). */
  addEventListener(type: "unsent", listener: (event: Event & { readonly data: unknown; readonly why: string }) => void, options?: boolean | StreamListenerOptions): void;
  /** A reconnect() refused after it returned (called inside another event's listener, or under a shared budget). */
  addEventListener(type: "error", listener: (event: Event & { readonly error: RetryError }) => void, options?: boolean | StreamListenerOptions): void;
  removeEventListener(type: "breaker" | "ban" | "hold", listener: (event: BudgetEvent) => void, options?: boolean | { capture?: boolean }): void;
  removeEventListener(type: string, listener: ((event: never) => void) | null, options?: boolean | { capture?: boolean }): void;
  dispatchEvent(event: Event): boolean;
}

export class RetryError extends Error {
  constructor(
    reason: RetryReason,
    message: string,
    details?: { response?: Response; records?: AttemptRecord[]; key?: string; cause?: Error },
  );
  readonly name: "RetryError";
  readonly reason: RetryReason;
  /** The last response, if one arrived; its `url` is redacted like the records'. */
  readonly response: Response | undefined;
  /** What the platform or the store threw last, as a plain Error with a redacted message. */
  readonly cause?: Error;
  readonly records: AttemptRecord[];
  readonly key?: string;
}

/** Token-bucket limits of one scope. */
export interface ScopeLimits {
  /** Tokens in the bucket; every request (initial or retry) spends its `weight`. Default: no token limit. */
  capacity?: number;
  /** Tokens added back per second; required with `capacity`. */
  refillPerSecond?: number;
  /**
   * Share of the bucket kept for higher priorities, in [0, 1). Default 0.2: `refresh` never dips into it,
   * `read` only into its upper third, `order` into its upper two thirds, `reconcile` into all of it (whole tokens, rounded down).
   */
  reserve?: number;
  /** A response header with the provider's own count of weight used (e.g. "X-MBX-USED-WEIGHT-1M"): the local bucket follows it down. */
  usedWeightHeader?: string;
  /**
   * A circuit breaker for the scope (default: none). `true` or the fields: it opens after `consecutiveFailures` (5)
   * timeouts, network errors or 5xx (never 4xx), or a `failureRatio` (0.5) of them over `windowMs` (10 000) with at
   * least `minVolume` (10) outcomes; stays open `openMs` (5 000), doubling with jitter on each failed probe up to
   * `maxOpenMs` (60 000); half-open it lets `probes` (1) attempts through. Reconciliation is never refused by it.
   */
  breaker?: boolean | { consecutiveFailures?: number; failureRatio?: number; windowMs?: number; minVolume?: number; openMs?: number; maxOpenMs?: number; probes?: number };
  /**
   * At most this many requests of the scope on the wire at once, counted across every client of the budget (and
   * across tabs with `share`), hedges included; a stream's socket is not counted. A request that finds no room waits,
   * in priority order (reconcile, order, read, refresh, then first come), while its deadline still allows an
   * attempt; otherwise it is refused before sending with reason "budget" and its record's `limit` "in-flight".
   * A request that never answers holds its slot until its attempt timeout, no longer. Default: no cap.
   */
  maxInFlight?: number;
}

export interface BudgetOptions extends ScopeLimits {
  /**
   * The retry quota (per scope): retries spend it, successes pay it back. Default on, with the AWS SDKs' numbers:
   * capacity 500, retryCost 5, timeoutCost 10, successCredit 1 — about 100 retries (50 after timeouts) while
   * everything fails, then only first attempts. `false` turns it off. `reconcile` priority is exempt.
   */
  retryQuota?: boolean | { capacity?: number; retryCost?: number; timeoutCost?: number; successCredit?: number };
  /** Per-scope overrides (a scope is a URL origin, or any name given as `scope` in a call). */
  scopes?: Record<string, ScopeLimits>;
  /**
   * Shares this budget with every `Budget` of the same `share` name in the origin — tabs, frames, dedicated
   * workers — as one: tokens, reserve, retry quota, holds and bans. Each budget step holds a Web Lock and keeps the
   * state in IndexedDB, so a tab that closes or crashes loses nothing for the others and a tab opened later joins
   * with the current state (an active ban included). Every `Budget` sharing a name must be given the same limits.
   * Where Web Locks or IndexedDB are missing (Node, workerd), the budget works alone: `budget.share` is then
   * undefined and `budget.sharing` is "local". With `coordinator`, `share` names the coordinators instead
   * (default "retryline"): budgets with different names are kept apart.
   */
  /**
   * OpenTelemetry gauges of each scope, from the `meterProvider` handed in: `retryline.budget.tokens`,
   * `.retry_quota`, `.breaker.state` (0 closed, 1 half-open, 2 open), `.hold.remaining` and `.ban.remaining` (s),
   * `.in_flight`, each with `retryline.scope`.
   */
  telemetry?: { meterProvider?: { getMeter(name: string, version?: string): any } };
  share?: string;
  /**
   * Keeps this budget with every isolate (Cloudflare Workers, workerd) whose budget names the same Durable
   * Object namespace: `coordinator: env.RETRY_BUDGET`, bound to the `BudgetCoordinator` class exported by
   * "retryline/durable-object". One coordinator per scope holds the scope's bucket, holds and bans (stored, so a
   * restart loses nothing). Isolates lease tokens from it in small batches (kept at most 200 ms) and hear of its
   * holds and bans at most 50 ms before each send, so a ban answered to one isolate stops the rest within 50 ms
   * plus a round trip. A step waits for the coordinator at most 250 ms (and never past the call's deadline);
   * one that does not answer is asked again every second in the background, while this isolate spends its own
   * bucket and keeps the holds and bans it knows (`budget.sharing` is then "unreachable"). The retry quota stays
   * each isolate's own.
   */
  coordinator?: DurableObjectNamespaceLike;
  /**
   * Node (also Bun and Deno): keeps this budget with every process — on this machine or others — whose budget
   * names the same Redis and `share` (default "retryline"): a `redis://` or `rediss://` URL (the client is made
   * with ioredis, or node-redis where only that is installed: an optional peer dependency), or a client you made
   * (ioredis, or node-redis 4 and later, connected). It speaks the coordinator's protocol with Redis as the store:
   * each process runs the scope's authority on the state it reads and writes it back by compare-and-set (one Lua
   * script), so the bound, the 50 ms news of holds and bans and the fallback are the coordinator's. Each scope is
   * one hash, `retryline:budget:<share>:<scope>`, which expires 10 minutes after its last visit (or when its hold or
   * ban ends, if later). A Redis that is down or slow is waited for at most 250 ms (never past a call's deadline);
   * meanwhile `budget.sharing` is "unreachable", the process spends its share of the bucket (divided among the
   * processes Redis last counted, or `fleetSize`) with the holds and bans it knows, and it rejoins by itself, the
   * fleet's bucket charged for what it spent alone. `budget.free()` closes a connection made from a URL. The retry
   * quota stays each process's own.
   */
  redis?: string | RedisClientLike;
  /** With `redis`: how many processes to assume before Redis has counted the fleet (default 8): a process that has
   * never reached Redis spends 1/fleetSize of the bucket. */
  fleetSize?: number;
}

/** What `redis` needs of a client you made: ioredis's `call`, or node-redis's `sendCommand`. */
export type RedisClientLike =
  | { call(command: string, ...args: (string | number)[]): Promise<unknown> }
  | { sendCommand(args: string[]): Promise<unknown> };

/** What `coordinator` needs of a Durable Object namespace binding. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: any): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** One scope of a budget, as `budget.snapshot()` describes it. Ends are wall-clock Unix ms. */
export interface ScopeSnapshot {
  scope: string;
  /** Whole tokens available now (null: no token limit). */
  tokens: number | null;
  capacity: number | null;
  retryQuota: { available: number; capacity: number } | null;
  heldUntil: number | null;
  holdRemainingMs: number;
  bannedUntil: number | null;
  banRemainingMs: number;
  /** Operations granted capacity that are still waiting to send. */
  queued: number;
  /** The scope's `maxInFlight` (null: no cap). */
  maxInFlight: number | null;
  /** Its requests on the wire now (null: no cap, so not counted). */
  inFlight: number | null;
  /** Requests waiting for room under the cap (null: no cap). */
  waitingForRoom: number | null;
  /** Its circuit breaker's state (null: it has none). */
  breaker: "closed" | "open" | "half-open" | null;
  /** When an open breaker lets its probe through, Unix ms (null: not open). */
  breakerOpenUntil: number | null;
  /** How the budget is kept, as `budget.sharing` says: "local" where a share was asked for and the platform cannot. */
  sharing: "local" | "tabs" | "coordinator" | "redis" | "unreachable";
  /** A fleet's budget: how many processes this one's own bucket is a share of — all it spends while Redis cannot
   * be reached (the fleet's count as Redis last gave it, or `fleetSize` before it has); null: not a fleet's. */
  shareOf: number | null;
}

/**
 * Limits shared by every client that holds it: per-scope token buckets with a priority reserve, a retry quota,
 * and the provider's holds (Retry-After covers the whole scope) and bans (418). `new Budget()` has no token limit.
 */
/** A Budget's events: "breaker" when a scope's breaker changes state, "ban" or "hold" when one begins. */
export interface BudgetEvent extends Event {
  readonly detail: { scope: string; state?: "closed" | "open" | "half-open"; previous?: "closed" | "open" | "half-open" | null; openUntil?: number | null; until?: number };
}

export class Budget {
  /** @throws {TypeError | RangeError} naming the invalid field. */
  constructor(options?: BudgetOptions);
  /**
   * "breaker" (a scope's breaker changed state: `detail.state`, `previous`, `openUntil`), "ban" or "hold" (one
   * began: `detail.until`, Unix ms), as this realm's calls learn them. Once listened to, every call reports its records.
   */
  addEventListener(type: "breaker" | "ban" | "hold", listener: (event: BudgetEvent) => void, options?: boolean | StreamListenerOptions): void;
  removeEventListener(type: "breaker" | "ban" | "hold", listener: (event: BudgetEvent) => void, options?: boolean | { capture?: boolean }): void;
  /** The name it is shared under across tabs; undefined where it works alone (no `share`, or no Web Locks/IndexedDB). */
  readonly share: string | undefined;
  /**
   * How it is kept: "local" (this realm alone — also where `share` was given and the platform cannot share),
   * "tabs" (with the origin's other tabs and workers), "coordinator" (with other isolates through a Durable
   * Object), "redis" (with a fleet's processes, `redis`), or "unreachable" (a coordinator or Redis that stopped
   * answering: this isolate or process spends its own bucket meanwhile).
   */
  readonly sharing: "local" | "tabs" | "coordinator" | "redis" | "unreachable";
  /** Each scope as this realm last saw it (a shared budget: at its last step here). */
  snapshot(): ScopeSnapshot[];
  /** Releases its wasm memory, and closes the Redis connection it made from a URL. */
  free(): void;
}

export interface ScriptedOutcome {
  /** When the response (or the failure) arrives, ms after sending. Default 0. Longer than the attempt timeout: a timeout. */
  afterMs?: number;
  /** Default 200. */
  status?: number;
  /** The Retry-After header as sent on the wire (or a number of seconds). */
  retryAfter?: string | number;
  /** The response's Date header. */
  date?: string;
  error?: "timeout" | "network-error";
}

export interface ReplaySpec {
  policy?: Policy;
  operation?: Operation;
  /** Seeds the draws that follow the scripted ones. Default 0. */
  seed?: number;
  /** Sampled delays in ms, one per retry proposal (a refused proposal consumes one too). */
  draws?: number[];
  /** One per request sent; a missing one is a 200 after 0 ms. */
  outcomes?: ScriptedOutcome[];
  /** Wall clock (Unix ms) at virtual time 0, for HTTP-dates. Default 2026-01-01T00:00:00Z. */
  wallClockMs?: number;
}

export interface ReplayReport {
  wireRequests: number;
  records: AttemptRecord[];
  stop: { reason: RetryReason | "success"; atMs: number };
}

/** Runs the same engine as RetryClient.fetch on a virtual clock. */
export function replay(spec: ReplaySpec): ReplayReport;

/** What `staleness(response)` says of a response served stale. */
export interface Staleness {
  /** How old the kept response is, ms. */
  ageMs: number;
  /** Why the fresh read failed. */
  reason: RetryReason;
  /** The failed read's records, ending with its "stale" record. */
  records: AttemptRecord[];
}

/** `null` for a fresh response; for a read's last good response served because the fresh read failed
 * (`staleIfErrorMs`), its age, why, and the records. */
export function staleness(response: Response | null | undefined): Staleness | null;
