// `import { BudgetCoordinator } from "retryline/durable-object"`: the Durable Object that keeps one
// scope's budget for every isolate that names it in `new Budget({ coordinator: env.RETRY_BUDGET })`
// (docs/shared-budgets.md). Isolates lease tokens from it in small batches and tell it of holds and
// bans; it answers with its own, and stores its state after every change, so a restart loses nothing.
// Its wasm is the budget alone (pkg/authority.wasm): no fetch path.
import module from "../pkg/authority.wasm";
import { bind } from "./core/instance.js";
import { now, wall } from "./platform/clock.js";

const core = bind(new WebAssembly.Instance(module, {}));
const x = core.x;
const STATE_KEY = "retryline:budget";

/** The scope's budget from the limits isolates send (JSON) and the state stored last (JSON, or ""). */
function authority(limits, saved) {
  let options;
  let state = null;
  try {
    options = JSON.parse(limits);
  } catch {
    throw new TypeError("Budget limits are not JSON");
  }
  try {
    if (saved) state = JSON.parse(saved);
  } catch {}
  const [limitsLen, savedLen] = core.putValues([options, state]);
  const handle = x.rl_authority_new(limitsLen, savedLen, now(), wall());
  if (handle === 0) throw new TypeError(`Budget: ${core.text()}`);
  return handle;
}

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
      x.rl_authority_snapshot(this.handle, now(), wall());
      const scopes = core.json();
      for (const scope of scopes) scope.sharing = "coordinator";
      return Response.json(scopes);
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
        if (this.handle !== 0) {
          x.rl_authority_save(this.handle, now(), wall());
          this.saved = core.text();
          x.rl_authority_free(this.handle);
        }
        this.handle = authority(limits, this.saved);
        this.limits = limits;
      }
      const n = (k) => (Number.isFinite(visit[k]) && visit[k] >= 0 ? visit[k] : 0);
      const [scopeLen, priorityLen] = core.put([scope, priority]);
      x.rl_authority_lease(this.handle, scopeLen, priorityLen, now(), wall(), n("weight"), n("earliest"), n("latest"), n("returned"), n("hold"), n("ban"));
      const answer = [0, 1, 2, 3].map((i) => core.number(i));
      x.rl_authority_save(this.handle, now(), wall());
      this.saved = core.text();
      // Not awaited: the Durable Object's output gate holds the answer until the write is durable.
      this.state.storage.put(STATE_KEY, this.saved);
      return Response.json(answer);
    } catch (error) {
      return new Response(String(error?.message ?? error), { status: 400 });
    }
  }
}
