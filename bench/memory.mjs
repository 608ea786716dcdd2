// Memory per pending operation: <calls> calls pending at once on a fetch stub that never settles until
// released, each library in its own child process (node --expose-gc, see lib/memory-child.mjs):
// (JS heap + wasm memory growth) / calls, after a full gc. Then every call is released (200 "ok",
// bodies read), gc; for retryline a second burst of <calls> shows whether the wasm memory grown by
// the first is reused (wasm memory never shrinks: reuse means it does not grow again).
import { fileURLToPath } from "node:url";
import { runNode } from "./lib/child.mjs";
import { pkgFingerprint } from "./lib/fresh-project.mjs";

const child = fileURLToPath(new URL("./lib/memory-child.mjs", import.meta.url));

export const memoryContenders = [
  { id: "stub", name: "bare stub (floor)", config: "stub(url): a promise and its resolver, held until released", bursts: 1 },
  { id: "retryline", name: "retryline", config: "new RetryClient({ fetch: stub, policy: { attemptTimeoutMs: 3600000, deadlineMs: 3600000 } }).fetch(url)", bursts: 2 },
  { id: "retryline-platform", name: "retryline, the platform's fetch", config: "globalThis.fetch = stub; new RetryClient({ policy: { attemptTimeoutMs: 3600000, deadlineMs: 3600000 } }).fetch(url)", bursts: 1 },
  { id: "p-retry", name: "p-retry + stub", config: "pRetry(() => stub(url) /* throws on !ok */, { retries: 2 })", bursts: 1 },
  { id: "ky", name: "ky", config: "ky.create({ fetch: stub, timeout: 3600000 }).get(url)", bursts: 1 },
];

async function runChild(id, { calls, batch, bursts, timeoutMs }) {
  const args = ["--expose-gc", "--max-old-space-size=8192", child, id, String(calls), String(batch), String(bursts)];
  const { code, signal, out, err } = await runNode(args, { timeoutMs });
  if (code === 0) {
    try {
      return JSON.parse(out.trim().split("\n").at(-1));
    } catch {}
  }
  throw new Error(signal === "SIGKILL" ? `killed after ${timeoutMs} ms` : `exited with ${code ?? signal}: ${err.trim().split("\n").slice(-3).join(" / ")}`);
}

export async function measureMemory({ calls = 100_000, batch = 100, log = () => {} } = {}) {
  const rows = [];
  let fingerprint = null; // the build the retryline child loaded (pkg/ may change during a run)
  for (const c of memoryContenders) {
    if (c.id === "retryline") fingerprint = pkgFingerprint();
    log(`  ${c.name}: ${calls} pending${c.bursts > 1 ? `, ${c.bursts} bursts` : ""}`);
    const started = performance.now();
    try {
      const r = await runChild(c.id, { calls, batch, bursts: c.bursts, timeoutMs: c.id.startsWith("retryline") ? 300_000 : 120_000 });
      rows.push({ name: c.name, config: c.config, seconds: (performance.now() - started) / 1000, ...r });
    } catch (error) {
      log(`  ${c.name}: ${error.message}`);
      rows.push({ id: c.id, name: c.name, config: c.config, error: error.message });
    }
  }
  const floor = rows.find((r) => r.id === "stub" && !r.error);
  for (const r of rows) if (!r.error && floor) r.overFloorBytes = r.perPendingBytes - floor.perPendingBytes;
  return { settings: { calls, batch }, rows, targetBytes: 4000, fingerprint };
}
