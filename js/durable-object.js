// `import { BudgetCoordinator } from "retryline/durable-object"`: the Durable Object that keeps one
// scope's budget for every isolate that names it in `new Budget({ coordinator: env.RETRY_BUDGET })`
// (docs/shared-budgets.md). Isolates lease tokens from it in small batches and tell it of holds and
// bans; it answers with its own, and stores its state after every change, so a restart loses nothing.
// Its wasm is the budget alone (pkg/authority.wasm): no fetch path.
import module from "../pkg/authority.wasm";
import { authorityOf } from "./core/authority.js";
import { readVisit } from "./platform/visit.js";

const budgets = authorityOf(new WebAssembly.Instance(module, {}));
const STATE_KEY = "retryline:budget";

export class BudgetCoordinator {
  constructor(state, env) {
    this.state = state;
    this.env = env;
    this.handle = 0; // the scope's budget, built from the limits isolates send
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
      if (this.handle === 0) return Response.json([]);
      const scopes = budgets.snapshot(this.handle);
      for (const scope of scopes) scope.sharing = "coordinator";
      return Response.json(scopes);
    }
    if (request.method !== "POST" || pathname !== "/lease") return new Response("not found", { status: 404 });
    let visit;
    try {
      visit = readVisit(await request.json());
    } catch {
      return new Response("the body is not JSON", { status: 400 });
    }
    if (typeof visit === "string") return new Response(visit, { status: 400 });
    try {
      if (this.limits !== visit.limits) {
        // New limits (a deployment changed them) take up the state kept under the old ones.
        if (this.handle !== 0) {
          this.saved = budgets.save(this.handle);
          budgets.free(this.handle);
          this.handle = 0;
        }
        this.handle = budgets.open(visit.limits, this.saved);
        this.limits = visit.limits;
      }
      const answer = budgets.lease(this.handle, visit);
      if (answer[6] !== 0) {
        // Stored only when it changed: a visit that took and told nothing leaves it as it was.
        this.saved = budgets.save(this.handle);
        // Not awaited: the Durable Object's output gate holds the answer until the write is durable.
        this.state.storage.put(STATE_KEY, this.saved);
      }
      return Response.json(answer.slice(0, 6));
    } catch (error) {
      return new Response(String(error?.message ?? error), { status: 400 });
    }
  }
}
