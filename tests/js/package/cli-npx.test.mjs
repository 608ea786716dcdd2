// `npx retryline worksheet|verify` as a team runs them in CI: from the packed tarball installed
// in a fresh project, on a module that imports a shipped profile by its package name.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { installFresh, removeDir } from "./pack.mjs";

let dir;
after(() => dir && removeDir(dir));

const npx = (args) =>
  new Promise((resolve) => {
    execFile("npx", ["--offline", "--no-install", ...args], { cwd: dir, timeout: 120_000 }, (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }));
  });

test("npx retryline verify and worksheet run from the packed tarball on a module importing a profile", async () => {
  dir = await installFresh();
  await writeFile(join(dir, "retry-config.mjs"), `import binance from "retryline/profiles/binance-spot";\nexport default { ...binance };\n`);
  const verified = await npx(["retryline", "verify", "./retry-config.mjs"]);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, /^verified: 5 families in (\d+) ms$/m);
  console.log(`# ${verified.stdout.trim().split("\n").at(-1)}`);
  const sheet = await npx(["retryline", "worksheet", "./retry-config.mjs"]);
  assert.equal(sheet.code, 0, sheet.stderr);
  assert.match(sheet.stdout, /\| orders \| `POST\/DELETE https:\/\/api\.binance\.com\/api\/v3\/order` \| order \|/);
  const usage = await npx(["retryline"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stdout, /usage: retryline worksheet <module>/);
});
