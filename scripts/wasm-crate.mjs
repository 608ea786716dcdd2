// Builds a small wasm crate beside the package (bench/floor, www/sim) the way the package is
// built: release, wasm-bindgen --target web, wasm-opt -O1 — when its output is missing or older
// than its sources or the core's.
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureWasmBindgen } from "./bootstrap.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
// The features rustc enables by default for wasm32-unknown-unknown (as scripts/build.mjs).
const FEATURES = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];

const newest = (path) => {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...execFileSync("find", [path, "-type", "f", "-not", "-path", "*/pkg/*"], { encoding: "utf8" })
    .trim().split("\n").filter(Boolean).map((f) => statSync(f).mtimeMs));
};

/**
 * `dir`: the crate (relative to the repo); `lib`: its library name; `out`: where the glue and
 * wasm go. Returns the paths of the glue (`<lib>.js`) and the wasm (`<lib>_bg.wasm`).
 */
export function buildWasmCrate({ dir, lib, out }) {
  const wasm = join(out, `${lib}_bg.wasm`);
  const glue = join(out, `${lib}.js`);
  const builtAt = statSync(wasm, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changedAt = Math.max(newest(join(root, dir, "src")), newest(join(root, dir, "Cargo.toml")), newest(join(root, "src")), newest(join(root, "Cargo.toml")));
  if (builtAt >= changedAt) return { glue, wasm };
  const target = join(root, "target", lib);
  const quiet = { cwd: join(root, dir), stdio: ["ignore", process.stderr, process.stderr], env: { ...process.env, CARGO_TARGET_DIR: target } };
  // A fresh machine has no wasm-bindgen yet (npm start there installs it, at the pinned version).
  ensureWasmBindgen();
  execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown"], quiet);
  execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", out, join(target, "wasm32-unknown-unknown", "release", `${lib}.wasm`)], quiet);
  execFileSync(join(root, "node_modules", ".bin", "wasm-opt"), ["-O1", ...FEATURES.map((f) => `--enable-${f}`), wasm, "-o", wasm], quiet);
  return { glue, wasm };
}
