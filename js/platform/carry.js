// Reads coalesced across tabs (`coalesce` with a `share`d budget): the core writes a read on the
// wire into the shared state, and a tab whose same read finds it awaits that tab's answer. This
// carries the answer — status, headers and body, or that it failed — on a BroadcastChannel per
// share name, and to the same realm's own listeners (a channel never hears itself).

import { copyOf, responseOf } from "./kept.js";

const shares = new Map(); // share name -> { channel, waiting: Map<key, Set<listener>> }

function shareOf(name) {
  let found = shares.get(name);
  if (found !== undefined) return found;
  found = { channel: null, waiting: new Map() };
  try {
    found.channel = new BroadcastChannel(`retryline-carry:${name}`);
    found.channel.onmessage = ({ data }) => hear(found, data);
  } catch {
    // No channel here: other tabs' answers never come, and an awaiting read sends its own when the
    // other tab's attempt must have ended.
  }
  shares.set(name, found);
  return found;
}

function hear(share, data) {
  if (data === null || typeof data !== "object" || typeof data.key !== "string") return;
  for (const listener of [...(share.waiting.get(data.key) ?? [])]) {
    try {
      listener(data);
    } catch {}
  }
}

/** Listens for the answer to read `key` under share `name`; returns what stops listening. */
export function awaitCarried(name, key, listener) {
  const share = shareOf(name);
  let set = share.waiting.get(key);
  if (set === undefined) share.waiting.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0 && share.waiting.get(key) === set) share.waiting.delete(key);
  };
}

/** Carries `message` (`{ ok, status?, statusText?, headers?, body? }`) for read `key` under share `name`. */
export function carry(name, key, message) {
  const share = shareOf(name);
  const data = { ...message, key };
  try {
    share.channel?.postMessage(data);
  } catch {}
  hear(share, data);
}

/** Carries a copy of `response` (its body read in full) for read `key`, or that it failed. */
export function carryResponse(name, key, response) {
  const copy = copyOf(response);
  if (copy === undefined) return carry(name, key, { ok: false });
  copy.then(
    (entry) => carry(name, key, { ok: true, ...entry }),
    () => carry(name, key, { ok: false }),
  );
}

/** A Response of this realm from a carried answer. */
export const carried = (message) => responseOf(message);
