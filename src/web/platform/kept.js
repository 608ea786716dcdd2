// The Rust API's kept responses (`staleIfErrorMs`): a copy taken when the core says keep, a new
// Response from it with its `Age` when the core says serve, and the mark `staleness` reads. Never
// throws: a response that cannot be copied is not kept. A wasm-bindgen snippet: it imports nothing.

const marks = new WeakMap();

/** A clone of `response` (a branch of its body), undefined if none can be made. */
export function cloneResponse(response) {
  try {
    return response.clone();
  } catch {
    return undefined;
  }
}

/** A copy of `response`, its body read in full apart from the caller's (undefined if it cannot be
 * made): the caller's abort or unread body never reaches it. */
export function keepCopy(response) {
  try {
    const copy = response.clone();
    const kept = { status: copy.status, statusText: copy.statusText, headers: [...copy.headers], body: null };
    Promise.resolve()
      .then(() => copy.arrayBuffer())
      .then((body) => (kept.body = body), () => {});
    return kept;
  } catch {
    return undefined;
  }
}

/** A new Response from kept copy `kept`, with `Age` of `ageMs`; undefined if none can be made (its
 * body not read yet, or never). */
export function serveKept(kept, ageMs) {
  try {
    if (kept.body === null) return undefined;
    const headers = new Headers(kept.headers);
    headers.set("age", String(Math.floor(ageMs / 1000)));
    const empty = kept.status === 204 || kept.status === 205 || kept.status === 304;
    return new Response(empty ? null : kept.body.slice(0), { status: kept.status, statusText: kept.statusText, headers });
  } catch {
    return undefined;
  }
}

/** Marks `response` as served stale: its age and the failure's JSON. */
export function markStale(response, ageMs, json) {
  try {
    marks.set(response, [ageMs, json]);
  } catch {}
}

/** `[ageMs, json]` of a response served stale; undefined for any other. */
export function staleMark(response) {
  return marks.get(response);
}
