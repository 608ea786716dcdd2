// What telemetry costs a call, side by side in one run (issue 35): the bare stub, retryline without
// telemetry, with OpenTelemetry's no-op providers, and with the SDK recording (in-memory exporter, a
// metric reader) — on the success path and the retry path (503, 503, 200 at zero backoff) over an
// instant stub fetch, as bench/per-call.mjs measures. `--before <dir>`: also a row for retryline as
// built in another checkout (`git worktree add <dir> <commit>` and `node scripts/build.mjs` there),
// the figure before telemetry, measured in the same run.
//   node bench/telemetry-cost.mjs [--before /tmp/before] [--rounds 9] [--ms 300]
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { compareAsyncOps } from "./lib/ops.mjs";
import { telemetryRows } from "./lib/telemetry-rows.mjs";
import { Budget, RetryClient } from "../js/node.js";

const { values: args } = parseArgs({ options: { before: { type: "string" }, rounds: { type: "string", default: "9" }, ms: { type: "string", default: "300" } } });
const URL_ = "http://127.0.0.1:9/api/v3/time"; // never dialled: the stub answers
const before = args.before ? await import(pathToFileURL(`${args.before}/js/node.js`).href) : undefined;

/** The rows of one path: what each makes of a stub `send`. */
function rows(options) {
  const plain = (Client, B) => (send) => {
    const client = new Client({ fetch: send, ...(options.policy ? { policy: options.policy, budget: new B({ retryQuota: false }) } : {}) });
    return () => client.fetch(URL_);
  };
  // The stub alone, as many times as the path's attempts (each body read but the last).
  const thrice = async (send) => {
    await (await send(URL_)).text();
    await (await send(URL_)).text();
    return send(URL_);
  };
  const list = [{ id: "stub", name: options.policy ? "bare stub × 3" : "bare stub", make: (send) => (options.policy ? () => thrice(send) : () => send(URL_)) }];
  if (before) list.push({ id: "before", name: "retryline before telemetry (no provider)", make: plain(before.RetryClient, before.Budget) });
  list.push({ id: "now", name: "retryline now, no provider", make: plain(RetryClient, Budget) });
  list.push(...telemetryRows(RetryClient, URL_, options.policy ? { policy: options.policy, budget: () => new Budget({ retryQuota: false }) } : {}));
  return list;
}

async function measure(title, script, attempts, options) {
  const cases = rows(options).map((row) => {
    let n = 0;
    const send = () => Promise.resolve(new Response("ok", { status: script(n++) }));
    const call = row.make(send);
    return {
      name: row.name,
      fn: async () => {
        n = 0;
        const res = await call();
        if ((await res.text()) !== "ok" || n !== attempts) throw new Error(`${row.name}: ${n} attempts`);
      },
    };
  });
  for (const c of cases) await c.fn();
  const results = await compareAsyncOps(cases, { rounds: Number(args.rounds), msPerRound: Number(args.ms) });
  const stub = 1e6 / results[0].opsPerSecond;
  console.log(`\n### ${title}\n\n| row | µs/call | µs over the bare stub | rounds' range µs | CPU µs/call |\n|---|---:|---:|---:|---:|`);
  for (const r of results) {
    const us = 1e6 / r.opsPerSecond;
    console.log(`| ${r.name} | ${us.toFixed(1)} | +${(us - stub).toFixed(1)} | ${(1e6 / r.maxOps).toFixed(1)}–${(1e6 / r.minOps).toFixed(1)} | ${r.cpuUsPerCall?.toFixed(1) ?? "–"} |`);
  }
}

console.log(`# What telemetry costs a call (Node ${process.versions.node}, ${args.rounds} interleaved rounds of ${args.ms} ms, median)`);
await measure("Success path (200)", () => 200, 1, {});
await measure("Retry path (503, 503, 200; zero backoff)", (n) => (n < 2 ? 503 : 200), 3, { policy: { baseDelayMs: 0, maxDelayMs: 0 } });
