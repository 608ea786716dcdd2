// Records handed to the caller's observers (`onAttempt`, a client's and a call's or stream's own):
// each gets its own copy, and what they throw or reject with is ignored.

import { swallow } from "./race.js";

/** Hands the records of `text` (a JSON array), each passed through `label`, to every observer. */
export function tell(observers, text, label = (records) => records) {
  for (const observer of observers) {
    if (observer === undefined) continue;
    for (const record of label(JSON.parse(text))) hand(observer, record);
  }
}

/** Calls `observer` with `value`; what it throws, or a promise it returns rejects with, is ignored. */
export function hand(observer, value) {
  try {
    const returned = observer(value);
    if (returned !== null && (typeof returned === "object" || typeof returned === "function")) swallow(returned);
  } catch {
    // A throwing observer must not break what it observes.
  }
}
