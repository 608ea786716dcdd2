// The Rust API's kept responses (`staleIfErrorMs`): a copy taken when the core says keep, a new
// Response from it with its `Age` when the core says serve, and the mark `staleness` reads. Never
// throws: a response that cannot be copied is not kept. A wasm-bindgen snippet: it imports nothing.

const marks = new WeakMap();

/** A copy of `response` whose body stays unread until it is served (undefined if it cannot be made). */
export function keepCopy(response) {
  try {
    return response.clone();
  } catch {
    return undefined;
  }
}

/** A new Response from kept copy `kept` (which stays kept), with `Age` of `ageMs`; undefined if none can be made. */
export function serveKept(kept, ageMs) {
  try {
    const copy = kept.clone();
    const headers = new Headers(copy.headers);
    headers.set("age", String(Math.floor(ageMs / 1000)));
    const empty = copy.status === 204 || copy.status === 205 || copy.status === 304;
    return new Response(empty ? null : copy.body, { status: copy.status, statusText: copy.statusText, headers });
  } catch {
    return undefined;
  }
}

/** Marks `response` as served stale: its age and the failure's JSON. */
export function markStale(response, ageMs, json) {
  marks.set(response, [ageMs, json]);
}

/** `[ageMs, json]` of a response served stale; undefined for any other. */
export function staleMark(response) {
  return marks.get(response);
}
