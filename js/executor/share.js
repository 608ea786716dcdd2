// A machine's steps on a shared budget, carried out by the budget's way of sharing (tabs: a Web
// Lock, IndexedDB and BroadcastChannel; a coordinator: its visits). Used by calls and streams alike:
// `run` is the machine's runner (`{ c, done }`), `feed(step)` hands the answer back.

import { now, wall } from "../platform/clock.js";
import { ENTER, LEAVE, VISIT } from "../core/share.js";

/** Does share effect `effect` of `run`; answers come back through `answer(step)`. */
export function shareStep(run, effect, answer) {
  const { budget, core } = run.c;
  const shared = budget.shared;
  switch (effect.type) {
    case ENTER: {
      if (shared === null) return answer((m, h, t, w) => m.entered(h, t, w, effect.seq, null));
      return void shared.enter(effect.withinMs).then((text) => {
        // A string: the lock is this machine's (null: it was not granted in time). Only the lock it
        // holds is ever let go by it: the realm's lock may be another machine's meanwhile.
        run.holdsLock = typeof text === "string";
        // The machine is gone: the lock it asked for is let go at once.
        if (run.done) return release(run, shared, undefined, false);
        let state = null;
        if (typeof text === "string" && text !== "") {
          try {
            state = JSON.parse(text);
          } catch {}
        }
        answer((m, h, t, w) => m.entered(h, t, w, effect.seq, state));
      });
    }
    case LEAVE:
      return release(run, shared, effect.state, effect.news);
    case VISIT: {
      const visited = shared === null ? Promise.resolve(null) : shared.visit(effect.scope, effect.visit);
      return void visited.then((reply) => {
        // No answer in the visit's bound is the coordinator down, whenever the visit gave up.
        core.budgets.visited(budget.handle, now(), wall(), effect.scope, reply, effect.visit.within);
        if (effect.waits) answer((m, h, t, w) => m.entered(h, t, w, effect.seq, null));
      });
    }
  }
}

/** Stores `state` and lets go of the lock `run` holds, if it holds one. */
function release(run, shared, state, news) {
  if (!run.holdsLock) return;
  run.holdsLock = false;
  shared?.leave(state, news);
}

/** A machine that ends outside its brackets (abandoned) lets go of a lock it still holds. */
export function releaseHeld(run) {
  release(run, run.c.budget.shared, undefined, false);
}
