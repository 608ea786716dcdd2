// A machine's steps on a shared budget as the core hands them out (src/abi/share.rs): take the
// share, let it go, visit a coordinator. The same for calls and streams; an entry whose budgets are
// its realm's own (the lean one) has none.

import { unknownEffect } from "./instance.js";

export const ENTER = 11;
export const LEAVE = 12;
export const VISIT = 13;

/** The share effect of `type` the last export handed out. */
export function shareEffect(mem, type) {
  const n = mem.number;
  switch (type) {
    case ENTER:
      return { type, seq: n(0), withinMs: n(1) };
    case LEAVE:
      return { type, news: n(0) === 1, state: n(1) === 1 ? mem.text() : undefined };
    case VISIT:
      return {
        type,
        seq: n(0),
        waits: n(1) === 1,
        scope: mem.text(),
        visit: { weight: n(2), priority: n(3), earliest: n(4), latest: n(5), returned: n(6), hold: n(7), ban: n(8), within: n(9), breaker: n(10), probe: n(11), spent: n(12) },
      };
    default:
      return unknownEffect(mem, type);
  }
}
