// A client's last good response of each read (`staleIfErrorMs`), by the request's identity the core
// names (scope, method, URL and request headers, hashed: src/call/coalesce.rs): the core says when
// to keep one and whether a kept one may be served; this holds the bytes. A request whose headers
// differ (another account's key) is another entry. Bounded: the oldest goes first.

/** Entries kept per client at most (docs/client.md). */
export const MAX_KEPT = 256;

/** A copy of `response` read in full: a promise of `{ status, statusText, headers, body }`
 * (rejecting if its body cannot be read), or undefined if it cannot be copied (a caller's fetch's
 * own object). */
export function copyOf(response) {
  let copy;
  try {
    copy = response.clone();
  } catch {
    return undefined;
  }
  return Promise.resolve()
    .then(() => copy.arrayBuffer())
    .then((body) => {
      const headers = [];
      for (const pair of copy.headers) headers.push(pair);
      return { status: copy.status, statusText: copy.statusText, headers, body };
    });
}

/** A Response of this realm from a copy (`copyOf`), with `headers` set over its own. */
export function responseOf(entry, headers = {}) {
  const all = new Headers(entry.headers);
  for (const [name, value] of Object.entries(headers)) all.set(name, value);
  const empty = entry.status === 204 || entry.status === 205 || entry.status === 304;
  return new Response(empty ? null : entry.body.slice(0), { status: entry.status, statusText: entry.statusText, headers: all });
}

/** Keeps a copy of `response` under `key` once its body is read, at wall time `at`. */
export function keep(kept, key, response, at) {
  copyOf(response)?.then(
    (copy) => {
      kept.delete(key);
      kept.set(key, { ...copy, at });
      if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value);
    },
    () => {},
  );
}

/** A new Response from the entry, with its `Age` (whole seconds, RFC 9111 §5.1). */
export const served = (entry, ageMs) => responseOf(entry, { age: String(Math.floor(ageMs / 1000)) });

// The mark of a response served stale, kept beside it, never on it: a Response the caller made is
// never stale.
const marks = new WeakMap();

/** `staleness(response)`: `null` for a fresh response; `{ ageMs, reason, records }` for a read's last
 * good answer served because the fresh read failed (`reason` says why). */
export function staleness(response) {
  if (response === null || typeof response !== "object") return null;
  return marks.get(response) ?? null;
}

/** Marks `response` as served stale. */
export function markStale(response, mark) {
  marks.set(response, Object.freeze(mark));
}
