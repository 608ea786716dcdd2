/**
 * The Durable Object that keeps one scope's budget for every isolate whose budget names its
 * namespace: `new Budget({ ...limits, coordinator: env.RETRY_BUDGET })`. Export it from your
 * worker and bind it (see the README, "Budgets shared across isolates"). Its state (tokens, holds,
 * bans) is stored in the object's storage after every change, so a restart loses nothing.
 *
 * `GET /snapshot` on a coordinator's stub answers with its scope as `budget.snapshot()` describes it.
 */
export declare class BudgetCoordinator {
  constructor(state: unknown, env: unknown);
  fetch(request: Request): Promise<Response>;
}
