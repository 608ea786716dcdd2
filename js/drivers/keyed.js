// A keyed call's life in the client's store: claimed before it starts, saved before every send and
// sleep, kept while unresolved, deleted when it ends. The core decides who may run the key and
// what is saved; this makes the store calls, each within the call's bounds.

import { Fault, storeOf } from "../platform/store.js";
import { CUT, DEADLINE, Race, TIMEOUT } from "../platform/race.js";
import { bounds, faultWords, interrupt, interruptOn, now, step, wall } from "./steps.js";

/** Claims the call's key, waiting once for another owner's live lease. Returns the error to throw
 * if the key is refused; a store that failed stops the call (`call.reason` is then set). */
export async function claim(call) {
  const { c } = call;
  const { core } = c;
  const x = core.x;
  let waited = 0;
  for (;;) {
    const race = bounds(call);
    const stored = await storeOf(c).get(call.key, race);
    race.end();
    if (stored instanceof Fault) {
      interruptOn(call, stored);
      return undefined;
    }
    const [me, state] = core.putValues([stored], [c.owner]);
    const claimed = x.rl_op_claim(call.op, me, state, now(), wall(), waited);
    switch (claimed) {
      case 0:
        call.ownsKey = true;
        return undefined;
      case 1:
        // Its earlier records were reported by the process that made them.
        call.reported = core.number(0);
        call.deadline = x.rl_op_deadline(call.op);
        call.ownsKey = true;
        return undefined;
      case 2: {
        const leaseLeft = Math.max(0, core.number(0) - wall());
        const wait = bounds(call);
        const [how, why] = await wait.sleep(leaseLeft);
        wait.end();
        if (how === CUT) {
          interruptOn(call, new Fault("lease", undefined, why));
          return undefined;
        }
        waited = 1;
        continue;
      }
      case 3:
      case 4: {
        x.rl_op_refusal(call.op, claimed);
        const { reason, message, records, key } = core.json();
        return new c.RetryError(reason, message, { records, key });
      }
      default:
        // Unreadable, or not resumable here: a store failure that leaves the value in place.
        interrupt(call, "store", "store-get", core.text());
        return undefined;
    }
  }
}

/** The state the core saves now, as JSON. */
function saved(call) {
  const { core } = call.c;
  const [owner] = core.put([call.c.owner]);
  core.x.rl_op_save(call.op, owner, now(), wall());
  return core.text();
}

/** Saves a keyed operation before it sends or sleeps; true if it must stop instead. */
export async function save(call) {
  const race = bounds(call);
  const fault = await storeOf(call.c).set(call.key, saved(call), race);
  race.end();
  if (fault === null) return false;
  interruptOn(call, fault);
  return true;
}

/** The operation ended: an unresolved order stays (refusing the key), anything else is removed.
 * Not cut by the caller's abort (an aborted order must still be kept), and bounded like one
 * attempt and by the deadline: a hanging store delays no answer for long. */
export async function finish(call) {
  const { c } = call;
  const left = Math.max(0, call.deadline - now());
  const race = left <= call.timeout ? new Race(left, DEADLINE) : new Race(call.timeout, TIMEOUT);
  const keep = c.core.x.rl_op_unresolved(call.op) === 1;
  const fault = keep ? await storeOf(c).set(call.key, saved(call), race) : await storeOf(c).delete(call.key, race);
  race.end();
  if (fault === null) return;
  const words = c.redact(faultWords(call, fault));
  const [len] = c.core.put([words]);
  c.core.x.rl_op_note_store_failure(call.op, len);
  if (call.reason !== "success") call.note = [3, undefined, 0, words];
}

export { step };
