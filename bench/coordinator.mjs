// What one BudgetCoordinator (one scope's Durable Object) grants a second, in real workerd: worker
// isolates visit it for leases as fast as they can, for 3 s per row. A visit is one lease: the
// asked weight (1) and a batch of up to 10 more tokens when the bucket has them (here it always
// does: the limits are huge, so only the coordinator's own work is measured). Standalone probe,
// not part of `npm run bench`: node bench/coordinator.mjs
import { startCoordinatorRig } from "../tests/js/package/coordinator-rig.mjs";

const MS = 3000;
const limits = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
const rows = [
  { label: "1 isolate, 1 visit at a time", lanes: { w1: 1 } },
  { label: "1 isolate, 8 visits at a time", lanes: { w1: 8 } },
  { label: "2 isolates, 8 visits at a time each", lanes: { w1: 8, w2: 8 } },
];

const rig = await startCoordinatorRig();
try {
  console.log(`| visitors | lease visits / s | tokens / s |\n|---|---|---|`);
  for (const [i, row] of rows.entries()) {
    const scope = `bench-${i}`;
    const results = await Promise.all(Object.entries(row.lanes).map(([w, lanes]) => rig.worker.call(`/${w}/grants`, { scope, limits, ms: MS, lanes })));
    const visits = results.reduce((n, r) => n + r.grants, 0);
    const perSecond = Math.round((visits * 1000) / MS);
    console.log(`| ${row.label} | ${perSecond} | ${perSecond * 11} |`);
  }
} finally {
  await rig.close();
}
