// What the stream driver does beside deciding and connecting: its state and what it tells
// observers, the caller's resync, and the heartbeat.

import { now, wall } from "../platform/clock.js";
import { clear, timer } from "../platform/race.js";

/** Sets the stream's state, telling listeners of a change. */
export function setState(s, state) {
  if (s.state === state || s.state === "stopped") return;
  const previous = s.state;
  s.state = state;
  s.staleSinceWall = state === "stale" ? wall() : null;
  s.target.dispatchEvent(Object.assign(new Event("state"), { state, previous }));
}

/** Hands the records made since the last report to the client's observer and the stream's. */
export function report(s) {
  const { c } = s;
  const x = c.core.x;
  const count = x.rl_stream_records(s.handle);
  if (count === 0 || (c.onAttempt === undefined && s.onAttempt === undefined)) return;
  // Read once: an observer may call into the core, which overwrites its output.
  const text = c.core.text();
  for (const observer of [c.onAttempt, s.onAttempt]) {
    if (observer === undefined) continue;
    for (const record of JSON.parse(text)) {
      try {
        observer(record);
      } catch {
        // A throwing observer must not break the stream it observes.
      }
    }
  }
}

/** Runs the caller's resync: the stream is stale until it resolves (after each open, and on gap()). */
export async function resync(s) {
  if (s.resync === undefined || s.state === "stopped") return;
  const round = (s.resyncRound ?? 0) + 1;
  s.resyncRound = round;
  s.resyncing = true;
  setState(s, "stale");
  try {
    await s.resync(s.target);
  } catch {
    // Stays stale: the next open or gap() tries again.
    return;
  } finally {
    if (s.resyncRound === round) s.resyncing = false;
  }
  if (s.resyncRound === round && s.socket !== null && s.openedAt !== null && s.state === "stale") setState(s, "open");
}

/** An application-level ping when nothing was heard for heartbeat.everyMs (runtimes that cannot send ping frames). */
export function startHeartbeat(s, send) {
  const beat = s.heartbeat;
  if (beat === undefined) return;
  clear(s.timers.heartbeat);
  const tick = () => {
    const link = s.socket;
    if (link === null || s.state === "stopped") return;
    if (s.heardAt < 0 || now() - s.heardAt >= beat.everyMs) {
      let payload = beat.message;
      if (typeof payload === "function") {
        try {
          payload = payload();
        } catch {
          payload = undefined;
        }
      }
      if (payload !== undefined) send(s, link, payload);
    }
    s.timers.heartbeat = timer(tick, beat.everyMs);
  };
  s.timers.heartbeat = timer(tick, beat.everyMs);
}
