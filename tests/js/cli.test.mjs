// `retryline worksheet` and `retryline verify`, run as a user runs them (a child process of the
// bin): the shipped profiles verify; deliberately wrong configurations fail, naming the family
// and the case; the worksheet prints the table.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "bin/retryline.mjs");

function run(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }));
  });
}

/** A module file exporting `source`, in a scratch directory removed after. */
function module(t, source) {
  const dir = mkdtempSync(join(tmpdir(), "retryline-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "config.mjs");
  writeFileSync(file, source);
  return file;
}

test("the shipped profiles verify", async () => {
  for (const profile of ["js/profiles/binance-spot.js", "js/profiles/reference-api.js"]) {
    const { code, stdout } = await run("verify", profile);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^verified: \d+ families in \d+ ms$/m);
    assert.doesNotMatch(stdout, /FAIL/);
  }
  const { stdout } = await run("verify", "js/profiles/binance-spot.js");
  assert.match(stdout, /ok {3}orders: case 3 order lost while it fills/);
  assert.match(stdout, /ok {3}market data: case 5 transport layers/);
  assert.match(stdout, /ok {3}account reads: case 4 restart during a wait/);
});

test("wrong configurations fail, naming the family and the case", async (t) => {
  const file = module(t, `export default { families: [
    { name: "orders declared read", match: { method: "POST", url: "https://api.example.test/api/v3/order" }, operation: "read", policy: { maxAttempts: 3, baseDelayMs: 10, attemptTimeoutMs: 500, deadlineMs: 5000 } },
    { name: "short deadline", match: { method: "GET", url: "https://api.example.test/api/v3/ticker/*" }, policy: { maxAttempts: 5, attemptTimeoutMs: 1000, deadlineMs: 3000 } },
  ] };
  // A client layer that retries on its own, over asFetch: the server sees more than retryline sent.
  export const transports = [{ name: "a client with its own 2 retries", request: async (fetch, url) => { for (let i = 0; i < 3; i++) { const r = await fetch(url); if (r.ok) return r; } } }];`);
  const { code, stdout } = await run("verify", file);
  assert.equal(code, 1, stdout);
  assert.match(stdout, /FAIL orders declared read: case 3 order lost while it fills: an order whose answer was lost reached the server 3 times/);
  assert.match(stdout, /FAIL short deadline: case 1 schedule: maxAttempts 5 cannot be reached within deadlineMs 3000: attempt 3 is refused before sleeping \(deadline\)/);
  assert.match(stdout, /FAIL short deadline: case 5 transport layers: through a client with its own 2 retries: one request reached the server \d+ times, more than the family.s maxAttempts 5/);
  assert.match(stdout, /^3 failed: 2 families/m);
});

test("worksheet prints the table; a bad configuration is an error naming the family and field", async (t) => {
  const { code, stdout } = await run("worksheet", "js/profiles/binance-spot.js");
  assert.equal(code, 0);
  assert.match(stdout, /^\| family \| match \| side effect \|/m);
  assert.match(stdout, /\| orders \| `POST\/DELETE https:\/\/api\.binance\.com\/api\/v3\/order` \| order \|/);
  const json = JSON.parse((await run("worksheet", "js/profiles/binance-spot.js", "--json")).stdout);
  assert.deepEqual(json.rows.map((r) => r.family), ["market data", "order book", "account reads", "orders", "user data stream key", null]);

  const bad = module(t, `export default { families: [{ name: "weights", match: { url: "https://x.test/*" }, wieght: 3 }] };`);
  const failed = await run("worksheet", bad);
  assert.equal(failed.code, 2);
  assert.match(failed.stderr, /families\[0\]: wieght is not a field of a family/);
  assert.equal((await run("frobnicate")).code, 2);
});
