// A visit to a scope's budget authority, as the isolates' and processes' budgets send it (JSON).

/** A visit's fields, or a string saying what is wrong with them. */
export function readVisit(visit) {
  const { limits, scope, priority } = visit ?? {};
  if (typeof limits !== "string" || typeof scope !== "string" || typeof priority !== "string") {
    return "limits, scope and priority must be strings";
  }
  const n = (k) => (Number.isFinite(visit[k]) && visit[k] >= 0 ? visit[k] : 0);
  return { limits, scope, priority, numbers: ["weight", "earliest", "latest", "returned", "hold", "ban", "breaker", "probe", "spent"].map(n) };
}
