// The reference article's controlled failure cases, run for one endpoint family of a
// configuration: (1) its schedule and (2) a provider wait longer than the deadline on the replay
// engine's virtual clock; (3) an order whose answer is lost while it fills and (5) every transport
// layer, against the loopback exchange, counted at the server. Each returns null (passed) or what
// was expected and what happened.

const MUTATING = ["POST", "PUT", "PATCH", "DELETE"];

/** (1) Every attempt times out and every wait is its whole window: the wire count the worksheet
 * says, and the schedule must reach its attempt ceiling within its deadline. */
export function schedule(replay, row) {
  const outcomes = Array.from({ length: row.policy.maxAttempts }, () => ({ error: "timeout" }));
  const r = replay({ policy: row.policy, operation: row.operation, draws: row.windowsMs, outcomes });
  const expected = row.operation === "order" ? 1 : row.attemptsThatFit;
  if (r.wireRequests !== expected) return `expected ${expected} requests on the longest schedule, replay sent ${r.wireRequests} (stop: ${r.stop.reason})`;
  if (row.operation !== "order" && row.attemptsThatFit < row.policy.maxAttempts) {
    const refused = r.records.find((x) => x.decision === "refused");
    return `maxAttempts ${row.policy.maxAttempts} cannot be reached within deadlineMs ${row.policy.deadlineMs}: attempt ${refused?.attempt} is refused before sleeping (${refused?.reason}) after ${r.wireRequests} requests timed out`;
  }
  return null;
}

/** (2) A Retry-After longer than the deadline: the call stops at once, the wait unshortened. */
export function longWait(replay, row) {
  const seconds = Math.ceil(row.policy.deadlineMs / 1000) + 1;
  const r = replay({ policy: row.policy, operation: row.operation, draws: row.windowsMs, outcomes: [{ afterMs: 10, status: 429, retryAfter: String(seconds) }] });
  const refused = r.records.find((x) => x.decision === "refused");
  if (r.wireRequests !== 1) return `a 429 with Retry-After ${seconds} s past a ${row.policy.deadlineMs} ms deadline: expected 1 request, replay sent ${r.wireRequests}`;
  if (r.stop.reason !== "provider-wait") return `a 429 with Retry-After ${seconds} s: expected the stop "provider-wait", got "${r.stop.reason}"`;
  if (!refused || refused.providerWaitMs < seconds * 1000) return `the provider's ${seconds} s wait was shortened to ${refused?.providerWaitMs} ms`;
  return null;
}

/** A URL a family's pattern matches, on the loopback origin (its path kept); undefined if none. */
export function sampleUrl(row, loopback) {
  if (typeof row.matchUrl !== "string") return undefined;
  const sample = row.matchUrl.replace(/\*/g, "x").replace(/:[A-Za-z_]\w*/g, "x");
  let parsed;
  try {
    parsed = new URL(sample);
  } catch {
    return undefined;
  }
  return { original: parsed.href, path: parsed.pathname, local: `${loopback.url}${parsed.pathname}${parsed.search}` };
}

/** (3) An order executed whose answer is lost: an unknown outcome, never sent a second time. */
export async function lostOrder(client, row, loopback) {
  const method = row.methods?.find((m) => MUTATING.includes(m));
  const sample = sampleUrl(row, loopback);
  // "idempotent" is the caller vouching that a repeat is safe: the worksheet shows it.
  if (method === undefined || sample === undefined || row.operation === "idempotent") return undefined;
  loopback.script(sample.path, [{ drop: true }, { drop: true }, { drop: true }, { status: 200 }]);
  const before = loopback.count(sample.path);
  let reason = "success";
  try {
    await client.fetch(sample.original, { method, body: "newClientOrderId=retryline-verify" }, { key: `retryline-verify-${row.family}-${Date.now()}` });
  } catch (error) {
    reason = error?.reason ?? String(error);
  }
  const sent = loopback.count(sample.path) - before;
  if (sent !== 1) return `an order whose answer was lost reached the server ${sent} times (expected once, then reconciliation; the family's operation is "${row.operation}")`;
  if (reason !== "unknown-outcome") return `an order whose answer was lost ended "${reason}", not "unknown-outcome"`;
  return null;
}

/** (5) A read that keeps failing, through each transport layer: one logical request may reach the
 * server no more often than the family's maxAttempts (a layer retrying on its own multiplies them). */
