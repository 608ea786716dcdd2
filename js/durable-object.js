// `import { BudgetCoordinator } from "retryline/durable-object"`: the Durable Object that keeps one
// scope's budget for every isolate that names it in `new Budget({ coordinator: env.RETRY_BUDGET })`
// (docs/shared-budgets.md). Isolates lease tokens from it in small batches and tell it of holds and
// bans; it answers with its own, and stores its state after every change, so a restart loses nothing.
import { BudgetAuthority } from "../pkg/retryline.js";
import "./workerd.js";

const STATE_KEY = "retryline:budget";

export class BudgetCoordinator {
  constructor(state, env) {
    this.state = state;
    this.env = env;
    this.authority = null; // the scope's budget, built from the limits isolates send
    this.limits = null;
    this.saved = "";
    state.blockConcurrencyWhile(async () => {
      this.saved = (await state.storage.get(STATE_KEY)) ?? "";
    });
  }

  /** POST /lease (JSON from the isolates' budgets); GET /snapshot for operators. */
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && pathname === "/snapshot") {
      return Response.json(this.authority ? this.authority.snapshot() : []);
    }
    if (request.method !== "POST" || pathname !== "/lease") return new Response("not found", { status: 404 });
    let visit;
    try {
      visit = await request.json();
    } catch {
      return new Response("the body is not JSON", { status: 400 });
    }
    const { limits, scope, priority } = visit ?? {};
    if (typeof limits !== "string" || typeof scope !== "string" || typeof priority !== "string") {
      return new Response("limits, scope and priority must be strings", { status: 400 });
    }
    try {
      if (this.limits !== limits) {
        // New limits (a deployment changed them) take up the state kept under the old ones.
        const saved = this.authority ? this.authority.save() : this.saved;
        this.authority?.free();
        this.authority = new BudgetAuthority(limits, saved);
        this.limits = limits;
      }
      const numbers = new Float64Array(["weight", "latest", "returned", "hold", "ban"].map((k) => (Number.isFinite(visit[k]) ? visit[k] : 0)));
      const answer = Array.from(this.authority.lease(scope, priority, numbers));
      this.saved = this.authority.save();
      // Not awaited: the Durable Object's output gate holds the answer until the write is durable.
      this.state.storage.put(STATE_KEY, this.saved);
      return Response.json(answer);
    } catch (error) {
      return new Response(String(error?.message ?? error), { status: 400 });
    }
  }
}
