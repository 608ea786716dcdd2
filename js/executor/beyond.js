// What a call's machine hands out beyond the fetch path, carried out for the entries whose core has
// it: a keyed call's store calls, a reconciliation's status queries, the steps on a budget shared
// beyond this realm. The lean entry's core hands out none of them, and its page carries none of this
// (./call.js finds it on the client, where the entry's `load.beyond` put it).

import { statusQuery } from "../platform/attempt.js";
import { storeCall } from "../platform/store-call.js";
import { awaitCarried, carry, carryResponse } from "../platform/carry.js";

export { carried } from "../platform/carry.js";
import { GET, SET, DELETE, QUERY, AWAIT, CARRY } from "../core/calls.js";
import { feed } from "./drive.js";
import { releaseHeld, shareStep } from "./share.js";

const STORE_METHODS = { [GET]: "get", [SET]: "set", [DELETE]: "delete" };

/** Does `effect` of `call`; `abandon(call, error)` ends a call whose status query broke its contract. */
export function perform(call, effect, abandon) {
  switch (effect.type) {
    case GET:
    case SET:
    case DELETE:
      return storeCall(call.c, STORE_METHODS[effect.type], call.key, effect.value, (answer) => feed(call, (m, h, t, w) => m.stored(h, t, w, effect.seq, answer)));
    case QUERY: {
      const n = effect.attempt;
      const flight = statusQuery(call.statusQuery, n, call.c.core.names.evidence, call.statuses, {
        answer: (evidence, words) => feed(call, (m, h, t, w) => m.queryAnswer(h, t, w, n, evidence, words)),
        broke: (error) => abandon(call, error),
      });
      return void call.flights.set(n, flight);
    }
    case AWAIT: {
      call.unawait?.();
      const share = call.c.budget.share;
      call.unawait = awaitCarried(share, effect.key, (data) => {
        call.unawait?.();
        call.unawait = undefined;
        call.carried = data;
        feed(call, (m, h, t, w) => m.carried(h, t, w, data.ok === true));
      });
      return;
    }
    case CARRY:
      // A success is carried with its response, when the call settles (./call.js, `carryOut`).
      if (effect.ok) return void (call.carryKey = effect.key);
      return carry(call.c.budget.share, effect.key, { ok: false });
    default:
      return shareStep(call, effect, (step) => feed(call, step));
  }
}

/** Carries the response run `call` resolves with to the tabs awaiting its read. */
export function carryOut(call, response) {
  if (call.carryKey === undefined) return;
  if (response === undefined) return carry(call.c.budget.share, call.carryKey, { ok: false });
  carryResponse(call.c.budget.share, call.carryKey, response);
}

/** The call is over: a lock of a shared budget that it still holds is let go, and it listens for
 * no other tab's answer. */
export function end(call) {
  call.unawait?.();
  releaseHeld(call);
}
