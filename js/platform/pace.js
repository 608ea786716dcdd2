// Outgoing pacing (`sendPerSecond`): at most that many sends in any second, a sliding window, so a
// provider counting per second (Binance: 5 incoming messages a second, pings and subscriptions alike)
// never sees more; what does not fit waits its turn, in order.

import { clear, timer } from "./race.js";
import { now } from "./clock.js";

export class Pace {
  #perSecond;
  /** When the last `perSecond` sends went (monotonic ms), oldest first. */
  #sent = [];
  #queue = [];
  #timer = null;

  constructor(perSecond) {
    this.#perSecond = perSecond;
  }

  /** Runs `send` now if the window allows, else after the sends queued before it. */
  push(send) {
    this.#queue.push(send);
    if (this.#timer === null) this.#drain();
  }

  /** Drops what is queued (the stream closed). */
  clear() {
    this.#queue.length = 0;
    clear(this.#timer);
    this.#timer = null;
  }

  #drain() {
    this.#timer = null;
    while (this.#queue.length > 0) {
      const t = now();
      if (this.#sent.length >= this.#perSecond) {
        // The window is full until its oldest send is a second old (+1: our clock is rounded up).
        const wait = this.#sent[0] + 1001 - t;
        if (wait > 0) {
          this.#timer = timer(() => this.#drain(), wait);
          return;
        }
        this.#sent.shift();
      }
      this.#sent.push(t);
      this.#queue.shift()();
    }
  }
}
