// Builds pkg/ (node scripts/build.mjs --quiet) when it is missing, lacks one of the files this
// layout ships (browser-fetch.wasm, browser.wasm, browser-inline.js, replay-inline.js, server.wasm, authority.wasm,
// sizes.json: a pkg/ of the old wasm-bindgen layout lacks them), or is older than its sources, so
// the benchmark measures the code in the work tree.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const sources = ["src", "Cargo.toml", "Cargo.lock", "scripts/build.mjs"];
const outputs = ["browser-fetch.wasm", "browser.wasm", "browser-inline.js", "replay-inline.js", "server.wasm", "authority.wasm", "sizes.json"];

function newestMtime(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(`${path}/${name}`)));
}

/** Returns true if it built. */
export function ensureBuilt({ force = false } = {}) {
  const builtAt = statSync(`${root}/pkg/sizes.json`, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changedAt = Math.max(...sources.map((s) => newestMtime(`${root}/${s}`)));
  const whole = outputs.every((f) => statSync(`${root}/pkg/${f}`, { throwIfNoEntry: false }));
  if (!force && whole && builtAt >= changedAt) return false;
  // The build's output goes to stderr: stdout carries the report.
  execFileSync(process.execPath, [`${root}/scripts/build.mjs`, "--quiet"], { cwd: root, stdio: ["ignore", process.stderr, process.stderr] });
  return true;
}
