// What a Budget tells beyond its snapshot: events when a scope's breaker changes state or a hold or
// ban begins (`budget.addEventListener("breaker" | "ban" | "hold", …)`), seen as its calls' records
// are made; and OpenTelemetry gauges of each scope (`telemetry: { meterProvider }`), read from the
// snapshot when the reader collects.

import { Guarded } from "../platform/telemetry.js";

const BREAKER = { closed: 0, "half-open": 1, open: 2 };

/** A scope's state that events follow: its breaker, and when its hold and ban end. */
const stateOf = (s) => ({ breaker: s.breaker, heldUntil: s.heldUntil, bannedUntil: s.bannedUntil, breakerOpenUntil: s.breakerOpenUntil });

/** Budget events: `look()` compares each scope with what was last seen and dispatches the changes
 * on `target` (the Budget). Only once someone listens: before, looking costs nothing. */
export class BudgetEvents {
  constructor(target, snapshot) {
    this.target = target;
    this.snapshot = snapshot;
    this.seen = new Map();
    this.listening = false;
  }

  /** Someone listens from now on: what is now is the baseline. */
  listen() {
    if (this.listening) return;
    this.listening = true;
    for (const scope of this.read()) this.seen.set(scope.scope, stateOf(scope));
  }

  read() {
    try {
      return this.snapshot();
    } catch {
      return [];
    }
  }

  look() {
    if (!this.listening) return;
    for (const scope of this.read()) {
      const was = this.seen.get(scope.scope) ?? { breaker: scope.breaker === null ? null : "closed", heldUntil: null, bannedUntil: null };
      const now = stateOf(scope);
      this.seen.set(scope.scope, now);
      if (now.breaker !== was.breaker && now.breaker !== null) this.tell("breaker", { scope: scope.scope, state: now.breaker, previous: was.breaker, openUntil: now.breakerOpenUntil });
      if (now.bannedUntil !== null && now.bannedUntil !== was.bannedUntil) this.tell("ban", { scope: scope.scope, until: now.bannedUntil });
      if (now.heldUntil !== null && now.heldUntil !== was.heldUntil) this.tell("hold", { scope: scope.scope, until: now.heldUntil });
    }
  }

  tell(type, detail) {
    let event;
    try {
      event = new Event(type);
      Object.defineProperty(event, "detail", { value: detail, enumerable: true });
    } catch {
      return;
    }
    // A listener that throws is the platform's to report; the budget's state is unharmed.
    this.target.dispatchEvent(event);
  }
}

/** Observable gauges of each scope of `snapshot()` on the meter of `meterProvider`, made through a
 * guard: a meter that throws or returns nonsense is dropped with one warning. */
export function budgetGauges(meterProvider, snapshot) {
  const guard = new Guarded("meterProvider");
  const meter = guard.run(() => meterProvider.getMeter("retryline", "0.1.0"));
  if (meter === undefined || meter === null) return;
  const gauge = (name, unit, description, value) => {
    const instrument = guard.run(() => meter.createObservableGauge(name, { unit, description }));
    guard.run(() =>
      instrument.addCallback((result) => {
        let scopes = [];
        try {
          scopes = snapshot();
        } catch {}
        for (const scope of scopes) {
          const v = value(scope);
          if (typeof v === "number" && Number.isFinite(v)) guard.run(() => result.observe(v, { "retryline.scope": scope.scope }));
        }
      }),
    );
  };
  gauge("retryline.budget.tokens", "{token}", "Tokens available in the scope's bucket.", (s) => s.tokens);
  gauge("retryline.budget.retry_quota", "{retry}", "Retries the scope's retry quota still allows.", (s) => s.retryQuota?.available);
  gauge("retryline.budget.breaker.state", "1", "The scope's circuit breaker: 0 closed, 1 half-open, 2 open.", (s) => BREAKER[s.breaker]);
  gauge("retryline.budget.hold.remaining", "s", "Time left on the scope's hold (Retry-After on the whole scope).", (s) => s.holdRemainingMs / 1000);
  gauge("retryline.budget.ban.remaining", "s", "Time left on the scope's ban (418).", (s) => s.banRemainingMs / 1000);
  gauge("retryline.budget.in_flight", "{request}", "The scope's requests on the wire, under maxInFlight.", (s) => s.inFlight);
}
