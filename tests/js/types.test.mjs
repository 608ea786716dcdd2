// The TypeScript declarations (js/index.d.ts) compile against their documented use, strictly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("js/index.d.ts types the documented API under tsc --strict", (t) => {
  // A scratch project where "retryline" resolves to this package, as it would once installed.
  const dir = mkdtempSync(join(tmpdir(), "retryline-types-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(root, join(dir, "node_modules", "retryline"), "dir");
  copyFileSync(join(root, "tests/js/fixtures/usage.ts"), join(dir, "usage.ts"));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: [] },
    files: ["usage.ts"],
  }));
  const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