export async function layers(client, row, loopback, transports) {
  if (MUTATING.some((m) => row.methods?.includes(m)) || row.operation === "order") return undefined;
  const sample = sampleUrl(row, loopback);
  if (sample === undefined) return undefined;
  const stacks = [{ name: "client.asFetch()", request: (fetch, url) => fetch(url) }, ...transports];
  const most = row.policy.maxAttempts;
  for (const layer of stacks) {
    loopback.script(sample.path, Array.from({ length: most * 4 }, () => ({ status: 503 })));
    const before = loopback.count(sample.path);
    try {
      await layer.request(client.asFetch(), sample.original);
    } catch {}
    const sent = loopback.count(sample.path) - before;
    if (sent > most) return `through ${layer.name}: one request reached the server ${sent} times, more than the family's maxAttempts ${most} (a layer that retries on its own multiplies retryline's attempts)`;
  }
  return null;
}

/** A stored value as the store holds it: a string of JSON, or the object itself. */
const stored = (value) => {
  try {
    return typeof value === "string" ? JSON.parse(value) : value;
  } catch {
    return undefined;
  }
};

/** One call whose process is killed the moment it saves a sleep: `{ survived }` (its store then, or
 * null), `ended` (how the call ended) and `phases` (what it saved). */
async function killedWhileSleeping(makeClient, sample, key) {
  const first = new Map();
  let survived = null;
  const controller = new AbortController();
  const set = first.set.bind(first);
  const phases = [];
  first.set = (k, v) => {
    set(k, v);
    const phase = stored(v)?.state?.phase?.phase;
    phases.push(phase ?? "?");
    if (survived === null && phase === "sleeping") {
      survived = new Map(first);
      controller.abort();
    }
    return first;
  };
  const ended = await makeClient({ store: first }).fetch(sample.original, { signal: controller.signal }, { key }).then((r) => `answered ${r.status}`, (e) => e?.reason ?? String(e));
  return { survived, ended, phases };
}

/** (4) A restart during a wait: the state saved before the sleep, taken up by a fresh client
 * (another process's, with the store as it was), keeps the attempt count and the expiry. */
export async function restart(makeClient, row, loopback) {
  if (MUTATING.some((m) => row.methods?.includes(m)) || row.operation === "order") return undefined;
  const sample = sampleUrl(row, loopback);
  if (sample === undefined) return undefined;
  // The first process: killed (aborted) the moment its state is saved sleeping; what its store held
  // then is what survives. A retry whose drawn backoff was 0 ms has no sleep to save: tried again.
  let before, key, survived, ended, phases;
  for (let tries = 0; tries < 3 && !survived; tries++) {
    loopback.script(sample.path, [{ status: 503 }, { status: 200 }]);
    before = loopback.count(sample.path);
    key = `retryline-verify-${row.family}-${Date.now()}-${tries}`;
    ({ survived, ended, phases } = await killedWhileSleeping(makeClient, sample, key));
  }
  if (!survived) return `no state was saved before the retry's sleep (the call ${ended}; saved: ${phases.join(", ") || "nothing"})`;
  const saved = stored(survived.get(`retryline:${key}`))?.state;
  const records = [];
  let outcome = "success";
  let words = "";
  const restartedAt = Date.now();
  try {
    await makeClient({ store: survived, onAttempt: (r) => records.push(r) }).fetch(sample.original, undefined, { key });
  } catch (error) {
    outcome = error?.reason ?? String(error);
    words = String(error?.message ?? "");
  }
  const sent = records.filter((r) => r.decision === "sent");
  const total = loopback.count(sample.path) - before;
  // A restart that came too late for the retry to fit (a busy machine) is rightly refused, unsent.
  const needs = saved?.policy?.minAttemptMs ?? saved?.policy?.attemptTimeoutMs ?? 0;
  const tooLate = Math.max(restartedAt, saved?.phase?.wakeAtWallMs ?? 0) + needs > (saved?.expiresAtWallMs ?? Infinity);
  // So is one that finds the dead owner's lease still running past what the retry can wait for.
  const leased = outcome === "unknown-outcome" && /being run by another client/.test(words);
  if (sent.length === 0 && ((tooLate && outcome === "deadline") || leased) && loopback.count(sample.path) - before === 1) return null;
  if (sent[0]?.attempt !== 2) return `the fresh client sent attempt ${sent[0]?.attempt ?? "none"} first (expected 2: the count kept across the restart; it ended "${outcome}", ${Math.round((saved?.expiresAtWallMs ?? NaN) - restartedAt)} ms before the saved expiry${words ? `: ${words}` : ""})`;
  if (total !== 2) return `${total} requests reached the server across the restart (expected 2)`;
  if (outcome !== "success") return `after the restart the call ended "${outcome}"`;
  const late = sent.find((r) => Date.now() > (saved?.expiresAtWallMs ?? Infinity) + 50);
  if (late !== undefined) return "the fresh client ran past the saved expiry";
  return null;
}
