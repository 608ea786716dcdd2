// (a′) The same successful GET as in overhead.mjs, without the network: every library wraps a
// stub fetch that answers at once with a fresh 200 JSON Response, so what is left is the
// library's own work per call (plus the stub's, shown as the baseline). axios runs on its fetch
// adapter here, since its default Node http adapter cannot be handed a stub.
import { contenders } from "./lib/contenders.mjs";
import { compareAsyncOps } from "./lib/ops.mjs";

const BODY = '{"ok":true,"path":"/api/v3/time","seq":1}';
const stubFetch = async () => new Response(BODY, { status: 200, headers: { "content-type": "application/json" } });
const URL_ = "http://127.0.0.1:9/api/v3/time"; // never dialled: the stub answers

export async function measureWrapperCost({ rounds = 5, msPerRound = 200 } = {}) {
  const cases = contenders.map((c) => {
    const { get } = c.create({ attempts: 3, baseDelayMs: 100, fetch: stubFetch });
    return {
      id: c.id,
      name: c.name,
      fn: async () => {
        const res = await get(URL_);
        if (res.status !== 200) throw new Error(`${c.name}: expected 200, got ${JSON.stringify(res)}`);
        return res.status;
      },
    };
  });
  const rows = await compareAsyncOps(cases, { rounds, msPerRound });
  const baseline = rows[0];
  return rows.map((r) => ({
    ...r,
    usPerCall: 1e6 / r.opsPerSecond,
    usOverStub: 1e6 / r.opsPerSecond - 1e6 / baseline.opsPerSecond,
  }));
}
