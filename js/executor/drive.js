// One machine (a call's or a stream's) carried out: each event fed to it, then every effect it
// hands out done, then its one timer armed where it asks. An event that arrives while effects are
// being done (an abort from an observer, a send from onOpen) waits its turn.

import { now, wall } from "../platform/clock.js";
import { clear, timer } from "../platform/race.js";

/** Feeds `run` (`{ machine, handle, perform, done }`: js/core's calls or streams) the event `step` makes. */
export function feed(run, step) {
  if (run.done) return;
  if (run.draining) return void run.queue.push(step);
  const { machine } = run;
  run.draining = true;
  try {
    for (;;) {
      let effect = step(machine, run.handle, now(), wall());
      while (effect.type !== 0 && !run.done) {
        run.perform(run, effect);
        if (!run.done) effect = machine.poll(run.handle);
      }
      if (run.done) return;
      arm(run, effect.wakeAt);
      step = run.queue.shift();
      if (step === undefined) return;
    }
  } finally {
    run.draining = false;
  }
}

/** The fields `feed` keeps on a run. */
export const driven = (machine, perform) => ({ machine, perform, queue: [], draining: false, timer: null, wakeAt: -1, done: false });

/** Stops `run`'s timer: it is done. */
export function disarm(run) {
  clear(run.timer);
  [run.timer, run.wakeAt] = [null, -1];
}

/** One timer per machine, at the instant it asks for. */
function arm(run, wakeAt) {
  if (wakeAt === run.wakeAt && (run.timer !== null || wakeAt < 0)) return;
  clear(run.timer);
  run.timer = null;
  run.wakeAt = wakeAt;
  if (wakeAt < 0) return;
  run.timer = timer(() => {
    run.timer = null;
    run.wakeAt = -1;
    feed(run, (m, h, t, w) => m.timer(h, t, w));
  }, wakeAt - now());
  // A platform whose timers throw (a test's fakes) cannot bound a wait: the machine is aborted.
  if (run.timer === null) feed(run, (m, h, t, w) => (m.unbounded ?? m.close)(h, t, w));
}
